// The scan push-down of lib/sql/plan/plan-scan.ts on a table with PRIMARY KEY (hostname, ts):
// one key range per IN value, an ORDER BY on the key given by the scan's direction (no sort), and
// UPDATE / DELETE reading only the key ranges their WHERE allows. Each against what the rows
// say (a JS model) or against the same statement with the push-down defeated (`(…) OR FALSE`).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SqlScanRequest } from '../../../../lib/sql/exec/table-source.ts';
import type { SqlDatabase } from '../../../../lib/sql/sql-database.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

interface Entry { type: string; detail: Record<string, unknown>; profile?: { rows: number } }

const HOSTS = ['h0', 'h1', 'h10', 'h2'];
/** Rows per host: more than one SQL page (SQL_BATCH_ROW_COUNT) for the descending scans. */
const ROWS_PER_HOST = 600;

interface Model { host: string; t: number; usage: number }

function model(): Model[] {
  return HOSTS.flatMap((host, h) => Array.from({ length: ROWS_PER_HOST }, (_v, t) => ({ host, t, usage: h * 1000 + t })));
}

async function cpu(tables: readonly string[] = ['cpu']): Promise<SqlTestDatabase> {
  const db = await sqlTestDatabase();
  for (const table of tables) {
    await db.update(`CREATE TABLE ${table} (hostname STRING, ts TIMESTAMP, usage LONG, PRIMARY KEY (hostname, ts))`);
    const values = model().map((r) => `('${r.host}', TO_TIMESTAMP_MS(${r.t * 1000}), ${r.usage})`);
    await db.update(`INSERT INTO ${table} VALUES ${values.join(', ')}`);
  }
  return db;
}

async function explain(db: SqlTestDatabase, text: string): Promise<Entry[]> {
  return (await db.rows(`EXPLAIN ANALYZE ${text}`)).map((row) => JSON.parse(row[0] as string) as Entry);
}

const OPERATORS = ['<', '<=', '>', '>='] as const;
const holds = (x: number, op: typeof OPERATORS[number], y: number) =>
  op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;

describe('SQL scan push-down on a composite key', () => {
  it('reads one key range per IN value, in key order', async () => {
    const db = await cpu();
    try {
      const query = "SELECT usage FROM cpu WHERE hostname IN ('h2', 'h0', 'zz', 'h0') AND ts >= TO_TIMESTAMP_MS(10000) " +
        'AND ts < TO_TIMESTAMP_MS(13000)';
      const scan = (await explain(db, query)).find((e) => e.type === 'SCAN')!;
      // 'zz' matches no row, but only reading can tell; the duplicate 'h0' is one range.
      assert.equal(scan.detail.keyRangeCount, 3);
      assert.deepEqual(scan.detail.keyRange, { from: ['h0', 10000], to: ['zz', 12999], empty: false });
      assert.equal(scan.profile?.rows, 6);
      assert.deepEqual((await db.rows(query)).map((r) => r[0]), [10n, 11n, 12n, 3010n, 3011n, 3012n]);
      const none = (await explain(db, "SELECT usage FROM cpu WHERE hostname IN ('zz') AND hostname = 'h1'"))
        .find((e) => e.type === 'SCAN')!;
      assert.equal(none.detail.keyRange && (none.detail.keyRange as { empty: boolean }).empty, true);
    } finally {
      await db.test.store.close();
    }
  });

  it('gives the rows a JS filter gives, for random IN lists and time bounds', async () => {
    const db = await cpu();
    try {
      await fc.assert(fc.asyncProperty(
        fc.option(fc.array(fc.constantFrom(...HOSTS, 'h', 'i'), { minLength: 1, maxLength: 4 })),
        fc.array(fc.tuple(fc.constantFrom(...OPERATORS), fc.integer({ min: 0, max: ROWS_PER_HOST + 2 })), { maxLength: 2 }),
        async (hosts, times) => {
          const conditions = [...(hosts === null ? [] : [`hostname IN (${hosts.map((h) => `'${h}'`).join(', ')})`]),
            ...times.map(([op, t]) => `ts ${op} TO_TIMESTAMP_MS(${t * 1000})`)];
          const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
          const got = (await db.rows(`SELECT usage FROM cpu${where}`)).map((r) => Number(r[0]));
          const expected = model().filter((r) => (hosts === null || hosts.includes(r.host)) &&
            times.every(([op, t]) => holds(r.t, op, t))).map((r) => r.usage);
          assert.deepEqual(got, expected, where);
        }), { numRuns: 60 });
    } finally {
      await db.test.store.close();
    }
  });

  it('answers ORDER BY ts [DESC] LIMIT n of one host from the scan, without a sort', async () => {
    const db = await cpu();
    try {
      const query = "SELECT ts, usage FROM cpu WHERE hostname = 'h1' ORDER BY ts DESC LIMIT 1";
      const entries = await explain(db, query);
      assert.equal(entries.some((e) => e.type === 'SORT'), false);
      const scan = entries.find((e) => e.type === 'SCAN')!;
      assert.equal(scan.detail.descending, true);
      assert.ok(scan.profile!.rows < ROWS_PER_HOST, `${scan.profile!.rows} rows read`);
      assert.deepEqual(await db.rows(query), [[(ROWS_PER_HOST - 1) * 1000, 1000n + BigInt(ROWS_PER_HOST - 1)]]);
      // Not the key order: the sort stays.
      assert.equal((await explain(db, "SELECT ts FROM cpu WHERE hostname = 'h1' ORDER BY usage DESC LIMIT 1"))
        .some((e) => e.type === 'SORT'), true);
      assert.equal((await explain(db, "SELECT ts FROM cpu WHERE hostname IN ('h1', 'h2') ORDER BY ts DESC LIMIT 1"))
        .some((e) => e.type === 'SORT'), true);
    } finally {
      await db.test.store.close();
    }
  });

  it('gives the rows a JS sort gives, for random hosts, bounds, directions, filters and limits', async () => {
    const db = await cpu();
    try {
      await fc.assert(fc.asyncProperty(
        fc.constantFrom(...HOSTS, 'h'),
        fc.array(fc.tuple(fc.constantFrom(...OPERATORS), fc.integer({ min: 0, max: ROWS_PER_HOST + 2 })), { maxLength: 2 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 9 })),
        fc.option(fc.integer({ min: 0, max: ROWS_PER_HOST + 5 })),
        fc.integer({ min: 0, max: 3 }),
        async (host, times, descending, modulo, limit, offset) => {
          const conditions = [`hostname = '${host}'`, ...times.map(([op, t]) => `ts ${op} TO_TIMESTAMP_MS(${t * 1000})`),
            ...(modulo === null ? [] : [`usage % 10 != ${modulo}`])];
          const tail = `${limit === null ? '' : ` LIMIT ${limit}`}${limit === null || offset === 0 ? '' : ` OFFSET ${offset}`}`;
          const text = `SELECT usage FROM cpu WHERE ${conditions.join(' AND ')} ORDER BY hostname, ts` +
            `${descending ? ' DESC' : ''}${tail}`;
          const got = (await db.rows(text)).map((r) => Number(r[0]));
          let expected = model().filter((r) => r.host === host && times.every(([op, t]) => holds(r.t, op, t)) &&
            (modulo === null || r.usage % 10 !== modulo)).map((r) => r.usage);
          if (descending) expected.reverse();
          if (limit !== null) expected = expected.slice(offset, offset + limit);
          assert.deepEqual(got, expected, text);
        }), { numRuns: 60 });
    } finally {
      await db.test.store.close();
    }
  });
});

describe('SQL UPDATE and DELETE push-down', () => {
  /** The database with every scan request recorded. */
  function recording(db: SqlTestDatabase): { database: SqlDatabase; requests: SqlScanRequest[] } {
    const requests: SqlScanRequest[] = [];
    const database: SqlDatabase = {
      ...db.database,
      table(name) {
        const table = db.database.table(name);
        return { schema: table.schema, scan: (request) => { requests.push(request); return table.scan(request); } };
      },
    };
    return { database, requests };
  }

  it('reads only the key ranges of WHERE, as SELECT does', async () => {
    const db = await cpu();
    try {
      const { database, requests } = recording(db);
      const updated = await db.run("UPDATE cpu SET usage = usage + 1 WHERE hostname IN ('h1', 'h2') AND " +
        'ts < TO_TIMESTAMP_MS(3000)', [], { database });
      assert.equal(updated.kind === 'update' && updated.updateCount, 6);
      assert.deepEqual(requests.map((r) => [r.from, r.to]), [[['h1'], ['h1', 2999]], [['h2'], ['h2', 2999]]]);
      requests.length = 0;
      const deleted = await db.run("DELETE FROM cpu WHERE hostname = 'h0' AND ts >= TO_TIMESTAMP_MS(590000)", [],
        { database });
      assert.equal(deleted.kind === 'update' && deleted.updateCount, 10);
      assert.deepEqual(requests.map((r) => [r.from, r.to]), [[['h0', 590000], ['h0']]]);
    } finally {
      await db.test.store.close();
    }
  });

  it('changes the rows the scan path changes, for random WHERE clauses', async () => {
    const db = await cpu(['a', 'b']);
    try {
      await fc.assert(fc.asyncProperty(
        fc.option(fc.array(fc.constantFrom(...HOSTS, 'h'), { minLength: 1, maxLength: 3 })),
        fc.array(fc.tuple(fc.constantFrom(...OPERATORS), fc.integer({ min: 0, max: ROWS_PER_HOST })), { maxLength: 2 }),
        fc.option(fc.integer({ min: 0, max: 4 })),
        fc.boolean(),
        async (hosts, times, modulo, remove) => {
          const conditions = [...(hosts === null ? [] : [`hostname IN (${hosts.map((h) => `'${h}'`).join(', ')})`]),
            ...times.map(([op, t]) => `ts ${op} TO_TIMESTAMP_MS(${t * 1000})`),
            ...(modulo === null ? [] : [`usage % 5 = ${modulo}`])];
          const where = conditions.length === 0 ? 'TRUE' : conditions.join(' AND ');
          const change = (table: string, condition: string) => remove ? `DELETE FROM ${table} WHERE ${condition}`
            : `UPDATE ${table} SET usage = usage * 2 + 1 WHERE ${condition}`;
          // `(…) OR FALSE` hides every bound from the planner: b is changed through a full scan.
          const pushed = await db.update(change('a', where));
          const scanned = await db.update(change('b', `(${where}) OR FALSE`));
          assert.equal(pushed, scanned, where);
          assert.deepEqual(await db.rows('SELECT * FROM a'), await db.rows('SELECT * FROM b'), where);
        }), { numRuns: 40 });
    } finally {
      await db.test.store.close();
    }
  });
});
