// GridDB's own C client (5.8, unmodified) against a real store node: TQL (QUERY_TQL) with the
// fetch options GS_FETCH_LIMIT, GS_FETCH_SIZE (partial fetch: FETCH_ROW_SET, CLOSE_ROW_SET) and
// GS_FETCH_PARTIAL_EXECUTION, aggregation results, EXPLAIN, and gsUpdateCurrentRow /
// gsDeleteCurrentRow (UPDATE_ROW_BY_ID, DELETE_ROW_BY_ID) on a row set fetched for update
// (query.c); store's own client reads the rows the C client updated (one store, two protocols).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const QUERY_C = fileURLToPath(new URL('query.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's code of a statement the node does not do (store refuses row ids it has no key of). */
const TXN_STATEMENT_TYPE_UNKNOWN = 10013;

describe('GridDB C client: TQL queries and row sets on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(QUERY_C);

  it('fetches with limits, fetch sizes and partial execution, aggregates, explains, updates and deletes current rows', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `keyless-update ${TXN_STATEMENT_TYPE_UNKNOWN}`);

    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const q01 = await store.getContainer('Q01');
      assert.ok(q01 !== undefined);
      const rows = await (await q01.query('SELECT * WHERE id <= 6 ORDER BY id').fetch()).toArray();
      assert.deepEqual(rows, [[1, 'updated', 1.5], [3, 'updated', 4.5], [5, 'updated', 7.5],
        [6, 'r6', 9]]);
    } finally {
      await store.close();
    }
  });
});
