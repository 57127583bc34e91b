// GridDB's own C client (5.8, unmodified) against a real store node: gsGetCollection and
// gsGetTimeSeries (GET_CONTAINER 105) with struct bindings on containers store's own client
// created (get-container.c), the rows put through them read back by store's own client.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const GET_CONTAINER_C = fileURLToPath(new URL('get-container.c', import.meta.url));
const CLUSTER = 'myCluster';
/** The client's own schema check (client.h GS_ERROR_CC_ILLEGAL_SCHEMA), as against GridDB. */
const GS_ERROR_CC_ILLEGAL_SCHEMA = 140023;
/** GridDB's server/gs_error.h: a container of the other kind (DataStoreV4::getBaseContainer). */
const DS_DS_CONTAINER_TYPE_INVALID = 60026;

describe('GridDB C client: gsGetCollection / gsGetTimeSeries on a store node',
  { timeout: 20 * 60_000 }, () => {
    const suite = cProgramOnNodeForSuite(GET_CONTAINER_C);

    const own = () => getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });

    it('opens existing containers by struct binding, refuses other bindings, puts and reads rows',
      async (t) => {
        if (suite.skip !== undefined) return t.skip(suite.skip);
        const store = own();
        try {
          await store.putContainer({ name: 'GC_Col', type: 'COLLECTION', rowKey: true,
            columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'STRING' },
              { name: 'count', type: 'LONG' }] });
          await store.putContainer({ name: 'GC_TS', type: 'TIME_SERIES', rowKey: true,
            columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' },
              { name: 'status', type: 'STRING' }] });

          const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
          assert.equal(run.code, 0, run.stderr);
          assert.deepEqual(run.stdout.trim().split('\n'), [
            `mismatch ${GS_ERROR_CC_ILLEGAL_SCHEMA}`, `kind ${DS_DS_CONTAINER_TYPE_INVALID}`,
            `cached-mismatch ${GS_ERROR_CC_ILLEGAL_SCHEMA}`,
          ]);

          const collection = await store.getContainer('GC_Col');
          assert.ok(collection !== undefined);
          assert.deepEqual(await (await collection.query('SELECT * ORDER BY id').fetch()).toArray(),
            [[1, 'one', 11n], [2, 'two', 22n], [3, 'three', 33n]]);
          const series = await store.getContainer('GC_TS');
          assert.ok(series !== undefined);
          assert.deepEqual(await (await series.query('SELECT *').fetch()).toArray(),
            [[1000, 0.5, 'ok'], [2000, 1, 'warn'], [3000, 1.5, 'ok']]);
        } finally {
          await store.close();
        }
      });
  });
