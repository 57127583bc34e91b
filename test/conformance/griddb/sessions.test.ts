// GridDB's own C client (5.8, unmodified) against a real store node: sessions and manual
// transactions (CREATE_SESSION, CLOSE_SESSION, COMMIT_TRANSACTION, ABORT_TRANSACTION, row
// statements in BEGIN / CONTINUE mode), GridDB's lock-timeout error (a put's lock and
// gsGetRowForUpdate's), composite row keys, and a
// collection without a row key written in a session (sessions.c); store's own client reads the
// rows the C client committed (one store, two protocols).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const SESSIONS_C = fileURLToPath(new URL('sessions.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's code (server/gs_error.h) for a lock still held at the transaction timeout. */
const DS_CON_LOCK_CONFLICT = 60166;

describe('GridDB C client: sessions and transactions on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(SESSIONS_C);

  it('commits, aborts, times out on a held lock, keys by composite keys; store\'s client sees the committed rows', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(),
      `lock-timeout ${DS_CON_LOCK_CONFLICT}\nfor-update ${DS_CON_LOCK_CONFLICT}`);

    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const tx01 = await store.getContainer('Tx01');
      assert.deepEqual(await tx01?.get(1), [1, 'locked']);
      assert.deepEqual(await tx01?.get(2), [2, 'two']);
      assert.equal(await tx01?.get(3), undefined);
      assert.deepEqual(await tx01?.get(4), [4, 'four']);
      assert.deepEqual(await tx01?.get(6), [6, 'cached']);
      const tx02 = await store.getContainer('Tx02');
      assert.deepEqual(await tx02?.get([1, 'k\u00e9y']), [1, 'k\u00e9y', 100n]);
      assert.equal(await tx02?.get([2, 'k\u00e9y']), undefined);
      const tx03 = await store.getContainer('Tx03');
      assert.ok(tx03 !== undefined);
      const rows = await (await tx03.query('SELECT * ORDER BY id').fetch()).toArray();
      assert.deepEqual(rows, [[1, 'auto'], [2, 'auto'], [3, 'committed'], [4, 'committed']]);
    } finally {
      await store.close();
    }
  });
});
