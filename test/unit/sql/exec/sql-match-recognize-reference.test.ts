// MATCH_RECOGNIZE against a reference evaluator written here, on random small tables and random
// patterns. The reference is brute force and shares nothing with the engine's matcher: for each
// start row it lists every way the pattern's syntax tree can label a prefix of the remaining rows,
// in SQL:2016's preference order (left alternative first, a greedy quantifier's extra iteration
// before leaving, an unbounded loop's iterations past its minimum non-empty), and takes the first
// labelling whose every row satisfies its variable's DEFINE, each condition computed in
// JavaScript with running semantics (the rows labelled so far). Outputs, measures included, are
// compared row for row, for ALL ROWS PER MATCH and ONE ROW PER MATCH.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { SqlValue } from '../../../../lib/sql/value.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

type Pattern =
  | { readonly kind: 'variable'; readonly variable: number }
  | { readonly kind: 'anchor'; readonly anchor: '^' | '$' }
  | { readonly kind: 'concat' | 'alternation'; readonly items: readonly Pattern[] }
  | { readonly kind: 'quantified'; readonly pattern: Pattern; readonly min: number; readonly max: number };

interface Row { readonly id: number; readonly g: number; readonly v: number | null }

/** The rows of one partition and a match's labels so far: labels[i] is row start + i's variable. */
interface Frame { readonly rows: readonly Row[]; readonly start: number; readonly labels: readonly number[] }

const NAMES = ['A', 'B', 'C'];

/** A DEFINE condition: its SQL and its meaning for the frame's last row. */
interface Condition { readonly sql: string; readonly holds: (frame: Frame) => boolean }

const current = (f: Frame): number => f.start + f.labels.length - 1;
const lastOf = (f: Frame, variable: number): number => {
  const i = f.labels.lastIndexOf(variable);
  return i < 0 ? -1 : f.start + i;
};
const valueAt = (f: Frame, index: number): number | null => (index < 0 || index >= f.rows.length ? null : f.rows[index]!.v);
const compare = (a: number | null, b: number | null, op: (x: number, y: number) => boolean): boolean =>
  a !== null && b !== null && op(a, b);
const gt = (x: number, y: number) => x > y;
const lt = (x: number, y: number) => x < y;
const eq = (x: number, y: number) => x === y;

const condition: fc.Arbitrary<Condition> = fc.oneof(
  fc.constant<Condition>({ sql: 'v > PREV(v)', holds: (f) => compare(valueAt(f, current(f)), valueAt(f, current(f) - 1), gt) }),
  fc.constant<Condition>({ sql: 'v < PREV(v)', holds: (f) => compare(valueAt(f, current(f)), valueAt(f, current(f) - 1), lt) }),
  fc.constant<Condition>({ sql: 'v < NEXT(v)', holds: (f) => compare(valueAt(f, current(f)), valueAt(f, current(f) + 1), lt) }),
  fc.constant<Condition>({ sql: 'v = FIRST(v)', holds: (f) => compare(valueAt(f, current(f)), valueAt(f, f.start), eq) }),
  fc.integer({ min: 0, max: 3 }).map((k): Condition => ({
    sql: `v >= ${k}`, holds: (f) => compare(valueAt(f, current(f)), k, (x, y) => x >= y),
  })),
  fc.integer({ min: 0, max: 2 }).map((variable): Condition => ({
    sql: `v > ${NAMES[variable]}.v`,
    holds: (f) => compare(valueAt(f, current(f)), valueAt(f, lastOf(f, variable)), gt),
  })),
  fc.integer({ min: 0, max: 2 }).map((variable): Condition => ({
    sql: `v <> FIRST(${NAMES[variable]}.v)`,
    holds: (f) => {
      const i = f.labels.indexOf(variable);
      return compare(valueAt(f, current(f)), valueAt(f, i < 0 ? -1 : f.start + i), (x, y) => x !== y);
    },
  })),
  fc.constant<Condition>({ sql: 'PREV(v) IS NULL', holds: (f) => valueAt(f, current(f) - 1) === null }),
);

const quantifier = fc.constantFrom<[number, number]>([0, Infinity], [1, Infinity], [0, 1], [2, 2], [1, 2], [0, 2], [2, Infinity]);

const pattern: fc.Arbitrary<Pattern> = fc.letrec<{ pattern: Pattern }>((tie) => ({
  pattern: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 2 }).map((variable): Pattern => ({ kind: 'variable', variable })) },
    { weight: 1, arbitrary: fc.constantFrom<Pattern>({ kind: 'anchor', anchor: '^' }, { kind: 'anchor', anchor: '$' }) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom<'concat' | 'alternation'>('concat', 'alternation'),
        fc.array(tie('pattern'), { minLength: 2, maxLength: 3 })).map(([kind, items]): Pattern => ({ kind, items })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(tie('pattern'), quantifier)
        .map(([inner, [min, max]]): Pattern => ({ kind: 'quantified', pattern: inner, min, max })),
    },
  ),
})).pattern;

function printPattern(p: Pattern): string {
  switch (p.kind) {
    case 'variable': return NAMES[p.variable]!;
    case 'anchor': return p.anchor;
    case 'concat': return p.items.map((item) => `(${printPattern(item)})`).join(' ');
    case 'alternation': return p.items.map((item) => `(${printPattern(item)})`).join(' | ');
    case 'quantified': {
      const q = p.max === Infinity ? `{${p.min},}` : `{${p.min},${p.max}}`;
      return `(${printPattern(p.pattern)})${q}`;
    }
  }
}

/** Every labelling of rows from `start` the pattern allows, extending `labels`, most preferred first. */
function* labellings(p: Pattern, rows: readonly Row[], start: number, labels: readonly number[]): Generator<readonly number[]> {
  const position = start + labels.length;
  switch (p.kind) {
    case 'variable':
      if (position < rows.length) yield [...labels, p.variable];
      return;
    case 'anchor':
      if (p.anchor === '^' ? position === 0 : position === rows.length) yield labels;
      return;
    case 'alternation':
      for (const item of p.items) yield* labellings(item, rows, start, labels);
      return;
    case 'concat': {
      const sequence = function* (i: number, so: readonly number[]): Generator<readonly number[]> {
        if (i === p.items.length) {
          yield so;
          return;
        }
        for (const next of labellings(p.items[i]!, rows, start, so)) yield* sequence(i + 1, next);
      };
      yield* sequence(0, labels);
      return;
    }
    case 'quantified': {
      const repeat = function* (count: number, so: readonly number[]): Generator<readonly number[]> {
        if (count < p.max) {
          for (const next of labellings(p.pattern, rows, start, so)) {
            if (p.max === Infinity && count >= p.min && next.length === so.length) continue;
            yield* repeat(count + 1, next);
          }
        }
        if (count >= p.min) yield so;
      };
      yield* repeat(0, labels);
    }
  }
}

function referenceMatch(p: Pattern, rows: readonly Row[], start: number, defines: readonly (Condition | undefined)[]):
  readonly number[] | undefined {
  for (const labels of labellings(p, rows, start, [])) {
    const ok = labels.every((label, i) => defines[label]?.holds({ rows, start, labels: labels.slice(0, i + 1) }) ?? true);
    if (ok) return labels;
  }
  return undefined;
}

/**
 * Measures: MATCH_NUMBER(), CLASSIFIER(), FIRST(id), LAST(id), COUNT(*), A.v, FIRST(B.id),
 * SUM(A.v), as of the frame's last row.
 */
function measures(frame: Frame, matchNumber: number): (number | string | null)[] {
  const { rows, start, labels } = frame;
  const empty = labels.length === 0;
  const a = lastOf(frame, 0);
  const firstB = labels.indexOf(1);
  const aValues = labels.flatMap((label, i) => (label === 0 && rows[start + i]!.v !== null ? [rows[start + i]!.v!] : []));
  return [matchNumber, empty ? null : NAMES[labels[labels.length - 1]!]!, empty ? null : rows[start]!.id,
    empty ? null : rows[current(frame)]!.id, labels.length, a < 0 ? null : rows[a]!.v,
    firstB < 0 ? null : rows[start + firstB]!.id, aValues.length === 0 ? null : aValues.reduce((x, y) => x + y, 0)];
}

function reference(table: readonly Row[], p: Pattern, defines: readonly (Condition | undefined)[], allRows: boolean):
  (number | string | null)[][] {
  const out: (number | string | null)[][] = [];
  for (const g of [...new Set(table.map((row) => row.g))].sort((x, y) => x - y)) {
    const rows = table.filter((row) => row.g === g).sort((x, y) => x.id - y.id);
    let matchNumber = 0;
    for (let start = 0; start < rows.length;) {
      const labels = referenceMatch(p, rows, start, defines);
      if (labels === undefined) {
        start++;
        continue;
      }
      matchNumber++;
      if (!allRows) {
        out.push([g, ...measures({ rows, start, labels }, matchNumber)]);
      } else if (labels.length === 0) {
        const row = rows[start]!;
        out.push([row.id, row.g, row.v, ...measures({ rows, start, labels }, matchNumber)]);
      } else {
        labels.forEach((_label, k) => {
          const row = rows[start + k]!;
          out.push([row.id, row.g, row.v, ...measures({ rows, start, labels: labels.slice(0, k + 1) }, matchNumber)]);
        });
      }
      start += Math.max(1, labels.length);
    }
  }
  return out;
}

function plain(value: SqlValue): number | string | null {
  if (typeof value === 'bigint') return Number(value);
  assert(value === null || typeof value === 'number' || typeof value === 'string');
  return value;
}

const table = fc.array(fc.record({
  g: fc.integer({ min: 0, max: 1 }),
  v: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6, nil: null }),
}, { noNullPrototype: true }), { maxLength: 9 }).map((rows) => rows.map((row, id): Row => ({ id, ...row })));

describe('MATCH_RECOGNIZE against a brute-force reference', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, g INTEGER, v INTEGER)');
  });

  after(async () => {
    await db?.test.store.close();
  });

  it('gives the reference\'s matches, labels and measures on random tables and patterns', async () => {
    await fc.assert(fc.asyncProperty(
      table, pattern, fc.array(fc.option(condition, { freq: 4 }), { minLength: 3, maxLength: 3 }), fc.boolean(),
      async (rows, p, conditions, allRows) => {
        await db.update('DELETE FROM t');
        if (rows.length > 0) {
          await db.update(`INSERT INTO t VALUES ${rows.map((row) => `(${row.id}, ${row.g}, ${row.v ?? 'NULL'})`).join(', ')}`);
        }
        const defines = conditions.map((c) => c ?? undefined);
        const text = printPattern(p);
        // DEFINE may only name variables of the PATTERN.
        const used = NAMES.map((_name, i) => i).filter((i) => new RegExp(`\\b${NAMES[i]}\\b`).test(text));
        fc.pre(used.length > 0); // a PATTERN of anchors only has nothing for DEFINE to name
        // A condition may only name variables of the PATTERN either: others are left out.
        const allDefines = defines.map((d, i) => (used.includes(i) &&
          NAMES.every((name, j) => used.includes(j) || !d?.sql.includes(`${name}.`)) ? d : undefined));
        const defineSql = used.filter((i) => allDefines[i] !== undefined).map((i) => `${NAMES[i]} AS ${allDefines[i]!.sql}`);
        // A PATTERN variable without DEFINE is always true; DEFINE needs one entry at least.
        const define = defineSql.length > 0 ? defineSql.join(', ') : `${NAMES[used[0]!]} AS TRUE`;
        // `A.v` needs A in the PATTERN; without it the reference's A.v is NULL anyway (B likewise).
        const [av, sa] = used.includes(0) ? ['A.v', 'SUM(A.v)'] : ['NULL', 'NULL'];
        const fb = used.includes(1) ? 'FIRST(B.id)' : 'NULL';
        const sql = `SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY g ORDER BY id ` +
          `MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS c, FIRST(id) AS f, LAST(id) AS l, COUNT(*) AS n, ${av} AS av, ` +
          `${fb} AS fb, ${sa} AS sa ` +
          `${allRows ? 'ALL ROWS' : 'ONE ROW'} PER MATCH PATTERN (${text}) DEFINE ${define})`;
        const got = (await db.rows(sql)).map((row) => row.map(plain));
        assert.deepStrictEqual(got, reference(rows, p, allDefines, allRows), sql);
      },
    ), { numRuns: 200 });
  });
});
