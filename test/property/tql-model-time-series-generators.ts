// Arbitraries of the time-series functions for the TQL model test: TIME_NEXT and the like,
// TIME_INTERPOLATED, TIME_SAMPLING (`*` or a column, SECOND or MILLISECOND intervals), TIME_AVG,
// MAX_ROWS and MIN_ROWS, on any column of any schema, so that wrong uses (a collection, a
// non-numeric column) are generated too. Times fall on, between, before and after the keys, and
// are sometimes NULL.

import fc from 'fast-check';
import type { ModelSchema } from './tql-model-generators.ts';
import { T0 } from './tql-model-generators.ts';
import type { RefTimeSeries } from './tql-reference-time-series.ts';

export interface TimeSeriesCall {
  ref: RefTimeSeries;
  /** The select list, column names as `names` spell them. */
  text: string;
}

/** A time in ms around the keys (0..130 s after T0), as TQL text, or NULL. */
const timeArbitrary: fc.Arbitrary<{ value: bigint | null; text: string }> = fc.oneof(
  // Half on the 1-s grid of the few-row keys, so that times often fall on a key.
  { weight: 12, arbitrary: fc.oneof(fc.integer({ min: -2, max: 135 }).map((k) => 4 * k),
    fc.integer({ min: -8, max: 540 })).map((k) => {
    const ms = T0 + k * 250;
    const text = k % 2 === 0 ? `TIMESTAMP('${new Date(ms).toISOString()}')`
      : `TO_TIMESTAMP_MS(${ms})`;
    return { value: BigInt(ms), text };
  }) },
  { weight: 1, arbitrary: fc.constant({ value: null, text: 'NULL' }) },
);

export function timeSeriesCallArbitrary(
  schema: ModelSchema,
  names: readonly string[],
): fc.Arbitrary<TimeSeriesCall> {
  const onSeries = schema.keyKind === 'series';
  const valueIndexes = schema.columns.map((_, i) => i).slice(schema.keyColumnCount);
  const column = fc.constantFrom(...valueIndexes);
  const quoted = (index: number) => `"${names[index]}"`;
  const find = fc
    .tuple(fc.constantFrom('TIME_NEXT', 'TIME_NEXT_ONLY', 'TIME_PREV', 'TIME_PREV_ONLY' as const),
      timeArbitrary)
    .map(([fn, time]): TimeSeriesCall => ({
      ref: { onSeries, fn, time: time.value },
      text: `${fn}(*, ${time.text})`,
    }));
  const interpolated = fc.tuple(column, timeArbitrary).map(([index, time]): TimeSeriesCall => ({
    ref: {
      onSeries, fn: 'TIME_INTERPOLATED', index, type: schema.columns[index]!.type,
      time: time.value,
    },
    text: `TIME_INTERPOLATED(${quoted(index)}, ${time.text})`,
  }));
  const sampling = fc
    .tuple(
      fc.option(column, { nil: undefined }),
      timeArbitrary,
      fc.integer({ min: -2, max: 200 }),
      fc.oneof(
        fc.integer({ min: 1, max: 3 }).map((n) => ({ n, unit: 'SECOND', ms: 1000 })),
        fc.integer({ min: 1, max: 6 }).map((n) => ({ n: n * 250, unit: 'MILLISECOND', ms: 1 })),
      ),
    )
    .map(([index, start, span, interval]): TimeSeriesCall => {
      // end = start + span × 250 ms; a NULL start stands for itself, its end is any time.
      const end = (start.value ?? BigInt(T0)) + BigInt(span * 250);
      return {
        ref: {
          onSeries, fn: 'TIME_SAMPLING', index,
          type: index === undefined ? undefined : schema.columns[index]!.type,
          start: start.value, end, intervalMs: BigInt(interval.n * interval.ms),
        },
        text: `TIME_SAMPLING(${index === undefined ? '*' : quoted(index)}, ${start.text}, ` +
          `TO_TIMESTAMP_MS(${end}), ${interval.n}, ${interval.unit})`,
      };
    });
  const columnFunction = fc
    .tuple(fc.constantFrom('TIME_AVG', 'MAX_ROWS', 'MIN_ROWS' as const), column)
    .map(([fn, index]): TimeSeriesCall => ({
      ref: { onSeries, fn, index },
      text: `${fn}(${quoted(index)})`,
    }));
  return fc.oneof(find, find, interpolated, interpolated, sampling, sampling, columnFunction,
    columnFunction);
}
