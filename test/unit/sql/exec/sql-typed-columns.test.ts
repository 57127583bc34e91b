// Typed columns (SqlColumn as a Float64Array): each kernel over one against a simple model. The
// accumulators' typed loops against add row by row; TIMESTAMP_TRUNC's column kernel against its
// row path; the filter's typed conjuncts against evaluate + selectRows; and the scan, which hands
// out a DOUBLE / TIMESTAMP column without NULLs as a Float64Array, against the rows put (a copy:
// a page held across a commit keeps its values).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createAccumulator } from '../../../../lib/sql/exec/aggregates.ts';
import { evaluate, filterRows, selectRows, type SqlBatch } from '../../../../lib/sql/exec/evaluate.ts';
import { keyChanges } from '../../../../lib/sql/exec/execute-plan.ts';
import type { SqlEvalContext } from '../../../../lib/sql/functions/scalar-function.ts';
import { TIMESTAMP_TRUNC } from '../../../../lib/sql/functions/time.ts';
import type { SqlBoundExpression, SqlCompareOperator } from '../../../../lib/sql/plan/bound-expression.ts';
import type { SqlAggregateCall } from '../../../../lib/sql/plan/logical-plan.ts';
import type { SqlColumn, SqlValue } from '../../../../lib/sql/value.ts';
import { sqlTestDatabase } from './sql-exec-helpers.ts';

/** Values a typed column may hold: no NULL, but NaN, ±0 and infinities. */
const doubles = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, 0, -0, Infinity, -Infinity) },
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }).map((n) => n / 2) },
  { weight: 2, arbitrary: fc.double({ noNaN: true }) },
);

const columnAndCuts = fc.array(doubles, { maxLength: 60 }).chain((values) =>
  fc.uniqueArray(fc.integer({ min: 0, max: values.length }), { maxLength: 8 })
    .map((cuts) => ({ values, cuts: [...cuts].sort((a, b) => a - b) })));

const context = (timeZoneOffsetMinutes = 0): SqlEvalContext =>
  ({ timeZoneOffsetMinutes, statementStartMs: 0, randomBytes: (n) => new Uint8Array(n) });

const same = (a: unknown, b: unknown) => Object.is(a, b) || a === b;

describe('SQL typed columns', () => {
  it('accumulators over a Float64Array by runs equal add per row over the same values', () => {
    const calls: SqlAggregateCall['name'][] = ['COUNT', 'SUM', 'TOTAL', 'AVG', 'MIN', 'MAX', 'STDDEV_SAMP', 'MEDIAN'];
    fc.assert(fc.property(columnAndCuts, fc.boolean(), ({ values, cuts }, distinct) => {
      for (const name of calls) {
        const call: SqlAggregateCall = { name, args: [], distinct, type: 'DOUBLE' };
        const byRuns = createAccumulator(call, 'DOUBLE');
        const typed = Float64Array.from(values);
        const bounds = [0, ...cuts, values.length];
        for (let i = 0; i + 1 < bounds.length; i++) byRuns.addRange(typed, bounds[i]!, bounds[i + 1]!);
        const byRows = createAccumulator(call, 'DOUBLE');
        for (const value of values) byRows.add(value);
        assert.ok(same(byRuns.result(), byRows.result()), `${name}${distinct ? ' DISTINCT' : ''}: ` +
          `${String(byRuns.result())} vs ${String(byRows.result())}`);
      }
    }), { numRuns: 300 });
  });

  it('TIMESTAMP_TRUNC over a typed column gives the row path\'s values, or leaves the batch to it', () => {
    const units = ['DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MONTH', 'YEAR'] as const;
    fc.assert(fc.property(
      fc.constantFrom(...units), fc.integer({ min: -720, max: 840 }),
      fc.array(fc.oneof(fc.integer({ min: 0, max: 200_000_000 }), fc.integer({ min: 0, max: 2 ** 45 })), { maxLength: 40 }),
      (unit, zoneMinutes, times) => {
        const units = new Array<SqlValue>(times.length).fill(unit);
        const ctx = context(zoneMinutes);
        const column = TIMESTAMP_TRUNC.evaluateColumns!([units, Float64Array.from(times)], ['STRING', 'TIMESTAMP'],
          ctx, times.length);
        if (column === undefined) {
          // Only a unit of no fixed length, no rows, or a truncation before the epoch go by rows.
          const unitMs = { DAY: 86_400_000, HOUR: 3_600_000, MINUTE: 60_000, SECOND: 1000, MILLISECOND: 1 }[unit as string];
          const shiftMs = zoneMinutes * 60_000;
          assert.ok(unitMs === undefined || times.length === 0 ||
            times.some((t) => Math.floor((t + shiftMs) / unitMs) * unitMs - shiftMs < 0));
          return;
        }
        const rows = times.map((t) => TIMESTAMP_TRUNC.evaluate([unit, t], ['STRING', 'TIMESTAMP'], ctx));
        assert.ok(column instanceof Float64Array);
        assert.deepEqual([...column], rows);
      }), { numRuns: 300 });
  });

  it('the filter\'s typed conjuncts keep the rows evaluate + selectRows keeps', () => {
    const operators: SqlCompareOperator[] = ['=', '!=', '<', '<=', '>', '>='];
    const conjunct = fc.record({
      column: fc.constantFrom(0, 1),
      operator: fc.constantFrom(...operators),
      value: fc.oneof(doubles, fc.constant(null), fc.constant(Number.NaN)),
    }, { noNullPrototype: true });
    fc.assert(fc.property(
      fc.array(fc.tuple(doubles, fc.option(doubles)), { minLength: 1, maxLength: 30 }),
      fc.array(conjunct, { minLength: 1, maxLength: 3 }),
      (rows, conjuncts) => {
        // Column 0 typed (no NULLs), column 1 plain with NULLs: the typed loop and the general one.
        const batch: SqlBatch = {
          rowCount: rows.length,
          columns: [Float64Array.from(rows.map((r) => r[0])), rows.map((r) => r[1])],
        };
        const compares = conjuncts.map((c): SqlBoundExpression => ({
          kind: 'compare', operator: c.operator, type: 'BOOL',
          left: { kind: 'column', index: c.column, type: 'DOUBLE' },
          right: { kind: 'constant', value: c.value, type: 'DOUBLE' },
        }));
        const predicate = compares.reduce((left, right): SqlBoundExpression =>
          ({ kind: 'logic', operator: 'AND', left, right, type: 'BOOL' }));
        const got = filterRows(batch, predicate, context());
        const want = selectRows(batch, evaluate(predicate, batch, context()));
        assert.equal(got.rowCount, want.rowCount);
        const plain = (column: SqlColumn) => [...column];
        assert.deepEqual(got.columns.map(plain), want.columns.map(plain));
        if (got.rowCount > 0) assert.ok(got.columns[0] instanceof Float64Array, 'a typed column stays typed');
      }), { numRuns: 300 });
  });

  it('GROUP BY\'s runs over typed key columns are the runs over the same values as plain columns', () => {
    // Runs of equal keys: few distinct values so that neighbours repeat; plain columns hold NULLs.
    const few = fc.constantFrom(Number.NaN, 0, -0, Infinity, -Infinity, 1.5, 1_451_606_400_000);
    const column = fc.oneof(
      fc.array(few, { minLength: 40, maxLength: 40 }).map((values) => Float64Array.from(values)),
      fc.array(fc.option(fc.oneof(few, fc.constantFrom('h1', 'h2'))), { minLength: 40, maxLength: 40 }),
    );
    fc.assert(fc.property(fc.array(column, { maxLength: 3 }), fc.integer({ min: 0, max: 40 }), (columns, rowCount) => {
      const got = keyChanges(columns, rowCount);
      // The row path: each row against the previous one, every column as an array of values.
      const plain = columns.map((c) => Array.from(c as ArrayLike<SqlValue>));
      const want = Array.from({ length: rowCount }, (_v, r) =>
        (r === 0 || plain.some((values) => values[r] !== values[r - 1]) ? 1 : 0));
      assert.deepEqual([...got], want);
    }), { numRuns: 500 });
  });

  it('a scan hands out DOUBLE and TIMESTAMP pages without NULLs as Float64Arrays, copies of the rows', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE m (host STRING, ts TIMESTAMP, v DOUBLE, PRIMARY KEY (host, ts))');
      // h0 holds no NULL; h1 one NULL in its first rows. More rows than a page (SQL_BATCH_ROW_COUNT).
      const rows = ['h0', 'h1'].flatMap((host, h) => Array.from({ length: 700 }, (_v, t) =>
        ({ host, t, v: h === 1 && t === 3 ? null : t / 4 - h })));
      const values = rows.map((r) => `('${r.host}', TO_TIMESTAMP_MS(${r.t * 1000}), ${r.v ?? 'NULL'})`);
      await db.update(`INSERT INTO m VALUES ${values.join(', ')}`);
      const table = db.database.table('m');
      const pages: { columns: readonly SqlColumn[]; rowCount: number }[] = [];
      for await (const page of table.scan({ columnIndexes: [1, 2], from: undefined, to: undefined, rowCountMax: 10_000 })) {
        pages.push(page);
      }
      const read = pages.flatMap((page) => Array.from({ length: page.rowCount }, (_v, r) => [page.columns[0]![r], page.columns[1]![r]]));
      assert.deepEqual(read, rows.map((r) => [r.t * 1000, r.v]));
      for (const page of pages) {
        assert.ok(page.columns[0] instanceof Float64Array, 'TIMESTAMP has no NULL: typed');
        const hasNull = [...page.columns[1]!].includes(null);
        assert.equal(page.columns[1] instanceof Float64Array, !hasNull);
      }
      // The first page, held across a commit that changes its rows, keeps what it read.
      const first = pages[0]!;
      const before = [...first.columns[1]!];
      await db.update("UPDATE m SET v = v + 1000 WHERE host = 'h0'");
      assert.deepEqual([...first.columns[1]!], before);
      const sums = await db.rows('SELECT host, SUM(v), MAX(v), COUNT(v) FROM m WHERE ts >= ? AND v < 1e9 GROUP BY host ORDER BY host',
        [{ type: 'TIMESTAMP', value: 0 }]);
      const model = (host: string, shift: number) => {
        const vs = rows.filter((r) => r.host === host && r.v !== null).map((r) => r.v! + shift);
        return [host, vs.reduce((a, b) => a + b, 0), Math.max(...vs), BigInt(vs.length)];
      };
      assert.deepEqual(sums, [model('h0', 1000), model('h1', 0)]);
    } finally {
      await db.test.store.close();
    }
  });
});
