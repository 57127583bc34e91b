// Secondary indexes in the engine: createIndex / dropIndex and their rules, the structure kept
// equal to the committed rows through puts, updates of indexed values and removes, transactions
// (uncommitted rows invisible through an index to others, visible to their own session), restart
// and crash (definitions durable, structures built again from the rows), and the memory bound.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import type { ContainerHandle } from '../../../lib/engine/session.ts';
import { Store } from '../../../lib/engine/store.ts';
import { openTestStore, storageError } from './engine-test-helpers.ts';

const READINGS: ContainerDefinition = {
  name: 'readings', type: 'COLLECTION', rowKey: true,
  columns: [
    { name: 'id', type: 'INTEGER' }, { name: 'site', type: 'STRING' },
    { name: 'temp', type: 'DOUBLE' }, { name: 'level', type: 'LONG' },
    { name: 'tags', type: 'STRING', array: true }, { name: 'raw', type: 'BLOB' },
  ],
};

function reading(id: number, site: string | null, temp: number | null, level: bigint | null): Row {
  return [id, site, temp, level, [], new Uint8Array(0)];
}

async function rowsOf(handle: ContainerHandle, tql: string): Promise<{ ids: number[]; index?: string }> {
  const result: TqlResult = await handle.query(tql);
  assert.equal(result.kind, 'rows');
  if (result.kind !== 'rows') throw new Error('rows expected');
  const ids = result.rows.map((row) => row[0] as number);
  return result.indexUsed === undefined ? { ids } : { ids, index: result.indexUsed };
}

async function seeded() {
  const test = await openTestStore();
  await test.store.createContainer(structuredClone(READINGS));
  const handle = test.store.session().container('readings');
  const rows: Row[] = [];
  for (let id = 0; id < 60; id++) {
    rows.push(reading(id, id % 7 === 0 ? null : `s${id % 3}`, id % 11 === 0 ? null : id / 2,
      BigInt(id % 5)));
  }
  await handle.multiPut(rows);
  return { test, handle };
}

describe('secondary indexes: DDL', () => {
  it('creates, reports in the info, is idempotent, and drops by name or columns', async () => {
    const { test } = await seeded();
    const { store } = test;
    assert.equal(await store.createIndex('readings', { columnNames: ['site'], name: 'bySite' }), true);
    assert.equal(await store.createIndex('READINGS',
      { columnNames: ['SITE'], type: 'tree', name: 'BYSITE' }), false);
    assert.equal(await store.createIndex('readings', { columnNames: ['site'], type: 'TREE' }), false);
    await assert.rejects(store.createIndex('readings', { columnNames: ['site'], name: 'other' }),
      storageError('INVALID_SCHEMA', /named "bySite"/));
    await assert.rejects(store.createIndex('readings', { columnNames: ['temp'], name: 'bysite' }),
      storageError('INVALID_SCHEMA'));
    assert.equal(await store.createIndex('readings', { columnNames: ['level', 'temp'] }), true);
    const info = store.getContainerInfo('readings')!;
    assert.deepEqual(info.indexes, [
      { name: 'bySite', columnIndexes: [1], type: 'TREE' },
      { name: '', columnIndexes: [3, 2], type: 'TREE' },
    ]);
    assert.equal(info.schemaVersion, 1, 'an index is no schema change of the rows');
    assert.equal(await store.dropIndex('readings', { name: 'nothing' }), 0);
    assert.equal(await store.dropIndex('readings', { columnNames: ['temp', 'level'] }), 0);
    assert.equal(await store.dropIndex('readings', { name: 'BYSITE' }), 1);
    assert.equal(await store.dropIndex('readings', { columnNames: ['level', 'temp'], type: 'TREE' }), 1);
    assert.deepEqual(store.getContainerInfo('readings')!.indexes, []);
    await test.store.close();
  });

  it('refuses what GridDB refuses, with stable codes, and changes nothing', async () => {
    const { test } = await seeded();
    const { store } = test;
    await store.createContainer({
      name: 'meter', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
    });
    const refusals: Array<[string, unknown, string]> = [
      ['meter', { columnNames: ['ts'] }, 'INVALID_SCHEMA'],
      ['meter', { columnNames: ['kw', 'ts'] }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['raw'] }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['tags'] }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['nope'] }, 'COLUMN_NOT_FOUND'],
      ['readings', { columnNames: [] }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['site', 'site'] }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: Array.from({ length: 17 }, () => 'site') }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['site'], type: 'HASH' }, 'NOT_SUPPORTED'],
      ['readings', { columnNames: ['site'], type: 'SPATIAL' }, 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['site'], unknown: 1 }, 'INVALID_SCHEMA'],
      ['readings', 'site', 'INVALID_SCHEMA'],
      ['readings', { columnNames: ['site'], name: 'bad name!' }, 'INVALID_NAME'],
    ];
    for (const [container, definition, code] of refusals) {
      await assert.rejects(store.createIndex(container, definition as never),
        storageError(code as never), JSON.stringify(definition));
    }
    await assert.rejects(store.createIndex('missing', { columnNames: ['a'] }),
      storageError('CONTAINER_NOT_FOUND'));
    await assert.rejects(store.dropIndex('missing', { name: 'a' }), storageError('CONTAINER_NOT_FOUND'));
    await assert.rejects(store.dropIndex('readings', {}), storageError('INVALID_SCHEMA'));
    await assert.rejects(store.dropIndex('readings', { columnNames: ['nope'] }),
      storageError('COLUMN_NOT_FOUND'));
    assert.deepEqual(store.getContainerInfo('readings')!.indexes, []);
    assert.deepEqual(store.getContainerInfo('meter')!.indexes, []);
    await store.close();
  });

  it('keeps definitions over a clean restart and a crash; structures come back from the rows', async () => {
    const { test, handle } = await seeded();
    await test.store.createIndex('readings', { columnNames: ['site'], name: 'bySite' });
    const before = await rowsOf(handle, "SELECT * WHERE site = 's1'");
    assert.equal(before.index, 'bySite');
    await test.reopen();
    const partition = test.store.partitionFor('readings');
    const entry = partition.catalog.lookup('readings')!;
    assert.equal(entry.indexes.isBuilt([1]), false, 'built lazily after a restart');
    const reopened = test.store.session().container('readings');
    assert.deepEqual(await rowsOf(reopened, "SELECT * WHERE site = 's1'"), before);
    assert.equal(entry.indexes.isBuilt([1]), true);
    // A crash after a create and a drop that were never checkpointed: the xlog replays both.
    await test.store.createIndex('readings', { columnNames: ['temp'], name: 'byTemp' });
    await test.store.dropIndex('readings', { name: 'bySite' });
    await reopened.put(reading(100, 's1', 1.5, 1n));
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    assert.deepEqual(store.getContainerInfo('readings')!.indexes,
      [{ name: 'byTemp', columnIndexes: [2], type: 'TREE' }]);
    const after = await rowsOf(store.session().container('readings'), 'SELECT * WHERE temp <= 2');
    assert.deepEqual(after, { ids: [1, 2, 3, 4, 100], index: 'byTemp' });
    await store.close();
  });
});

describe('secondary indexes: queries and writes', () => {
  it('answers as a scan does, through puts, updates of indexed values and removes', async () => {
    const { test, handle } = await seeded();
    const queries = [
      "SELECT * WHERE site = 's1'", 'SELECT * WHERE site IS NULL', 'SELECT * WHERE temp > 10.5',
      'SELECT * WHERE temp >= 3 AND temp < 9 ORDER BY temp DESC', 'SELECT * WHERE temp IS NOT NULL LIMIT 3 OFFSET 2',
      'SELECT * WHERE level = 2 AND temp > 5', 'SELECT * WHERE level = 2.5', 'SELECT * WHERE level < 1.5',
      "SELECT * WHERE level = 3 AND site = 's0'", 'SELECT COUNT(*) WHERE level = 4',
      'SELECT MAX(temp) WHERE level >= 3', 'SELECT * WHERE temp = 4 OR site IS NULL',
    ];
    const scanned = new Map<string, TqlResult>();
    const check = async (stage: string) => {
      for (const tql of queries) {
        const { indexUsed: _ignored, ...indexed } = await handle.query(tql);
        const plain = scanned.get(tql)!;
        assert.deepStrictEqual({ ...indexed, scannedRowCount: 0 }, { ...plain, scannedRowCount: 0 },
          `${stage}: ${tql}`);
      }
    };
    const scanAll = async () => {
      for (const tql of queries) scanned.set(tql, await handle.query(tql));
    };
    await scanAll();
    await test.store.createIndex('readings', { columnNames: ['site'] });
    await test.store.createIndex('readings', { columnNames: ['temp'] });
    await test.store.createIndex('readings', { columnNames: ['level', 'temp'] });
    await check('created');
    assert.equal((await rowsOf(handle, 'SELECT * WHERE level = 2 AND temp > 5')).index, 'TREE(level, temp)');
    // Updates that move rows within the indexes, removes, new rows, a batch repeating a key.
    await handle.multiPut([reading(3, 's9', 99, 4n), reading(5, null, null, null),
      reading(70, 's1', 10.75, 2n), reading(70, 's1', 11, 2n)]);
    await handle.remove(8);
    await handle.remove(14);
    await scanAllWithout(test.store, queries, scanned);
    await check('written');
    await test.store.close();
  });

  it('keeps uncommitted rows out of other sessions and in the writing session', async () => {
    const { test, handle } = await seeded();
    await test.store.createIndex('readings', { columnNames: ['site'], name: 'bySite' });
    const writer = test.store.session().container('readings');
    await writer.setAutoCommit(false);
    await writer.put(reading(200, 'private', 1, 1n));
    await writer.put(reading(1, 'private', 1, 1n)); // was s1
    await writer.remove(2); // s2
    const mine = await rowsOf(writer, "SELECT * WHERE site = 'private'");
    assert.deepEqual(mine, { ids: [1, 200], index: 'bySite' });
    assert.deepEqual((await rowsOf(writer, "SELECT * WHERE site = 's1'")).ids.includes(1), false);
    assert.deepEqual((await rowsOf(writer, "SELECT * WHERE site = 's2'")).ids.includes(2), false);
    assert.deepEqual(await rowsOf(handle, "SELECT * WHERE site = 'private'"), { ids: [], index: 'bySite' });
    assert.equal((await rowsOf(handle, "SELECT * WHERE site = 's1'")).ids.includes(1), true);
    await writer.commit();
    assert.deepEqual(await rowsOf(handle, "SELECT * WHERE site = 'private'"), { ids: [1, 200], index: 'bySite' });
    await writer.put(reading(300, 'private', 1, 1n));
    await writer.abort();
    assert.deepEqual((await rowsOf(writer, "SELECT * WHERE site = 'private'")).ids, [1, 200]);
    await test.store.close();
  });

  it('serves a keyless collection and a time series, and follows added columns', async () => {
    const test = await openTestStore();
    const { store } = test;
    await store.createContainer({
      name: 'log', type: 'COLLECTION', columns: [{ name: 'level', type: 'INTEGER' }, { name: 'text', type: 'STRING' }],
    });
    const log = store.session().container('log');
    await log.multiPut([[1, 'a'], [2, 'b'], [1, 'c']]);
    await store.createIndex('log', { columnNames: ['level'] });
    await log.multiPut([[1, 'd'], [3, 'e']]);
    const result = await log.query('SELECT * WHERE level = 1');
    assert.equal(result.kind === 'rows' && result.indexUsed, 'TREE(level)');
    assert.deepEqual(result.kind === 'rows' && result.rows, [[1, 'a'], [1, 'c'], [1, 'd']]);
    await store.createContainer({
      name: 'meter', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
    });
    const meter = store.session().container('meter');
    await meter.multiPut([[1000, 1], [2000, 5], [3000, 1]]);
    await store.createIndex('meter', { columnNames: ['kw'] });
    await store.addColumn('meter', { name: 'note', type: 'STRING', array: false, notNull: false });
    await meter.put([4000, 1, 'x']);
    await store.createIndex('meter', { columnNames: ['note'] });
    const byKw = await meter.query('SELECT * WHERE kw = 1 ORDER BY ts DESC');
    assert.deepEqual(byKw.kind === 'rows' && byKw.rows, [[4000, 1, 'x'], [3000, 1, null], [1000, 1, null]]);
    const byNote = await meter.query('SELECT * WHERE note IS NULL');
    assert.deepEqual(byNote.kind === 'rows' && [byNote.indexUsed, byNote.rows.length], ['TREE(note)', 3]);
    await store.close();
  });

  it('stays within the index memory bound: past it, queries scan with the same results', async () => {
    // 1 MB of storeMemoryLimit over 2 groups: 128 KB of index memory per group.
    const test = await openTestStore({ storeMemoryLimitBytes: 1024 * 1024 });
    const { store } = test;
    await store.createContainer(structuredClone(READINGS));
    const handle = store.session().container('readings');
    const rows: Row[] = [];
    for (let id = 0; id < 400; id++) rows.push(reading(id, `site-${'x'.repeat(200)}-${id % 10}`, id, 1n));
    await handle.multiPut(rows);
    const tql = `SELECT * WHERE site = 'site-${'x'.repeat(200)}-3'`;
    const scanned = await rowsOf(handle, tql);
    await store.createIndex('readings', { columnNames: ['temp'], name: 'small' });
    const small = store.stats().memory.index.useBytes;
    assert.ok(small > 0);
    await store.createIndex('readings', { columnNames: ['site'], name: 'big' });
    const stats = store.stats().memory.index;
    assert.ok(stats.useBytes <= stats.limitBytes);
    assert.equal(stats.useBytes, small, 'the index that does not fit holds nothing');
    assert.deepEqual(await rowsOf(handle, tql), scanned);
    assert.equal((await rowsOf(handle, 'SELECT * WHERE temp = 3')).index, 'small');
    // Dropping the small index frees memory; the big one is tried again, and still does not fit.
    await store.dropIndex('readings', { name: 'small' });
    assert.deepEqual(await rowsOf(handle, tql), scanned);
    assert.equal(store.stats().memory.index.useBytes, 0);
    await store.dropContainer('readings');
    assert.equal(store.stats().memory.index.useBytes, 0);
    await store.close();
  });
});

async function scanAllWithout(store: Store, queries: string[], scanned: Map<string, TqlResult>) {
  // The reference answers: the same container copied without indexes.
  const info = store.getContainerInfo('readings')!;
  const copy = structuredClone(READINGS);
  copy.name = 'readings_plain';
  await store.createContainer(copy);
  const source = store.session().container('readings');
  const plain = store.session().container('readings_plain');
  await plain.multiPut(await source.scan());
  assert.equal(info.rowCount, (await plain.count()));
  for (const tql of queries) {
    const result = await plain.query(tql.replace('readings', 'readings_plain'));
    assert.equal(result.indexUsed, undefined);
    scanned.set(tql, result);
  }
}
