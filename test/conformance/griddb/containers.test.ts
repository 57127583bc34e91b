// GridDB's own C client (5.8, unmodified) against a real store node: the container statements
// PUT_CONTAINER, GET_CONTAINER_PROPERTIES and DROP_CONTAINER (containers.c), with every column
// type, and store's own client looking at the same containers in between (one store, two
// protocols). test/support/griddb-c-client.ts builds the client (skips with a message without
// the source or the build tools).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const CONTAINERS_C = fileURLToPath(new URL('containers.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's codes (server/gs_error.h) as the application gets them. */
const DS_DS_CHANGE_SCHEMA_DISABLE = 60016;
const TXN_CONTAINER_TYPE_INVALID = 10018;

describe('GridDB C client: containers on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(CONTAINERS_C);

  const own = () => getStore({
    notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
    username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
  });

  it('creates, describes and drops a collection and a time series of every column type',
    async (t) => {
      if (suite.skip !== undefined) return t.skip(suite.skip);
      const created = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER, 'create']);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(created.stdout.trim().split('\n'), [
        `change-schema ${DS_DS_CHANGE_SCHEMA_DISABLE}`, `drop-type ${TXN_CONTAINER_TYPE_INVALID}`,
      ]);

      const store = own();
      try {
        const collection = await store.getContainerInfo('Col_All');
        assert.ok(collection !== undefined);
        assert.equal(collection.name, 'Col_All');
        assert.equal(collection.type, 'COLLECTION');
        assert.equal(collection.rowKeyColumnCount, 1);
        assert.deepEqual(collection.columns.map((column) => [column.name, column.type,
          column.array, column.notNull, column.timePrecision ?? 'MILLISECOND']), [
          ['id', 'INTEGER', false, true, 'MILLISECOND'],
          ['s', 'STRING', false, false, 'MILLISECOND'],
          ['b', 'BOOL', false, false, 'MILLISECOND'],
          ['by', 'BYTE', false, false, 'MILLISECOND'],
          ['sh', 'SHORT', false, false, 'MILLISECOND'],
          ['i', 'INTEGER', false, false, 'MILLISECOND'],
          ['l', 'LONG', false, true, 'MILLISECOND'],
          ['f', 'FLOAT', false, false, 'MILLISECOND'],
          ['d', 'DOUBLE', false, false, 'MILLISECOND'],
          ['t', 'TIMESTAMP', false, false, 'MILLISECOND'],
          ['tu', 'TIMESTAMP', false, false, 'MICROSECOND'],
          ['Tn', 'TIMESTAMP', false, false, 'NANOSECOND'],
          ['g', 'GEOMETRY', false, false, 'MILLISECOND'],
          ['bl', 'BLOB', false, false, 'MILLISECOND'],
          ['sa', 'STRING', true, false, 'MILLISECOND'],
          ['ba', 'BOOL', true, false, 'MILLISECOND'],
          ['bya', 'BYTE', true, false, 'MILLISECOND'],
          ['sha', 'SHORT', true, false, 'MILLISECOND'],
          ['ia', 'INTEGER', true, false, 'MILLISECOND'],
          ['la', 'LONG', true, false, 'MILLISECOND'],
          ['fa', 'FLOAT', true, false, 'MILLISECOND'],
          ['da', 'DOUBLE', true, false, 'MILLISECOND'],
          ['ta', 'TIMESTAMP', true, false, 'MILLISECOND'],
        ]);
        const timeSeries = await store.getContainerInfo('TS_All');
        assert.equal(timeSeries?.type, 'TIME_SERIES');
        assert.deepEqual(timeSeries?.columns.map((column) => column.name), ['ts', 'value', 'status']);
      } finally {
        await store.close();
      }

      const dropped = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER, 'drop']);
      assert.equal(dropped.code, 0, dropped.stderr);
      const after = own();
      try {
        assert.equal(await after.getContainerInfo('Col_All'), undefined);
        assert.equal(await after.getContainerInfo('TS_All'), undefined);
      } finally {
        await after.close();
      }
    });
});
