// The skip scan (execute-skip-scan.ts): MAX of the second row-key column grouped by the first,
// read from the last row of each key prefix, against the plain aggregate over every row (the
// same statement with a WHERE on a later column, which the skip scan does not take). Random
// composite-key tables: hosts whose names are prefixes of one another ('a', 'a\u0001', 'ab', ''),
// several blocks, part checkpointed and part only in memory, an empty table, one prefix. And the
// lastpoint join built on it, whose look-up by the whole row key (execute-join.ts) reads one row
// per host, against a hash join of the same rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const HOSTS = ['', 'a', 'a\u0001', 'a\u0001b', 'ab', 'b', 'zz']; // U+0000 is never stored
const ROW_COUNT_MAX = 1_500; // several blocks
const TIME_STEP_MS = 1_000;

const tableArbitrary = fc.record({
  /** Per host: its row count (0: absent) and its first time step. */
  hosts: fc.array(fc.record({ rowCount: fc.integer({ min: 0, max: ROW_COUNT_MAX / 3 }), start: fc.integer({ min: -50, max: 50 }) },
    { noNullPrototype: true }), { minLength: HOSTS.length, maxLength: HOSTS.length }),
  only: fc.option(fc.constantFrom(...HOSTS), { nil: undefined }),
  checkpointAfter: fc.integer({ min: 0, max: HOSTS.length }),
  keyType: fc.constantFrom('STRING', 'INTEGER', 'LONG'),
}, { noNullPrototype: true });

type Table = typeof tableArbitrary extends fc.Arbitrary<infer T> ? T : never;

const statementArbitrary = fc.record({
  where: fc.constantFrom('', "host = 'a'", "host >= 'a'", "host > 'a' AND host <= 'b'", "host IN ('', 'zz', 'q')",
    "host LIKE 'a%'", "host < 'a'", "host = 'none'"),
  twice: fc.boolean(),
  having: fc.boolean(),
}, { noNullPrototype: true });

type Statement = typeof statementArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The host column's value of HOSTS[h] for a key type. */
function hostValue(table: Table, h: number): string | number | bigint {
  if (table.keyType === 'STRING') return HOSTS[h]!;
  return table.keyType === 'INTEGER' ? h * 3 - 7 : BigInt(h * 3 - 7);
}

/** Where clauses over the integer keys: the same shapes, on numbers. */
function whereText(table: Table, where: string): string {
  if (table.keyType === 'STRING') return where;
  return where.replaceAll("''", '-7').replaceAll("'zz'", '11').replaceAll("'none'", '100').replaceAll("'q'", '4')
    .replaceAll("'a%'", "'-4%'").replaceAll("'a'", '-4').replaceAll("'b'", '8').replace(/host LIKE '-4%'/, 'host * 2 = -8');
}

function statementText(table: Table, s: Statement, reference: boolean): string {
  const where = [whereText(table, s.where), ...(reference ? ['v IS NULL OR v IS NOT NULL'] : [])].filter((w) => w !== '');
  return `SELECT host, MAX(ts)${s.twice ? ', MAX(ts) AS again' : ''} FROM m` +
    (where.length === 0 ? '' : ` WHERE ${where.map((w) => `(${w})`).join(' AND ')}`) +
    ' GROUP BY host' + (s.having ? ' HAVING MAX(ts) > TO_TIMESTAMP_MS(100000)' : '') + ' ORDER BY host';
}

async function load(db: SqlTestDatabase, table: Table): Promise<void> {
  await db.update('DROP TABLE IF EXISTS m');
  await db.update(`CREATE TABLE m (host ${table.keyType}, ts TIMESTAMP, v DOUBLE, PRIMARY KEY (host, ts))`);
  const container = db.test.store.session().container('m');
  for (let h = 0; h < HOSTS.length; h++) {
    const { rowCount, start } = table.hosts[h]!;
    const count = table.only === undefined || table.only === HOSTS[h] ? rowCount : 0;
    const rows = Array.from({ length: count }, (_v, t) => [hostValue(table, h), (start + t) * TIME_STEP_MS + 1e6, t % 3 === 0 ? null : t]);
    if (rows.length > 0) await container.multiPut(rows as never);
    if (h + 1 === table.checkpointAfter) await db.test.store.checkpoint();
  }
}

interface PlanEntry { type: string; detail: { skipScan?: boolean } }

async function skipScanned(db: SqlTestDatabase, text: string): Promise<boolean> {
  const plan = (await db.rows(`EXPLAIN ${text}`)).map((row) => JSON.parse(row[0] as string) as PlanEntry);
  return plan.some((entry) => entry.type === 'GROUP' && entry.detail.skipScan === true);
}

describe('skip scan of MAX over the second key column', () => {
  it('answers as the plain aggregate: prefixes of one another, several blocks, empty table, one prefix', async () => {
    const db = await sqlTestDatabase();
    try {
      await fc.assert(fc.asyncProperty(tableArbitrary, fc.array(statementArbitrary, { minLength: 1, maxLength: 4 }),
        async (table, statements) => {
          await load(db, table);
          for (const statement of statements) {
            const text = statementText(table, statement, false);
            const reference = statementText(table, statement, true);
            assert.ok(await skipScanned(db, text), `${text}: no skip scan`);
            assert.ok(!(await skipScanned(db, reference)), `${reference}: skip scan`);
            assert.deepStrictEqual(await db.rows(text), await db.rows(reference), text);
          }
        }), { numRuns: 30 });
    } finally {
      await db.test.store.close();
    }
  });

  it('joined back to its rows by the whole row key answers as a hash join', async () => {
    const db = await sqlTestDatabase();
    try {
      const join = (where: string) => `SELECT c.host, c.ts, c.v FROM (SELECT host, MAX(ts) AS ts FROM m${where} ` +
        'GROUP BY host) x JOIN m c ON c.host = x.host AND c.ts = x.ts ORDER BY c.host';
      await fc.assert(fc.asyncProperty(tableArbitrary, async (table) => {
        await load(db, table);
        const text = join('');
        const reference = join(' WHERE v IS NULL OR v IS NOT NULL');
        const plan = async (t: string) => (await db.rows(`EXPLAIN ${t}`)).map((row) => JSON.parse(row[0] as string) as
          { type: string; detail: { method?: string; lookup?: { wholeKey?: boolean } } }).find((entry) => entry.type === 'JOIN')!;
        // A look-up pays from 8 times fewer left rows than the table's (plan-join.ts).
        const rowCount = table.hosts.reduce((sum, h, i) => sum + (table.only === undefined || table.only === HOSTS[i] ? h.rowCount : 0), 0);
        if (rowCount > 8) assert.equal((await plan(text)).detail.lookup?.wholeKey, true, text);
        assert.equal((await plan(reference)).detail.method, 'hash', reference);
        assert.deepStrictEqual(await db.rows(text), await db.rows(reference), text);
      }), { numRuns: 20 });
    } finally {
      await db.test.store.close();
    }
  });

  it('reads one row per prefix (EXPLAIN ANALYZE) and serves the lastpoint join', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE cpu (hostname STRING, ts TIMESTAMP, usage_user DOUBLE, PRIMARY KEY (hostname, ts))');
      const container = db.test.store.session().container('cpu');
      await container.multiPut(Array.from({ length: 3000 }, (_v, i) => [`host_${i % 3}`, i * 1000, i]) as never);
      const text = 'SELECT hostname, MAX(ts) FROM cpu GROUP BY hostname';
      const plan = (await db.rows(`EXPLAIN ANALYZE ${text}`)).map((row) => JSON.parse(row[0] as string) as
        { type: string; detail: Record<string, unknown>; profile: { rows: number } });
      assert.equal(plan.find((entry) => entry.type === 'GROUP')!.detail['skipScan'], true);
      assert.equal(plan.find((entry) => entry.type === 'SCAN')!.profile.rows, 3);
      const lastpoint = await db.rows('SELECT c.* FROM cpu c JOIN (SELECT hostname, MAX(ts) AS ts FROM cpu ' +
        'GROUP BY hostname) m ON c.hostname = m.hostname AND c.ts = m.ts ORDER BY c.hostname');
      assert.deepStrictEqual(lastpoint.map((row) => [row[0], row[2]]), [['host_0', 2997], ['host_1', 2998], ['host_2', 2999]]);
    } finally {
      await db.test.store.close();
    }
  });

  it('is not used for a WHERE on the second key column, another aggregate, or another key', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE m (host STRING, ts TIMESTAMP, v DOUBLE, PRIMARY KEY (host, ts))');
      for (const text of [
        'SELECT host, MAX(ts) FROM m WHERE ts < TO_TIMESTAMP_MS(5000) GROUP BY host',
        'SELECT host, MAX(ts), COUNT(*) FROM m GROUP BY host',
        'SELECT host, MIN(ts) FROM m GROUP BY host',
        'SELECT MAX(ts) FROM m',
        'SELECT host, MAX(v) FROM m GROUP BY host',
      ]) assert.ok(!(await skipScanned(db, text)), text);
    } finally {
      await db.test.store.close();
    }
  });
});
