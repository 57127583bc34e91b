// The time-series functions of the select list (lib/query/tql/time-series-*.ts) over rows in
// memory: the worked examples of spec/surface.md §3.5, NULL neighbours, gaps, the first and last
// rows, WHERE and ORDER BY with them, nanosecond keys, and every error GridDB gives for wrong use.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TQL_RESULT_ROW_COUNT_MAX } from '../../../lib/base/limits.ts';
import {
  executeTql,
  type TqlResult,
  type TqlRowSource,
  type TqlSourceScan,
} from '../../../lib/query/tql/execute.ts';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { memorySource, NOW_MS, resultRows, runTql, SAMPLE, tqlError } from './tql-test-helpers.ts';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => `TIMESTAMP('${new Date(ms).toISOString()}')`;
const s = (seconds: number) => T0 + seconds * 1000;

/** A time series: ts, v DOUBLE, i INTEGER, n STRING. */
const SERIES: ContainerSchema = {
  name: 'series',
  type: 'TIME_SERIES',
  rowKeyColumnCount: 1,
  indexes: [],
  schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
    { name: 'i', type: 'INTEGER', array: false, notNull: false },
    { name: 'n', type: 'STRING', array: false, notNull: false },
    { name: 'f', type: 'FLOAT', array: false, notNull: false },
    { name: 'l', type: 'LONG', array: false, notNull: false },
  ],
};

/** Rows at 0, 10, 20, 40 s (a gap from 20 to 40), v 4, 3, NULL, 1. */
const ROWS: Row[] = [
  [s(0), 4, 40, 'a', 0.5, 100n],
  [s(10), 3, 30, 'b', 1.5, 200n],
  [s(20), null, 21, 'c', null, 300n],
  [s(40), 1, 10, 'd', 2.5, 500n],
];

function resultRowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'explain');
  return result.kind === 'explain' ? result.rows : [];
}

const rows = (tql: string, input: readonly Row[] = ROWS, schema = SERIES) =>
  resultRows(runTql(schema, input, tql));

function value(tql: string, input: readonly Row[] = ROWS): unknown {
  const result = runTql(SERIES, input, tql);
  assert.equal(result.kind, 'aggregate');
  return result.kind === 'aggregate' ? result.value : undefined;
}

describe('TQL time-series functions', () => {
  it('TIME_AVG weighs each value by half the spans to its neighbours (§3.5: 2.25)', () => {
    const example: Row[] = [[s(0), 4], [s(10), 3], [s(20), 2], [s(40), 1]]
      .map(([t, v]) => [t!, v!, null, null, null, null]);
    assert.equal(value('SELECT TIME_AVG(v)', example), 2.25);
    assert.equal(value('SELECT AVG(v)', example), 2.5);
    // NULLs are skipped: 0, 10, 40 s weigh 5, 20, 15.
    assert.equal(value('SELECT TIME_AVG(v)'), (4 * 5 + 3 * 20 + 1 * 15) / 40);
    assert.equal(value('SELECT TIME_AVG(i) WHERE ts >= ' + iso(s(20))), (21 * 10 + 10 * 10) / 20);
    assert.equal(value('SELECT TIME_AVG(v) WHERE ts = ' + iso(s(10))), 3, 'a lone value');
    assert.equal(value('SELECT TIME_AVG(v) WHERE ts > ' + iso(s(100))), null);
    assert.equal(value('SELECT TIME_AVG(v) LIMIT 1 OFFSET 1'), null);
    const result = runTql(SERIES, ROWS, 'SELECT TIME_AVG(l)');
    assert.deepEqual(result.kind === 'aggregate' && [result.function, result.type],
      ['TIME_AVG', { type: 'DOUBLE' }]);
  });

  it('TIME_NEXT, TIME_NEXT_ONLY, TIME_PREV, TIME_PREV_ONLY find the neighbour rows', () => {
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, ${iso(s(10))})`), [ROWS[1]]);
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, ${iso(s(11))})`), [ROWS[2]]);
    assert.deepEqual(rows(`SELECT TIME_NEXT_ONLY(*, ${iso(s(10))})`), [ROWS[2]]);
    assert.deepEqual(rows(`SELECT TIME_PREV(*, ${iso(s(10))})`), [ROWS[1]]);
    assert.deepEqual(rows(`SELECT TIME_PREV(*, ${iso(s(30))})`), [ROWS[2]]);
    assert.deepEqual(rows(`SELECT TIME_PREV_ONLY(*, ${iso(s(10))})`), [ROWS[0]]);
    // First and last rows, and beyond them.
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, ${iso(s(-5))})`), [ROWS[0]]);
    assert.deepEqual(rows(`SELECT TIME_PREV_ONLY(*, ${iso(s(0))})`), []);
    assert.deepEqual(rows(`SELECT TIME_NEXT_ONLY(*, ${iso(s(40))})`), []);
    assert.deepEqual(rows(`SELECT TIME_PREV(*, ${iso(s(99))})`), [ROWS[3]]);
    assert.deepEqual(rows('SELECT TIME_PREV(*, NOW())', []), []);
    assert.deepEqual(rows('SELECT TIME_NEXT(*, NULL)'), []);
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, ${iso(s(0))}) LIMIT 1 OFFSET 1`), []);
  });

  it('applies WHERE first: the neighbours are the nearest rows WHERE selects', () => {
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, ${iso(s(5))}) WHERE v < 3`), [ROWS[3]]);
    assert.deepEqual(rows(`SELECT TIME_PREV(*, ${iso(s(30))}) WHERE v IS NOT NULL`), [ROWS[1]]);
    assert.deepEqual(
      rows(`SELECT TIME_INTERPOLATED(i, ${iso(s(15))}) WHERE n <> 'c'`),
      [[s(15), 3, 26, 'b', 1.5, 200n]],
      'between 10 s (30) and 40 s (10)',
    );
    assert.deepEqual(
      rows(`SELECT TIME_SAMPLING(i, ${iso(s(0))}, ${iso(s(40))}, 20, SECOND) WHERE n <> 'c'`),
      [ROWS[0], [s(20), 3, 23, 'b', 1.5, 200n], ROWS[3]],
    );
    assert.deepEqual(rows(`SELECT MAX_ROWS(i) WHERE ts > ${iso(s(0))}`), [ROWS[1]]);
  });

  it('TIME_INTERPOLATED: the row itself, a line between neighbours, NULL, or no row', () => {
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(10))})`), [ROWS[1]]);
    // Between 0 s (4) and 10 s (3): the value on the line, the other fields of the earlier row.
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(2.5))})`),
      [[s(2.5), 3.75, 40, 'a', 0.5, 100n]]);
    // Integers are truncated toward zero, FLOAT rounded to single, LONG exact in range.
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(i, ${iso(s(25))})`),
      [[s(25), null, 18, 'c', null, 300n]], '21 + 0.25 × (10 − 21) = 18.25');
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(f, ${iso(s(1))})`),
      [[s(1), 4, 40, 'a', Math.fround(0.6), 100n]]);
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(l, ${iso(s(30))})`),
      [[s(30), null, 21, 'c', null, 400n]]);
    // A NULL neighbour value makes the value NULL; the row is still there.
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(30))})`),
      [[s(30), null, 21, 'c', null, 300n]]);
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(15))})`),
      [[s(15), null, 30, 'b', 1.5, 200n]]);
    // No row without both neighbours.
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(-1))})`), []);
    assert.deepEqual(rows(`SELECT TIME_INTERPOLATED(v, ${iso(s(41))})`), []);
    assert.deepEqual(rows('SELECT TIME_INTERPOLATED(v, NULL)'), []);
  });

  it('TIME_SAMPLING: rows at points, interpolation between, nothing without reference rows', () => {
    // Points -10, -5, ..., 50 s: before 0 s and after 40 s there is no reference row.
    const sampled = rows(`SELECT TIME_SAMPLING(v, ${iso(s(-10))}, ${iso(s(50))}, 5, SECOND)`);
    assert.deepEqual(sampled, [
      ROWS[0],
      [s(5), 3.5, 40, 'a', 0.5, 100n],
      ROWS[1],
      [s(15), null, 30, 'b', 1.5, 200n], // next value NULL
      ROWS[2],
      [s(25), null, 21, 'c', null, 300n],
      [s(30), null, 21, 'c', null, 300n],
      [s(35), null, 21, 'c', null, 300n],
      ROWS[3],
    ]);
    // `*` takes every field of the previous row.
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(*, ${iso(s(5))}, ${iso(s(25))}, 10, SECOND)`), [
      [s(5), 4, 40, 'a', 0.5, 100n],
      [s(15), 3, 30, 'b', 1.5, 200n],
      [s(25), null, 21, 'c', null, 300n],
    ]);
    // A point count that misses every row in a gap, MILLISECOND and MINUTE units, 'unit' strings.
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(i, ${iso(s(22))}, ${iso(s(39))}, 8500, ` +
      'MILLISECOND)'), [[s(22), null, 19, 'c', null, 300n], [s(30.5), null, 15, 'c', null, 300n],
      [s(39), null, 10, 'c', null, 300n]]);
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(i, ${iso(s(0))}, ${iso(s(600))}, 1, 'minute')`),
      [ROWS[0]]);
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(v, ${iso(s(10))}, ${iso(s(0))}, 1, SECOND)`), [],
      'an end before the start: no points (GridDB gives no row, no error)');
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(v, NULL, ${iso(s(0))}, 1, SECOND)`), []);
    assert.deepEqual(rows(`SELECT TIME_SAMPLING(v, ${iso(s(0))}, ${iso(s(40))}, 10, SECOND)`, []),
      []);
  });

  it('TIME_SAMPLING with ORDER BY, LIMIT and OFFSET', () => {
    const base = `SELECT TIME_SAMPLING(v, ${iso(s(0))}, ${iso(s(40))}, 10, SECOND)`;
    assert.deepEqual(rows(`${base} ORDER BY ts DESC`).map((row) => row[0]),
      [s(40), s(30), s(20), s(10), s(0)]);
    assert.deepEqual(rows(`${base} ORDER BY v DESC LIMIT 2`).map((row) => row[0]),
      [s(20), s(30)], 'NULL is the largest value; ties keep time order');
    assert.deepEqual(rows(`${base} ORDER BY i`).map((row) => row[2]), [10, 21, 21, 30, 40]);
    assert.deepEqual(rows(`${base} LIMIT 2 OFFSET 1`).map((row) => row[0]), [s(10), s(20)]);
  });

  it('MAX_ROWS and MIN_ROWS give every row holding the extreme, on any container', () => {
    const dup: Row[] = [...ROWS, [s(50), 4, 10, 'e', null, 100n]];
    assert.deepEqual(rows('SELECT MAX_ROWS(v)', dup), [ROWS[0], dup[4]]);
    assert.deepEqual(rows('SELECT MIN_ROWS(i)', dup), [ROWS[3], dup[4]]);
    assert.deepEqual(rows('SELECT MIN_ROWS(l) ORDER BY ts DESC', dup), [dup[4], ROWS[0]]);
    assert.deepEqual(rows('SELECT MAX_ROWS(ts) LIMIT 1', dup), [dup[4]]);
    assert.deepEqual(rows('SELECT MAX_ROWS(f) WHERE f IS NULL', dup), []);
    const nan: Row[] = [[s(0), Number.NaN, 1, 'x', 0, 0n], [s(1), 5, 1, 'y', 0, 0n]];
    assert.deepEqual(rows('SELECT MAX_ROWS(v)', nan), [nan[0]], 'NaN is above every number');
    const collection = resultRows(runTql(SAMPLE, [
      [1, null, null, 3, null, null, null, null, null, null, null],
      [2, null, null, 3, null, null, null, null, null, null, null],
    ], 'SELECT MAX_ROWS(i)'));
    assert.equal(collection.length, 2);
  });

  it('keeps TIMESTAMP(9) keys and arguments exact through every function', () => {
    const nano: ContainerSchema = {
      ...SERIES,
      columns: [{ ...SERIES.columns[0]!, timePrecision: 'NANOSECOND' }, ...SERIES.columns.slice(1)],
    };
    const base = BigInt(T0) * 1_000_000n;
    const at = (ns: bigint) => {
      const ms = Number((base + ns) / 1_000_000n);
      const fraction = ((base + ns) % 1_000_000_000n).toString().padStart(9, '0');
      return `TIMESTAMP_NS('${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z')`;
    };
    const input: Row[] = [
      [base + 1n, 1, 1, 'a', null, 1n],
      [base + 3n, 3, 3, 'b', null, 3n],
      [base + 7n, 7, 7, 'c', null, 7n],
    ];
    const run = (tql: string) => rows(tql, input, nano);
    assert.deepEqual(run(`SELECT TIME_NEXT(*, ${at(2n)})`), [input[1]]);
    assert.deepEqual(run(`SELECT TIME_PREV_ONLY(*, ${at(3n)})`), [input[0]]);
    assert.deepEqual(run(`SELECT TIME_INTERPOLATED(v, ${at(5n)})`),
      [[base + 5n, 5, 3, 'b', null, 3n]]);
    assert.deepEqual(run(`SELECT TIME_SAMPLING(l, ${at(0n)}, ${at(8n)}, 1, MILLISECOND)`), []);
    const sampled = run(`SELECT TIME_SAMPLING(l, ${at(1n)}, ${at(9n)}, 2, MILLISECOND)`);
    assert.deepEqual(sampled, [input[0]], 'points 2 ms apart: only the first has rows around it');
    const result = runTql(nano, input, 'SELECT TIME_AVG(v)');
    // Midpoints 2 and 5 ns: weights 1, 3, 2.
    assert.equal(result.kind === 'aggregate' && result.value, (1 * 1 + 3 * 3 + 7 * 2) / 6);
    // A millisecond key is compared exactly with a finer time.
    assert.deepEqual(rows(`SELECT TIME_NEXT(*, TIMESTAMP_US('${new Date(s(0)).toISOString()
      .slice(0, 23)}001Z'))`), [ROWS[1]]);
    assert.throws(() => rows(`SELECT TIME_INTERPOLATED(v, TIMESTAMP_US('${new Date(s(0))
      .toISOString().slice(0, 23)}001Z'))`), tqlError('TQL_SEMANTIC', undefined, /finer/));
  });

  it('answers on a TIMESTAMP(9) key as on a millisecond key, times scaled (random data)', () => {
    const nano: ContainerSchema = {
      ...SERIES,
      columns: [{ ...SERIES.columns[0]!, timePrecision: 'NANOSECOND' }, ...SERIES.columns.slice(1)],
    };
    const msText = (ms: number) => `TIMESTAMP('${new Date(ms).toISOString()}')`;
    const nsText = (ms: number) =>
      `TIMESTAMP_NS('${new Date(ms).toISOString().slice(0, 23)}000000Z')`;
    const call = fc.oneof(
      fc.tuple(fc.constantFrom('TIME_NEXT', 'TIME_NEXT_ONLY', 'TIME_PREV', 'TIME_PREV_ONLY'),
        fc.integer({ min: -2, max: 62 })).map(([fn, k]) => (time: (ms: number) => string) =>
        `${fn}(*, ${time(s(k / 2))})`),
      fc.tuple(fc.constantFrom('v', 'i', 'f', 'l'), fc.integer({ min: -2, max: 62 }))
        .map(([column, k]) => (time: (ms: number) => string) =>
          `TIME_INTERPOLATED(${column}, ${time(s(k / 2))})`),
      fc.tuple(fc.option(fc.constantFrom('v', 'i', 'l')), fc.integer({ min: -4, max: 40 }),
        fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 4000 }))
        .map(([column, k, span, interval]) => (time: (ms: number) => string) =>
          `TIME_SAMPLING(${column ?? '*'}, ${time(s(k))}, ${time(s(k + span))}, ${interval}, ` +
          'MILLISECOND)'),
      fc.constantFrom('TIME_AVG(v)', 'MAX_ROWS(i)', 'MIN_ROWS(l)').map((text) => () => text),
    );
    const row = fc.tuple(fc.integer({ min: 0, max: 30 }),
      fc.option(fc.constantFrom(-1.5, 0, 2, 7.25)), fc.option(fc.integer({ min: -9, max: 9 })),
      fc.option(fc.constantFrom(0.5, -3)), fc.option(fc.bigInt({ min: -5n, max: 5n })));
    fc.assert(fc.property(fc.uniqueArray(row, { selector: (r) => r[0], maxLength: 25 }), call,
      (input, select) => {
        const rowsMs: Row[] = input.map(([k, v, i, f, l]) => [s(k), v, i, `n${k}`, f, l]);
        const rowsNs: Row[] = rowsMs.map((r) => [BigInt(r[0] as number) * 1_000_000n,
          ...r.slice(1)]);
        const answer = (schema: ContainerSchema, rows: Row[], text: string) => {
          const result = runTql(schema, rows, `SELECT ${text}`);
          return result.kind === 'aggregate' ? result.value
            : resultRows(result).map((r) => [BigInt(r[0] as number | bigint), ...r.slice(1)]);
        };
        const ms = answer(SERIES, rowsMs, select(msText));
        const ns = answer(nano, rowsNs, select(nsText));
        const scaled = Array.isArray(ms)
          ? ms.map((r) => [(r[0] as bigint) * 1_000_000n, ...r.slice(1)]) : ms;
        assert.deepStrictEqual(ns, scaled, select(nsText));
      }), { numRuns: 300 });
  });

  it('refuses a sampling of more points than a result may hold, before reading a row', () => {
    const days = Math.ceil(TQL_RESULT_ROW_COUNT_MAX / 86_400_000) + 1;
    const wide = `SELECT TIME_SAMPLING(v, ${iso(s(0))}, ${iso(s(0) + days * 86_400_000)}, 1, ` +
      'MILLISECOND)';
    assert.throws(() => rows(wide), tqlError('LIMIT_EXCEEDED', undefined, /TIME_SAMPLING/));
    assert.throws(() => rows(`${wide} ORDER BY v LIMIT 1`), tqlError('LIMIT_EXCEEDED'));
    assert.equal(rows(`${wide} LIMIT 3`).length, 3, 'a LIMIT bounds the points made');
  });

  it('asks the source for the few rows it needs: pages of one row for a neighbour', () => {
    const scans: TqlSourceScan[] = [];
    const source = memorySource(SERIES, ROWS);
    const recording: TqlRowSource = {
      pages: (scan) => {
        scans.push(scan);
        return source.pages(scan);
      },
    };
    const scanText = (scan: TqlSourceScan) =>
      [scan.from, scan.to, scan.direction, scan.pageRowCountMax];
    const run = (tql: string) => executeTql(prepareTql(tql, SERIES, { nowMs: NOW_MS }), recording);
    run(`SELECT TIME_NEXT(*, ${iso(s(5))})`);
    assert.deepEqual(scans, [{ from: s(5), to: undefined, after: undefined, direction: 'asc',
      pageRowCountMax: 1 }]);
    scans.length = 0;
    run(`SELECT TIME_INTERPOLATED(v, ${iso(s(5))})`);
    assert.deepEqual(scans.map(scanText),
      [[undefined, s(5), 'desc', 1], [s(5) + 1, undefined, 'asc', 1]]);
    scans.length = 0;
    run(`SELECT TIME_SAMPLING(v, ${iso(s(5))}, ${iso(s(25))}, 5, SECOND) WHERE ts < ${iso(s(30))}`);
    assert.deepEqual(scans.map(scanText),
      [[undefined, s(5) - 1, 'desc', 1], [s(5), s(30) - 1, 'asc', undefined]],
      'the row before the start, then one forward pass within WHERE\'s range');
  });

  it('EXPLAIN shows how each function reads', () => {
    const plan = (tql: string) => resultRowsOf(runTql(SERIES, ROWS, `EXPLAIN ${tql}`))
      .map((row) => `${row[1]} ${row[2]} ${row[4]}`);
    assert.deepEqual(plan(`SELECT TIME_PREV(*, ${iso(s(5))}) WHERE v > 1`), [
      '0 SELECTION WHERE', '1 INDEX ROWMAP', '1 FILTER TRUE', '0 TIME_SERIES_FUNCTION TIME_PREV',
      '1 TIME_SERIES_READ NEIGHBOUR_BACKWARD', '0 QUERY_EXECUTE_RESULT_ROWS 0',
    ]);
    assert.deepEqual(
      plan(`SELECT TIME_SAMPLING(v, ${iso(s(0))}, ${iso(s(40))}, 10, SECOND) ORDER BY v LIMIT 2`), [
        '0 SELECTION NULL', '1 INDEX ROWMAP', '0 TIME_SERIES_FUNCTION TIME_SAMPLING',
        '1 TIME_SERIES_READ ONE_PASS', '1 SAMPLING_POINTS 5', '0 QUERY_RESULT_SORT TRUE',
        '1 QUERY_RESULT_SORT_EXPRESSION v', '0 QUERY_LIMIT 2', '1 LIMIT_MODE TOP_ROWS',
        '0 QUERY_EXECUTE_RESULT_ROWS 0',
      ]);
    assert.ok(plan('SELECT TIME_AVG(v)').includes('1 AGGREGATION_INPUT COLUMN_BATCHES'));
    assert.ok(plan('SELECT MAX_ROWS(v) WHERE v > 1').includes('1 TIME_SERIES_READ ROWS'));
    const analyze = `EXPLAIN ANALYZE SELECT TIME_INTERPOLATED(v, ${iso(s(5))})`;
    const analyzed = resultRowsOf(runTql(SERIES, ROWS, analyze))
      .map((row) => `${row[2]} ${row[4]}`);
    assert.ok(analyzed.includes('TIME_SERIES_READ NEIGHBOURS'));
    assert.ok(analyzed.includes('QUERY_RESULT_ROWS 1'));
  });

  it('gives GridDB\'s errors, with what was wrong, for wrong use', () => {
    const fails = (tql: string, message: RegExp, schema = SERIES) => assert.throws(
      () => prepareTql(tql, schema, { nowMs: NOW_MS }), tqlError('TQL_SEMANTIC', undefined,
        message), tql);
    for (const select of ['TIME_NEXT(*, NOW())', 'TIME_PREV_ONLY(*, NOW())', 'TIME_AVG(d)',
      'TIME_INTERPOLATED(d, NOW())', 'TIME_SAMPLING(d, NOW(), NOW(), 1, HOUR)']) {
      fails(`SELECT ${select}`, /needs a TIME_SERIES container; "sample" is a COLLECTION/, SAMPLE);
    }
    fails('SELECT TIME_INTERPOLATED(n, NOW())', /cannot interpolate column n \(STRING\)/);
    fails('SELECT TIME_SAMPLING(n, NOW(), NOW(), 1, HOUR)', /cannot interpolate column n/);
    fails('SELECT TIME_AVG(n)', /TIME_AVG cannot average column n \(STRING\)/);
    fails('SELECT TIME_AVG(ts)', /numeric column/);
    fails('SELECT MAX_ROWS(n)', /MAX_ROWS needs a numeric or TIMESTAMP column, not STRING/);
    fails('SELECT TIME_INTERPOLATED(*, NOW())', /cannot interpolate \*/);
    fails('SELECT TIME_NEXT(v, NOW())', /TIME_NEXT takes \* first/);
    fails('SELECT MIN_ROWS(*)', /takes a column, not \*/);
    fails('SELECT TIME_NEXT(*)', /TIME_NEXT takes 2 arguments/);
    fails('SELECT TIME_NEXT(*, 5)', /argument 2 of TIME_NEXT must be a TIMESTAMP, not LONG/);
    fails("SELECT TIME_PREV(*, '2026')", /must be a TIMESTAMP, not STRING/);
    fails('SELECT TIME_NEXT(*, ts)', /must be a constant TIMESTAMP/);
    fails('SELECT TIME_SAMPLING(v, NOW(), 1, 1, HOUR)', /argument 3 of TIME_SAMPLING/);
    fails('SELECT TIME_SAMPLING(v, NOW(), NOW(), 0, HOUR)', /interval .* must be positive, not 0/);
    fails('SELECT TIME_SAMPLING(v, NOW(), NOW(), -2, HOUR)', /must be positive, not -2/);
    fails('SELECT TIME_SAMPLING(v, NOW(), NOW(), 1.5, HOUR)', /constant integer, not DOUBLE/);
    fails('SELECT TIME_SAMPLING(v, NOW(), NOW(), 1, YEAR)', /must be DAY, HOUR, MINUTE/);
    fails('SELECT * WHERE TIME_NEXT(*, NOW()) IS NULL', /only be the select expression/);
    assert.throws(() => prepareTql('SELECT TIME_WINDOW_AGG(v, NOW(), NOW(), 1, HOUR)', SERIES,
      { nowMs: NOW_MS }), tqlError('NOT_SUPPORTED', { column: 8 }, /undocumented function of /));
  });
});
