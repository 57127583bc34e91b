// GridDB's own C client (5.8, unmodified) and gsFlush (flush.c) against a real node process with
// logWriteMode a day (no periodic sync while the test runs): the program puts ROW_COUNT rows,
// gsFlush returns, the node is SIGKILLed and started again, and every row put before the flush is
// there, read through store's own client.
//
// What a SIGKILL can show: under logWriteMode n >= 1 a row is handed to the OS at its put
// (partition-log.ts), so a killed process loses nothing even without the flush; only a power cut
// takes away an unsynced log. That the flush itself syncs is proven where a power cut can be made:
// test/unit/engine/partition-log-sync.test.ts (SimFileSystem) and, through this statement's frame,
// test/unit/server/griddb/griddb-flush-log.test.ts (the store's sync count).

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { getStore } from '../../../lib/client/store-factory.ts';
import { compileProgram, griddbCClient, runProgram } from '../../support/griddb-c-client.ts';
import {
  newNodeHome, removeHome, startNodeProcess, type NodeProcess,
} from '../../unit/node/node-process.ts';

const FLUSH_C = fileURLToPath(new URL('flush.c', import.meta.url));
const CLUSTER = 'myCluster';
const ROW_COUNT = 200;
/** logWriteMode's largest value: no periodic sync comes during the test. */
const LOG_WRITE_MODE_DAY = 86_400;

describe('GridDB C client: gsFlush', { timeout: 20 * 60_000 }, () => {
  const home = newNodeHome({ dataStore: { logWriteMode: LOG_WRITE_MODE_DAY } });
  let node: NodeProcess | undefined;
  after(async () => {
    await node?.kill();
    removeHome(home);
  });

  it('returns after the node synced the log; the rows are there after a SIGKILL', async (t) => {
    const client = await griddbCClient();
    if ('skip' in client) return t.skip(client.skip);
    const program = await compileProgram(client, FLUSH_C);
    node = await startNodeProcess(home);
    const run = await runProgram(program, [String(node.transactionPort), CLUSTER,
      String(ROW_COUNT)]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `flushed ${ROW_COUNT}`);
    await node.kill();
    node = await startNodeProcess(home);
    const store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const series = await store.getContainer('FL_TS');
      assert.ok(series !== undefined, 'FL_TS is there after the restart');
      assert.deepEqual(await (await series.query('SELECT *').fetch()).toArray(),
        Array.from({ length: ROW_COUNT }, (_, i) => [(i + 1) * 1000, (i + 1) / 2]));
    } finally {
      await store.close();
    }
  });
});
