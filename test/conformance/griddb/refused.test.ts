// GridDB's own C client (5.8, unmodified) against a real store node: the API calls whose
// statements the node refuses (refused.c) get the codes docs/client.md lists — GridDB's own for
// triggers (1007, as GridDB 5.x refuses them) — and
// the connection carries on (the program puts a row after each), the rows there for store's own
// client.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const REFUSED_C = fileURLToPath(new URL('refused.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's server/gs_error.h. */
const CM_NOT_SUPPORTED = 1007;

describe('GridDB C client: calls a store node refuses', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(REFUSED_C);

  it('refuses the trigger calls, and carries on', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [
      `gsCreateTrigger ${CM_NOT_SUPPORTED}`, `gsDropTrigger ${CM_NOT_SUPPORTED}`,
    ]);
    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const series = await store.getContainer('RF_TS');
      assert.ok(series !== undefined);
      assert.deepEqual(await (await series.query('SELECT *').fetch()).toArray(),
        [[1000, 1.5], [2000, 1.5]]);
    } finally {
      await store.close();
    }
  });
});
