// GridDB's own C client (5.8, unmodified) and gsAppendTimeSeriesRow (append.c) against a real
// node: rows appended get strictly increasing keys from the node's clock near the program's own,
// in the order appended; store's own client reads the same rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const APPEND_C = fileURLToPath(new URL('append.c', import.meta.url));
const CLUSTER = 'myCluster';
const ROW_COUNT = 20;

describe('GridDB C client: gsAppendTimeSeriesRow', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(APPEND_C);

  it('keys each row by the node\'s clock, increasing, near now', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER,
      String(ROW_COUNT)]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `appended ${ROW_COUNT}`);
    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const series = await store.getContainer('AP_TS');
      assert.ok(series !== undefined);
      const rows = await (await series.query('SELECT *').fetch()).toArray();
      assert.deepEqual(rows.map((row) => row[1]), Array.from({ length: ROW_COUNT }, (_, i) => i));
      const keys = rows.map((row) => Number(row[0]));
      keys.slice(1).forEach((key, i) => assert.ok(key > keys[i]!, `key ${i + 1} increases`));
    } finally {
      await store.close();
    }
  });
});
