// The SPATIAL index in the engine: createIndex(g, 'SPATIAL') builds it, ST_MBRIntersects reads
// through it (indexUsed, EXPLAIN), writes keep it equal to the rows, dropIndex removes it, and
// after a restart it is built again from the rows by the first query that wants it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerHandle } from '../../../lib/engine/session.ts';
import { openTestStore, storageError } from './engine-test-helpers.ts';

const WINDOW = "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')";
const QUERY = `SELECT * WHERE ST_MBRIntersects(g, ${WINDOW})`;

async function idsOf(handle: ContainerHandle, tql: string): Promise<{ ids: number[]; index?: string }> {
  const result: TqlResult = await handle.query(tql);
  assert.ok(result.kind === 'rows');
  const ids = result.rows.map((row) => row[0] as number);
  return result.indexUsed === undefined ? { ids } : { ids, index: result.indexUsed };
}

async function seeded() {
  const test = await openTestStore();
  await test.store.createContainer({
    name: 'places', type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'INTEGER' }, { name: 'g', type: 'GEOMETRY' }],
  });
  const handle = test.store.session().container('places');
  const rows: Row[] = [];
  // 400 points on a 20 x 20 grid from (-50, -50) in steps of 5; 3 x 3 of them lie in the window.
  for (let id = 0; id < 400; id++) rows.push([id, `POINT(${-50 + (id % 20) * 5} ${-50 + Math.floor(id / 20) * 5})`]);
  rows.push([400, 'POINT(EMPTY)'], [401, null], [402, 'LINESTRING(-100 5,100 5)']);
  rows.push([403, 'POINT(5 5 500)'], [404, 'POLYGON((9 9,20 9,20 20,9 9);4326)']);
  await handle.multiPut(rows);
  return { test, handle };
}

const INSIDE = [210, 211, 212, 230, 231, 232, 250, 251, 252, 402, 403, 404];

describe('SPATIAL index', () => {
  it('is read by ST_MBRIntersects with a constant window, either way round', async () => {
    const { test, handle } = await seeded();
    assert.deepEqual(await idsOf(handle, QUERY), { ids: INSIDE });
    assert.equal(await test.store.createIndex('places', { columnNames: ['g'], type: 'SPATIAL' }),
      true);
    assert.deepEqual(test.store.getContainerInfo('places')!.indexes,
      [{ name: '', columnIndexes: [1], type: 'SPATIAL' }]);
    assert.deepEqual(await idsOf(handle, QUERY), { ids: INSIDE, index: 'SPATIAL(g)' });
    assert.deepEqual(await idsOf(handle, `SELECT * WHERE ST_MBRIntersects(${WINDOW}, g) AND id < 300`),
      { ids: INSIDE.filter((id) => id < 300), index: 'SPATIAL(g)' });
    // A window that is not a constant, or an OR, is not for the index: a scan, same rows.
    assert.deepEqual(await idsOf(handle, `SELECT * WHERE ST_MBRIntersects(g, g) AND id = 7`),
      { ids: [7] });
    await test.store.close();
  });

  it('EXPLAIN names it with its window; dropIndex removes it', async () => {
    const { test, handle } = await seeded();
    await test.store.createIndex('places', { columnNames: ['g'], type: 'SPATIAL', name: 'byPlace' });
    const explain = await handle.query(`EXPLAIN ${QUERY}`);
    assert.ok(explain.kind === 'explain');
    const entries = explain.rows.map((row) => `${row[2]} ${row[3]} ${row[4]}`);
    assert.ok(entries.includes('INDEX RTREE byPlace'), entries.join('\n'));
    assert.ok(entries.includes('INDEX_RANGE STRING MBR(0 0, 10 10)'), entries.join('\n'));
    const box = await handle.query('EXPLAIN SELECT * WHERE ST_MBRIntersects(g, ST_MakeBox(0, 0, 0, 1, 2, 3))');
    assert.ok(box.kind === 'explain');
    assert.ok(box.rows.some((row) => row[4] === 'MBR(0 0 0, 1 2 3)'));
    assert.equal(await test.store.dropIndex('places', { name: 'byPlace' }), 1);
    assert.deepEqual(await idsOf(handle, QUERY), { ids: INSIDE });
    const after = await handle.query(`EXPLAIN ${QUERY}`);
    assert.ok(after.kind === 'explain');
    assert.ok(after.rows.some((row) => row[2] === 'INDEX' && row[4] === 'ROWMAP'));
    await test.store.close();
  });

  it('follows puts, updates and removes', async () => {
    const { test, handle } = await seeded();
    await test.store.createIndex('places', { columnNames: ['g'], type: 'SPATIAL' });
    await handle.put([230, 'POINT(100 100)']);
    await handle.put([0, 'POINT(1 1)']);
    await handle.put([402, null]);
    await handle.remove(231);
    await handle.put([500, 'POINT(10 10)']);
    const expected = [0, ...INSIDE.filter((id) => ![230, 231, 402].includes(id)), 500];
    assert.deepEqual(await idsOf(handle, QUERY), { ids: expected, index: 'SPATIAL(g)' });
    await test.store.close();
  });

  it('is built again from the rows after a restart and a checkpoint', async () => {
    const { test } = await seeded();
    await test.store.createIndex('places', { columnNames: ['g'], type: 'SPATIAL' });
    await test.store.checkpoint();
    await test.reopen();
    const entry = test.store.partitionFor('places').catalog.lookup('places')!;
    assert.equal(entry.indexes.isBuilt([1], 'SPATIAL'), false, 'built lazily after a restart');
    const handle = test.store.session().container('places');
    assert.deepEqual(await idsOf(handle, QUERY), { ids: INSIDE, index: 'SPATIAL(g)' });
    assert.equal(entry.indexes.isBuilt([1], 'SPATIAL'), true);
    await test.store.close();
  });

  it('is for GEOMETRY columns of collections only', async () => {
    const { test } = await seeded();
    await test.store.createContainer({
      name: 'series', type: 'TIME_SERIES', rowKey: true,
      columns: [{ name: 't', type: 'TIMESTAMP' }, { name: 'g', type: 'GEOMETRY' }],
    });
    await assert.rejects(test.store.createIndex('series', { columnNames: ['g'], type: 'SPATIAL' }),
      storageError('INVALID_SCHEMA', /collections only/));
    await assert.rejects(test.store.createIndex('places', { columnNames: ['id'], type: 'SPATIAL' }),
      storageError('INVALID_SCHEMA', /cannot cover INTEGER/));
    await test.store.close();
  });
});
