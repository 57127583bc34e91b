// A partitioned table through the NoSQL interface (session-partitioned.ts): rows put through a
// container handle land in the data partition SQL reads them from, get/remove/count find them,
// a manual transaction commits or aborts on every data partition it wrote, and TQL filters with
// WHERE only (§3.8).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partitionTestDatabase, rejects } from './partition-test-helpers.ts';

describe('a partitioned table through the NoSQL interface', () => {
  it('puts rows in the data partition of their key, as SQL sees them, and reads them back', async () => {
    const db = await partitionTestDatabase();
    await db.update('CREATE TABLE n (id INTEGER PRIMARY KEY, v STRING) PARTITION BY RANGE (id) EVERY (10)');
    const handle = db.test.store.session().container('n');
    await handle.multiPut(Array.from({ length: 35 }, (_v, i) => [i, `v${i}`]));
    assert.deepStrictEqual(await db.rows('SELECT PARTITION_BOUNDARY_VALUE FROM "#table_partitions"'),
      [['0'], ['10'], ['20'], ['30']]);
    assert.deepStrictEqual((await db.rows('SELECT id FROM n WHERE id >= 10 AND id < 20')).flat(),
      Array.from({ length: 10 }, (_v, i) => 10 + i));
    assert.deepStrictEqual(await handle.get(23), [23, 'v23']);
    assert.equal(await handle.remove(23), true);
    assert.equal(await handle.get(23), undefined);
    assert.equal(await handle.count(), 34);
    const result = await handle.query('SELECT * WHERE id >= 28 LIMIT 4');
    assert.ok(result.kind === 'rows');
    assert.deepStrictEqual(result.rows.map((row) => row[0]), [28, 29, 30, 31]);
    const count = await handle.query('SELECT COUNT(*) WHERE id < 25');
    assert.ok(count.kind === 'aggregate' && count.value === 24n);
    await rejects(handle.query('SELECT MAX(id)'), 'NOT_SUPPORTED', /WHERE only/);
    await rejects(handle.query('SELECT * ORDER BY id DESC'), 'NOT_SUPPORTED', /ORDER BY/);
    // A dropped interval refuses a NoSQL put as it refuses SQL (GridDB's 280025).
    await db.update('ALTER TABLE n DROP PARTITION FOR (15)');
    await rejects(handle.put([12, 'again']), 'SQL_TABLE_PARTITION_ALREADY_REMOVED', /already removed/);
    assert.equal(await handle.get(12), undefined);
    await handle.put([40, 'v40']);
    await db.test.store.close();
  });

  it('commits, or aborts, a manual transaction on every data partition it wrote', async () => {
    const db = await partitionTestDatabase();
    await db.update('CREATE TABLE m (id INTEGER PRIMARY KEY, v STRING) PARTITION BY HASH (id) PARTITIONS 4');
    const handle = db.test.store.session().container('m');
    await handle.setAutoCommit(false);
    await handle.multiPut(Array.from({ length: 20 }, (_v, i) => [i, 'a']));
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM m'), [[0n]], 'not committed yet');
    await handle.abort();
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM m'), [[0n]]);
    await handle.multiPut(Array.from({ length: 20 }, (_v, i) => [i, 'b']));
    await handle.commit();
    assert.deepStrictEqual(await db.rows("SELECT COUNT(*) FROM m WHERE v = 'b'"), [[20n]]);
    await db.test.store.close();
  });
});
