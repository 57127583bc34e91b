// What the SQL scan pushes down beyond a single-column key range: conditions on TREE-indexed
// columns read through the index (EXPLAIN names it; results equal the same query under the
// NoIndexScan hint, on random tables and conditions), and a range on the leading columns of a
// composite PRIMARY KEY read as a key range (EXPLAIN ANALYZE counts only the rows in it).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

interface Entry { type: string; detail: Record<string, unknown>; profile?: { rows: number } }

async function scanOf(db: SqlTestDatabase, text: string): Promise<Entry> {
  const entries = (await db.rows(text)).map((row) => JSON.parse(row[0] as string) as Entry);
  return entries.find((entry) => entry.type === 'SCAN')!;
}

describe('SQL scans through TREE indexes', () => {
  it('EXPLAIN shows the index an equality, a range, BETWEEN or IN reads through; others scan', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, v LONG, s STRING, d DOUBLE)');
    await db.update('CREATE INDEX iv ON t (v)');
    await db.update('CREATE INDEX isd ON t (s, d)');
    await db.update("INSERT INTO t VALUES (1, 10, 'a', 1.5), (2, 20, 'b', NULL), (3, NULL, 'a', 2.5), (4, 30, 'a', -1.0)");
    const index = async (where: string) => (await scanOf(db, `EXPLAIN SELECT id FROM t WHERE ${where}`)).detail.index;
    assert.deepEqual(await index('v = 20'), { name: 'iv', low: ['20'], high: ['20'], highInclusive: true });
    assert.deepEqual(await index('v > 15 AND v <= 30.5'), { name: 'iv', low: ['15'], high: ['30'], highInclusive: true });
    assert.deepEqual(await index('v BETWEEN 11 AND 29'), { name: 'iv', low: ['11'], high: ['29'], highInclusive: true });
    assert.deepEqual(await index('v >= 15'), { name: 'iv', low: ['15'], high: [null], highInclusive: false });
    assert.deepEqual(await index("s IN ('b', 'a') AND d > 0"), { name: 'isd', low: ['a'], high: ['b'], highInclusive: true });
    assert.deepEqual(await index("s = 'a' AND d > 0"), { name: 'isd', low: ['a', 0], high: ['a', null], highInclusive: false });
    assert.equal(await index('v != 20'), undefined);
    assert.equal(await index('v = 20 OR v = 30'), undefined);
    assert.equal(await index('d > 0'), undefined, 'not the leading column of (s, d)');
    assert.equal(await index("s > 'a'"), undefined, 'strings take equality and IN only');
    assert.equal((await scanOf(db, 'EXPLAIN SELECT /*+ NoIndexScan(t) */ id FROM t WHERE v = 20')).detail.index, undefined);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE v >= 15'), [[2], [4]]);
    assert.deepEqual(await db.rows("SELECT id, d FROM t WHERE s = 'a' AND d > 0"), [[1, 1.5], [3, 2.5]]);
    const analyzed = await scanOf(db, 'EXPLAIN ANALYZE SELECT id FROM t WHERE v = 20');
    assert.equal(analyzed.profile?.rows, 1, 'the scan read only the row the index named');
  });

  it('gives the rows the same query gives under NoIndexScan (random tables and conditions)', async () => {
    const value = fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 5 }));
    const row = fc.tuple(value, value, fc.oneof(fc.constant(null), fc.double({ min: -5, max: 5, noNaN: true })),
      fc.oneof(fc.constant(null), fc.constantFrom('', 'a', 'b', 'B', 'ab')));
    const literal = fc.oneof(fc.integer({ min: -6, max: 6 }).map(String),
      fc.double({ min: -6, max: 6, noNaN: true }).map((x) => x.toFixed(2)));
    const condition = fc.oneof(
      fc.tuple(fc.constantFrom('a', 'b', 'd', 'i'), fc.constantFrom('=', '<', '<=', '>', '>=', '!='), literal)
        .map(([c, op, x]) => (c === 'i' ? `${x} ${op} b` : `${c} ${op} ${x}`)),
      fc.tuple(fc.constantFrom('a', 'b', 'd'), literal, literal).map(([c, x, y]) => `${c} BETWEEN ${x} AND ${y}`),
      fc.tuple(fc.constantFrom('a', 'b'), fc.array(literal, { minLength: 1, maxLength: 3 }))
        .map(([c, xs]) => `${c} IN (${xs.join(', ')})`),
      fc.constantFrom("s = 'a'", "s = ''", "s IN ('b', 'ab')", 's IS NULL', 'a IS NOT NULL', 'a IN (1, NULL)'),
    );
    const db = await sqlTestDatabase();
    let tableNumber = 0;
    let indexedCount = 0;
    await fc.assert(fc.asyncProperty(fc.array(row, { maxLength: 40 }), fc.array(condition, { minLength: 1, maxLength: 3 }),
      async (rows, conditions) => {
        const table = `r${tableNumber++}`;
        await db.update(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, a LONG, b INTEGER, d DOUBLE, s STRING)`);
        await db.update(`CREATE INDEX ${table}_a ON ${table} (a)`);
        await db.update(`CREATE INDEX ${table}_bd ON ${table} (b, d)`);
        await db.update(`CREATE INDEX ${table}_s ON ${table} (s)`);
        await db.update(`CREATE INDEX ${table}_d ON ${table} (d)`);
        if (rows.length > 0) {
          const values = rows.map(([a, b, d, s], i) =>
            `(${i}, ${a ?? 'NULL'}, ${b ?? 'NULL'}, ${d === null ? 'NULL' : String(d)}, ${s === null ? 'NULL' : `'${s}'`})`);
          await db.update(`INSERT INTO ${table} VALUES ${values.join(', ')}`);
        }
        const where = conditions.join(' AND ');
        const scan = await scanOf(db, `EXPLAIN SELECT * FROM ${table} WHERE ${where}`);
        if (scan.detail.index !== undefined) indexedCount++;
        const indexed = await db.rows(`SELECT * FROM ${table} WHERE ${where}`);
        const scanned = await db.rows(`SELECT /*+ NoIndexScan(${table}) */ * FROM ${table} WHERE ${where}`);
        assert.deepEqual(indexed, scanned, where);
        await db.update(`DROP TABLE ${table}`);
      }), { numRuns: 150 });
    assert.ok(indexedCount > 50, `${indexedCount} of 150 queries used an index`);
  });
});

describe('SQL key ranges on a composite PRIMARY KEY', () => {
  const HOSTS = ['h0', 'h1', 'h10', 'h2'];

  async function cpu(): Promise<SqlTestDatabase> {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE cpu (hostname STRING, ts TIMESTAMP, usage LONG, PRIMARY KEY (hostname, ts))');
    await db.update('CREATE TABLE cpu2 (ts TIMESTAMP, hostname STRING, usage LONG, PRIMARY KEY (ts, hostname))');
    const values = HOSTS.flatMap((host, h) => Array.from({ length: 50 }, (_v, t) =>
      `('${host}', TO_TIMESTAMP_MS(${t * 1000}), ${h * 100 + t})`));
    await db.update(`INSERT INTO cpu VALUES ${values.join(', ')}`);
    await db.update(`INSERT INTO cpu2 SELECT ts, hostname, usage FROM cpu`);
    return db;
  }

  it('reads only the key range of hostname = … AND ts >= … AND ts < …', async () => {
    const db = await cpu();
    const query = "SELECT usage FROM cpu WHERE hostname = 'h1' AND ts >= TO_TIMESTAMP_MS(10000) AND ts < TO_TIMESTAMP_MS(20000)";
    const scan = await scanOf(db, `EXPLAIN ANALYZE ${query}`);
    assert.deepEqual(scan.detail.keyRange, { from: ['h1', 10000], to: ['h1', 19999], empty: false });
    assert.equal(scan.profile?.rows, 10);
    assert.deepEqual((await db.rows(query)).map((r) => r[0]), Array.from({ length: 10 }, (_v, i) => BigInt(110 + i)));
    const prefix = await scanOf(db, "EXPLAIN ANALYZE SELECT usage FROM cpu WHERE hostname = 'h1'");
    assert.deepEqual(prefix.detail.keyRange, { from: ['h1'], to: ['h1'], empty: false });
    assert.equal(prefix.profile?.rows, 50);
    const trailingString = await scanOf(db, 'EXPLAIN ANALYZE SELECT usage FROM cpu2 WHERE ts <= TO_TIMESTAMP_MS(1000)');
    assert.deepEqual(trailingString.detail.keyRange, { to: [1000], empty: false });
    assert.equal(trailingString.profile?.rows, 8);
  });

  it('gives the rows a JS filter gives, for random host and time bounds', async () => {
    const db = await cpu();
    const operators = ['=', '<', '<=', '>', '>='] as const;
    const holds = (x: string | number, op: typeof operators[number], y: string | number) =>
      op === '=' ? x === y : op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
    await fc.assert(fc.asyncProperty(
      fc.option(fc.constantFrom(...HOSTS, 'h', 'h11', 'i')),
      fc.array(fc.tuple(fc.constantFrom(...operators), fc.integer({ min: 0, max: 52 })), { maxLength: 2 }),
      fc.constantFrom('cpu', 'cpu2'),
      async (host, times, table) => {
        const conditions = [...(host === null ? [] : [`hostname = '${host}'`]),
          ...times.map(([op, t]) => `ts ${op} TO_TIMESTAMP_MS(${t * 1000})`)];
        const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
        const got = (await db.rows(`SELECT usage FROM ${table}${where}`)).map((r) => Number(r[0])).sort((a, b) => a - b);
        const expected = HOSTS.flatMap((h, hi) => Array.from({ length: 50 }, (_v, t) => ({ h, t, usage: hi * 100 + t })))
          .filter((r) => (host === null || r.h === host) && times.every(([op, t]) => holds(r.t, op, t)))
          .map((r) => r.usage).sort((a, b) => a - b);
        assert.deepEqual(got, expected, where);
      }), { numRuns: 100 });
  });
});
