// GridDB's own C client (5.8, unmodified) against a real store node: gsPutMultipleContainerRows
// (CREATE_MULTIPLE_SESSIONS by name, PUT_MULTIPLE_CONTAINER_ROWS, CLOSE_MULTIPLE_SESSIONS) into
// two collections and a time series, gsGetMultipleContainerRows (GET_MULTIPLE_CONTAINER_ROWS) by
// key and by key range, single and composite (gsCreateRowKeyPredicateGeneral), the partition
// controller's names (GET_PARTITION_CONTAINER_NAMES), and the error for an absent container
// (multi.c); store's own client reads the rows the C client put (one store, two protocols).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const MULTI_C = fileURLToPath(new URL('multi.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's code (server/gs_error.h) as the application gets it. */
const TXN_CONTAINER_NOT_FOUND = 10016;

describe('GridDB C client: multi-container statements on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(MULTI_C);

  it('puts and gets rows of several containers at once; store\'s client sees them', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `absent ${TXN_CONTAINER_NOT_FOUND}`);

    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const m02 = await store.getContainer('M02');
      assert.ok(m02 !== undefined);
      assert.deepEqual(await (await m02.query('SELECT * ORDER BY id').fetch()).toArray(),
        [[0, 'M02-0'], [1, 'M02-1'], [2, 'M02-2']]);
      const m03 = await store.getContainer('M03');
      assert.ok(m03 !== undefined);
      assert.deepEqual(await (await m03.query('SELECT *').fetch()).toArray(),
        [[1000, 0n], [2000, 7n]]);
    } finally {
      await store.close();
    }
  });
});
