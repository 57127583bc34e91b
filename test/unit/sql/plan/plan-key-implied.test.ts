// The WHERE conjuncts a scan's key ranges enforce leave the filter (plan-key-implied.ts), and an
// aggregate's scan then reads only the columns the aggregate reads. Against the executor's general
// path: the same statement with the push-down defeated (`(…) OR FALSE` hides every bound from the
// planner, so the whole table is read and the filter tests every row). Random tables on
// PRIMARY KEY (k, t) with a STRING or INTEGER k and an INTEGER, LONG or TIMESTAMP t hold negative
// keys and NULL or NaN values; random conjuncts compare key columns with NULL, fractions,
// negatives, empty strings and out-of-range numbers, either side, or list them in IN.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SqlTypedValue } from '../../../../lib/sql/plan/bind-expression.ts';
import { sqlTestDatabase, type SqlTestDatabase } from '../exec/sql-exec-helpers.ts';

interface Entry { type: string; detail: Record<string, unknown> }

const OPERATORS = ['=', '!=', '<', '<=', '>', '>='] as const;
const STRINGS = ['', 'a', 'b', 'bb', 'c', '\u00e9', '\ud83d\ude00', '\uffff'];
const KEY_TYPES = ['STRING', 'INTEGER'] as const;
const TIME_TYPES = ['INTEGER', 'LONG', 'TIMESTAMP'] as const;
/** Times -6 … 5 (k: each of STRINGS, or -3 … 4). */
const TIME_COUNT = 12;

const tableArbitrary = fc.record({
  keyType: fc.constantFrom(...KEY_TYPES),
  timeType: fc.constantFrom(...TIME_TYPES),
  /** Per key (k, t) in KEY_COUNT × TIME_COUNT: no row (undefined), or its v. */
  cells: fc.array(fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(Number.NaN),
    fc.integer({ min: -50, max: 50 })), { minLength: STRINGS.length * TIME_COUNT, maxLength: STRINGS.length * TIME_COUNT }),
}, { noNullPrototype: true });

type Table = typeof tableArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** A constant for column k (as STRING or INTEGER) or t: a literal text, or '?' with its parameter. */
const keyConstant = fc.oneof(
  { weight: 1, arbitrary: fc.constant('NULL') },
  { weight: 8, arbitrary: fc.integer({ min: -8, max: 8 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('1.5', '-2.5', '0.0', '9007199254740993', '-1e300', '1e300') },
  { weight: 1, arbitrary: fc.constantFrom(...STRINGS).map((s) => `'${s}'`) },
);

const conjunctArbitrary = fc.oneof(
  fc.record({ kind: fc.constant('compare' as const), column: fc.constantFrom('k', 't'),
    operator: fc.constantFrom(...OPERATORS), value: keyConstant, flipped: fc.boolean() }, { noNullPrototype: true }),
  fc.record({ kind: fc.constant('in' as const), column: fc.constantFrom('k', 't'),
    values: fc.array(keyConstant, { minLength: 1, maxLength: 4 }) }, { noNullPrototype: true }),
  fc.record({ kind: fc.constant('value' as const), above: fc.integer({ min: -60, max: 60 }) }, { noNullPrototype: true }),
  fc.record({ kind: fc.constant('nan' as const), column: fc.constantFrom('k', 't'), operator: fc.constantFrom(...OPERATORS) },
    { noNullPrototype: true }),
);

type Conjunct = typeof conjunctArbitrary extends fc.Arbitrary<infer T> ? T : never;

const bound = (min: number, max: number) => fc.oneof({ weight: 6, arbitrary: fc.integer({ min, max }).map(String) },
  { weight: 1, arbitrary: keyConstant });

/** Mostly the shape of a key range (k fixed, t between two bounds) with more conjuncts inside it. */
const whereArbitrary = fc.tuple(
  fc.option(fc.constantFrom(...OPERATORS.slice(0, 1), ...['in' as const])),
  fc.option(fc.constantFrom('>', '>=')),
  // The upper bound written constant first: `c > t`.
  fc.option(fc.constantFrom('>', '>=')),
  // A low bound below a high one, mostly, and a condition between them.
  fc.tuple(keyConstant, bound(-7, 1), bound(1, 8)),
  fc.option(fc.tuple(fc.constantFrom(...OPERATORS), fc.integer({ min: -6, max: 6 }))),
  fc.array(conjunctArbitrary, { maxLength: 3 }),
).map(([k, low, high, [a, b, c], inside, more]): Conjunct[] => [
  ...(k === null ? [] : k === 'in' ? [{ kind: 'in' as const, column: 'k' as const, values: [a!, c!] }]
    : [{ kind: 'compare' as const, column: 'k' as const, operator: k, value: a!, flipped: false }]),
  ...(low === null ? [] : [{ kind: 'compare' as const, column: 't' as const, operator: low, value: b!, flipped: false }]),
  ...(high === null ? [] : [{ kind: 'compare' as const, column: 't' as const, operator: high, value: c!, flipped: true }]),
  ...(inside === null ? [] : [{ kind: 'compare' as const, column: 't' as const, operator: inside[0],
    value: String(inside[1]), flipped: false }]),
  ...more,
]);

const SELECTS = [
  'SELECT k, t, v FROM m',
  'SELECT k, COUNT(*), SUM(v), MAX(t) FROM m',
  'SELECT COUNT(*) FROM m',
  'SELECT MIN(v), COUNT(v) FROM m',
] as const;

function columnText(table: Table, column: 'k' | 't'): string {
  return column === 't' && table.timeType === 'TIMESTAMP' ? 'TO_EPOCH_MS(t)' : column;
}

/** The conjunct as SQL (its NaN, if any, as a DOUBLE parameter), and whether it fits the table's types. */
function conjunctText(table: Table, c: Conjunct, parameters: SqlTypedValue[]): string | undefined {
  const constant = (column: 'k' | 't', value: string): string | undefined => {
    const stringColumn = column === 'k' && table.keyType === 'STRING';
    if (value === 'NULL') return value;
    // A small integer for a STRING column names one of STRINGS (most constants then fit).
    if (stringColumn && /^-?\d$/.test(value)) return `'${STRINGS[Math.abs(Number(value)) % STRINGS.length]!}'`;
    if (stringColumn !== value.startsWith("'")) return undefined;
    if (column === 't' && table.timeType === 'TIMESTAMP') {
      // Not before 1970: TO_TIMESTAMP_MS fails there, and a scan whose key ranges are empty
      // never evaluates the filter at all, so one side would fail and the other not.
      return /^\d+$/.test(value) && Number(value) < 1e12 ? `TO_TIMESTAMP_MS(${value})` : undefined;
    }
    return value;
  };
  switch (c.kind) {
    case 'compare': {
      const value = constant(c.column, c.value);
      if (value === undefined) return undefined;
      return c.flipped ? `${value} ${c.operator} ${c.column}` : `${c.column} ${c.operator} ${value}`;
    }
    case 'in': {
      const values = c.values.map((v) => constant(c.column, v));
      if (values.some((v) => v === undefined)) return undefined;
      return `${c.column} IN (${values.join(', ')})`;
    }
    case 'value': return `v > ${c.above}`;
    case 'nan': {
      if ((c.column === 'k' && table.keyType === 'STRING') || (c.column === 't' && table.timeType === 'TIMESTAMP')) {
        return undefined;
      }
      parameters.push({ type: 'DOUBLE', value: Number.NaN });
      return `${c.column} ${c.operator} ?`;
    }
  }
}

async function load(db: SqlTestDatabase, table: Table): Promise<void> {
  await db.update('DROP TABLE IF EXISTS m');
  await db.update(`CREATE TABLE m (k ${table.keyType}, t ${table.timeType}, v DOUBLE, PRIMARY KEY (k, t))`);
  const rows: unknown[][] = [];
  for (let cell = 0; cell < table.cells.length; cell++) {
    const v = table.cells[cell];
    if (v === undefined) continue;
    const s = cell % STRINGS.length;
    const t = Math.floor(cell / STRINGS.length) - TIME_COUNT / 2;
    const k = table.keyType === 'STRING' ? STRINGS[s]! : s - 3;
    // A TIMESTAMP is not negative: its rows start at 0 (the constants still reach below).
    rows.push([k, table.timeType === 'LONG' ? BigInt(t) : table.timeType === 'TIMESTAMP' ? t + 6 : t, v]);
  }
  if (rows.length > 0) await db.test.store.session().container('m').multiPut(rows as never);
}

async function explain(db: SqlTestDatabase, text: string, parameters: SqlTypedValue[] = []): Promise<Entry[]> {
  return (await db.rows(`EXPLAIN ${text}`, parameters)).map((row) => JSON.parse(row[0] as string) as Entry);
}

const sortedText = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row, (_k, v: unknown) =>
  (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v))).sort();

describe('WHERE conjuncts the key ranges enforce', () => {
  it('leave the filter, and the aggregate reads only its own columns', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE cpu (hostname STRING, ts TIMESTAMP, u DOUBLE, w DOUBLE, PRIMARY KEY (hostname, ts))');
      const grouped = await explain(db, "SELECT TIMESTAMP_TRUNC(HOUR, ts) AS h, MAX(u) FROM cpu WHERE hostname IN ('a', 'b') " +
        'AND ts >= TO_TIMESTAMP_MS(1000) AND ts < TO_TIMESTAMP_MS(9000) GROUP BY TIMESTAMP_TRUNC(HOUR, ts)');
      assert.deepEqual(grouped.map((e) => e.type), ['SCAN', 'GROUP', 'SELECT', 'RESULT']);
      assert.deepEqual(grouped[0]!.detail['columns'], ['ts', 'u']);
      // Only `w > 1` stays; the scan still reads hostname for the select list.
      const rows = await explain(db, "SELECT * FROM cpu WHERE w > 1 AND ts < TO_TIMESTAMP_MS(9000) AND hostname = 'a'");
      const filter = rows.find((e) => e.type === 'SELECT' && e.detail['operation'] === 'FILTER');
      assert.ok(filter !== undefined);
      assert.deepEqual(rows[0]!.detail['columns'], ['hostname', 'ts', 'u', 'w']);
      // Not enforced by the ranges: `!=`, a NULL bound, a condition on a range of STRING keys.
      for (const where of ["hostname = 'a' AND ts != TO_TIMESTAMP_MS(5)", "hostname = 'a' AND ts < NULL",
        "hostname >= 'a' AND hostname < 'b'"]) {
        const plan = await explain(db, `SELECT COUNT(*) FROM cpu WHERE ${where}`);
        assert.ok(plan.some((e) => e.detail['operation'] === 'FILTER'), where);
      }
    } finally {
      await db.test.store.close();
    }
  });

  it('give the rows the filter gives, for random tables and WHERE clauses', async () => {
    const db = await sqlTestDatabase();
    try {
      await fc.assert(fc.asyncProperty(tableArbitrary,
        fc.array(fc.tuple(fc.constantFrom(...SELECTS), whereArbitrary), { minLength: 1, maxLength: 6 }),
        async (table, statements) => {
          await load(db, table);
          for (const [select, conjuncts] of statements) {
            const parameters: SqlTypedValue[] = [];
            const texts = conjuncts.map((c) => conjunctText(table, c, parameters)).filter((t) => t !== undefined);
            if (texts.length === 0) continue;
            const where = texts.join(' AND ');
            const grouped = select.includes('COUNT(*), SUM') ? ' GROUP BY k' : '';
            const text = `${select.replace('MAX(t)', `MAX(${columnText(table, 't')})`)}`;
            // A statement that fails, fails both ways with the same code.
            const answer = (statement: string) => db.rows(statement, parameters).then(sortedText,
              (error: unknown) => `error ${(error as { code?: string }).code ?? String(error)}`);
            const pushed = await answer(`${text} WHERE ${where}${grouped}`);
            const scanned = await answer(`${text} WHERE (${where}) OR FALSE${grouped}`);
            assert.deepEqual(pushed, scanned, `${text} WHERE ${where}${grouped}`);
          }
        }), { numRuns: 150 });
    } finally {
      await db.test.store.close();
    }
  });
});
