// GridDB's own C client (5.8, unmodified) against a real store node: index calls
// (CREATE_INDEX_DETAIL, DROP_INDEX_DETAIL: index.c), single-column, named and composite indexes,
// a repeated create and drops by column and by name; store's own client sees the index left.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const INDEX_C = fileURLToPath(new URL('index.c', import.meta.url));
const CLUSTER = 'myCluster';

describe('GridDB C client: index calls on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(INDEX_C);

  it('creates and drops indexes; store\'s client sees the one left', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.trim(), /^hash \d+$/);

    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const info = await store.getContainerInfo('IX01');
      assert.deepEqual(info?.indexes.map((index) => [index.name, index.columnIndexes]),
        [['ixv', [2]]]);
    } finally {
      await store.close();
    }
  });
});
