// The accumulators' addRange (lib/sql/exec/aggregates.ts) against add row by row: random
// columns with NULLs, NaN, ±0, infinities and duplicates, cut into random runs, must give the
// same result, bit for bit. MIN/MAX of DOUBLE take their own loop: they are checked against the
// compareSqlValues accumulator every other type uses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createAccumulator } from '../../../../lib/sql/exec/aggregates.ts';
import type { SqlAggregateCall } from '../../../../lib/sql/plan/logical-plan.ts';
import type { SqlType, SqlValue } from '../../../../lib/sql/value.ts';

const doubles = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, 0, -0, Infinity, -Infinity) },
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }).map((n) => n / 2) },
  { weight: 2, arbitrary: fc.double({ noNaN: true }) },
);

/** A column and the cuts that split it into runs (sorted, inside it). */
const columnAndCuts = fc.array(doubles, { maxLength: 60 }).chain((values) =>
  fc.uniqueArray(fc.integer({ min: 0, max: values.length }), { maxLength: 8 })
    .map((cuts) => ({ values, cuts: [...cuts].sort((a, b) => a - b) })));

function call(name: SqlAggregateCall['name'], distinct = false): SqlAggregateCall {
  return { name, args: [], distinct, type: 'DOUBLE' };
}

function byRuns(aggregate: SqlAggregateCall, argType: SqlType, values: readonly SqlValue[],
  cuts: readonly number[]): SqlValue {
  const accumulator = createAccumulator(aggregate, argType);
  const bounds = [0, ...cuts, values.length];
  for (let i = 0; i + 1 < bounds.length; i++) accumulator.addRange(values, bounds[i]!, bounds[i + 1]!);
  return accumulator.result();
}

function byRows(aggregate: SqlAggregateCall, argType: SqlType, values: readonly SqlValue[]): SqlValue {
  const accumulator = createAccumulator(aggregate, argType);
  for (const value of values) accumulator.add(value);
  return accumulator.result();
}

describe('SQL accumulators a run at a time', () => {
  it('COUNT, SUM, TOTAL, AVG, STDDEV and DISTINCT forms: addRange over runs equals add per row', () => {
    fc.assert(fc.property(columnAndCuts, ({ values, cuts }) => {
      for (const aggregate of [call('COUNT'), call('SUM'), call('TOTAL'), call('AVG'), call('STDDEV_SAMP'),
        call('COUNT', true), call('SUM', true), call('MEDIAN')]) {
        assert.ok(Object.is(byRuns(aggregate, 'DOUBLE', values, cuts), byRows(aggregate, 'DOUBLE', values)) ||
          byRuns(aggregate, 'DOUBLE', values, cuts) === byRows(aggregate, 'DOUBLE', values), aggregate.name);
      }
    }), { numRuns: 300 });
  });

  it('MIN and MAX of DOUBLE: NaN above every number, the first of 0 and -0, as compareSqlValues orders', () => {
    fc.assert(fc.property(columnAndCuts, ({ values, cuts }) => {
      for (const name of ['MIN', 'MAX'] as const) {
        // 'UNKNOWN' takes the compareSqlValues accumulator: the reference.
        const expected = byRows(call(name), 'UNKNOWN', values);
        assert.ok(Object.is(byRuns(call(name), 'DOUBLE', values, cuts), expected), `${name} by runs`);
        assert.ok(Object.is(byRows(call(name), 'DOUBLE', values), expected), `${name} by rows`);
        assert.ok(Object.is(byRuns(call(name), 'FLOAT', values, cuts), expected), `${name} of FLOAT`);
      }
    }), { numRuns: 300 });
  });

  it('COUNT of integers and SUM of LONG by runs', () => {
    const longs = fc.array(fc.oneof(fc.constant(null), fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n })),
      { maxLength: 40 });
    fc.assert(fc.property(longs, fc.integer({ min: 0, max: 40 }), (values, cut) => {
      const cuts = [Math.min(cut, values.length)];
      for (const name of ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX'] as const) {
        assert.equal(byRuns(call(name), 'LONG', values, cuts), byRows(call(name), 'LONG', values), name);
      }
    }), { numRuns: 200 });
  });
});
