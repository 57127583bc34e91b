// Queries through the server: paging by fetch size, FETCH and RESULT_CLOSE, the bound on open
// results, a pluggable handler (here the test's scan handler) and the node's own TQL handler.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNECTION_RESULT_SET_COUNT_MAX } from '../../../lib/base/limits.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { CONTAINER_PUT } from '../../../lib/protocol/messages-container.ts';
import {
  FETCH, QUERY, RESULT_CLOSE, RESULT_SET_ID_NONE,
} from '../../../lib/protocol/messages-query.ts';
import { ROW_PUT } from '../../../lib/protocol/messages-row.ts';
import { RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { containerSchemaOf, resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { queriesNotSupported } from '../../../lib/server/query-handler.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { RawClient, startServer, storageError } from './server-test-helpers.ts';

const ref = { partitionId: containerPartitionId('readings', 8), name: 'readings' };

/** A server whose `readings` holds rows 1..count, and a client on it. */
async function withReadings(
  count: number,
  overrides: Parameters<typeof startServer>[0],
  body: (client: RawClient) => Promise<void>,
): Promise<void> {
  const test = await startServer(overrides);
  const client = await RawClient.ready(test.port);
  try {
    const info = await client.call(CONTAINER_PUT, {
      statement: { sessionId: 0, statementId: 1 }, partitionId: ref.partitionId, modifiable: false,
      definitionJson: JSON.stringify({ name: 'readings', type: 'COLLECTION', rowKey: true,
        columns: [{ name: 'id', type: 'INTEGER' }, { name: 'value', type: 'DOUBLE' }] }),
    });
    const rows: Row[] = Array.from({ length: count }, (_, i) => [i + 1, (i + 1) / 2]);
    await client.call(ROW_PUT, { statement: { sessionId: 0, statementId: 2 },
      ref: { ...ref, containerId: info.containerId, schemaVersion: 1 },
      rows: RowBatch.of(containerSchemaOf(info), rows) });
    await body(client);
  } finally {
    client.close();
    await test.stop();
  }
}

const query = (tql: string, fetchSize: number) =>
  ({ sessionId: 0, ref, tql, fetchSize, partialExecution: false, forUpdate: false });

describe('transaction server: queries', () => {
  it('pages a result by fetch size, then closes it', async () => {
    await withReadings(5, {}, async (client) => {
      const first = await client.call(QUERY, query('select *', 2));
      assert.equal(first.kind, 'ROWS');
      assert.deepEqual(first.columns.map((column) => column.name), ['id', 'value']);
      const schema = resultSchemaOf(first.columns);
      assert.deepEqual(first.rows.decode(schema), [[1, 0.5], [2, 1]]);
      assert.notEqual(first.resultSetId, RESULT_SET_ID_NONE);
      const second = await client.call(FETCH, { resultSetId: first.resultSetId, fetchSize: 2 });
      assert.deepEqual([second.done, second.rows.decode(schema)], [false, [[3, 1.5], [4, 2]]]);
      const third = await client.call(FETCH, { resultSetId: first.resultSetId, fetchSize: 2 });
      assert.deepEqual([third.done, third.rows.decode(schema)], [true, [[5, 2.5]]]);
      await assert.rejects(client.call(FETCH, { resultSetId: first.resultSetId, fetchSize: 2 }),
        storageError('CLOSED', /closed or does not exist/));
    });
  });

  it('answers a small result in one reply, and an aggregation as one value', async () => {
    await withReadings(3, {}, async (client) => {
      const all = await client.call(QUERY, query('select *', 10));
      assert.equal(all.resultSetId, RESULT_SET_ID_NONE);
      assert.equal(all.rows.count, 3);
      const count = await client.call(QUERY, query('select count(*)', 10));
      assert.equal(count.kind, 'AGGREGATION');
      assert.deepEqual(count.rows.decode(resultSchemaOf(count.columns)), [[3n]]);
    });
  });

  it('closes results early and bounds how many a connection holds open', async () => {
    await withReadings(3, {}, async (client) => {
      const ids = [];
      for (let i = 0; i < CONNECTION_RESULT_SET_COUNT_MAX; i++) {
        ids.push((await client.call(QUERY, query('select *', 1))).resultSetId);
      }
      await assert.rejects(client.call(QUERY, query('select *', 1)),
        storageError('LIMIT_EXCEEDED', /open query results/));
      await client.call(RESULT_CLOSE, { resultSetId: ids[0]! });
      await client.call(RESULT_CLOSE, { resultSetId: ids[0]! });
      const again = await client.call(QUERY, query('select *', 1));
      assert.notEqual(again.resultSetId, RESULT_SET_ID_NONE);
    });
  });

  it('reports the handler\'s errors, and NOT_SUPPORTED without queries', async () => {
    await withReadings(1, {}, async (client) => {
      await assert.rejects(client.call(QUERY, query('select nonsense', 1)),
        storageError('NOT_SUPPORTED', /only "select \*"/));
      await assert.rejects(client.call(QUERY, { ...query('select *', 1),
        ref: { partitionId: containerPartitionId('none', 8), name: 'none' } }),
      storageError('CONTAINER_NOT_FOUND'));
    });
    await withReadings(1, { queryHandler: queriesNotSupported }, async (client) => {
      await assert.rejects(client.call(QUERY, query('select *', 1)), storageError('NOT_SUPPORTED'));
    });
  });

  it('runs TQL on the engine by default, paging a partial execution', async () => {
    await withReadings(30, { queryHandler: tqlQueryHandler }, async (client) => {
      const where = await client.call(QUERY,
        query('SELECT * WHERE value > 14 ORDER BY id DESC', 100));
      assert.deepEqual(where.rows.decode(resultSchemaOf(where.columns)), [[30, 15], [29, 14.5]]);
      const average = await client.call(QUERY, query('SELECT AVG(value)', 100));
      assert.equal(average.kind, 'AGGREGATION');
      assert.deepEqual(average.rows.decode(resultSchemaOf(average.columns)), [[7.75]]);
      const first = await client.call(QUERY, { ...query('SELECT *', 8), partialExecution: true });
      const schema = resultSchemaOf(first.columns);
      const ids = first.rows.decode(schema).map((row) => row[0]);
      for (let done = false; !done;) {
        const page = await client.call(FETCH, { resultSetId: first.resultSetId, fetchSize: 8 });
        ids.push(...page.rows.decode(schema).map((row) => row[0]));
        done = page.done;
      }
      assert.deepEqual(ids, Array.from({ length: 30 }, (_, i) => i + 1));
      await assert.rejects(client.call(QUERY, query('SELECT * WHERE', 10)));
    });
  });
});
