// The aggregates of §5.8 as accumulators: one per group and aggregate call, fed one value per
// input row (NULLs included: each skips them as its rule says), asked once for the result. Over
// no values COUNT is 0, TOTAL 0.0, the rest NULL. `add` answers the bytes it started to hold, so
// the operator can charge its work memory (MEDIAN, PERCENTILE_CONT, GROUP_CONCAT and DISTINCT
// keep their values). `addRange` takes a run of rows of one group from a batch column at once: the
// common aggregates (COUNT, SUM, TOTAL, AVG, MIN/MAX of numbers) do it in one tight loop with the
// same answer as `add` per row; the others add row by row.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import type { SqlAggregateCall } from '../plan/logical-plan.ts';
import { SQL_FLOATING_TYPES, SQL_INTEGER_TYPES, type SqlType, type SqlValue } from '../value.ts';
import type { SqlColumn } from './evaluate.ts';
import { compareSqlValues, concatText, valueKey, valueSizeBytes } from './value-ops.ts';

export interface SqlAccumulator {
  /** Bytes this value made the accumulator hold (0 for the fixed-size ones). */
  add(value: SqlValue): number;
  /** add(values[r]) for r in [start, end), in order; the bytes held. */
  addRange(values: SqlColumn, start: number, end: number): number;
  result(): SqlValue;
}

/** An accumulator as written below: addRange where a tight loop pays, else row by row. */
type AccumulatorParts = Omit<SqlAccumulator, 'addRange'> & Partial<Pick<SqlAccumulator, 'addRange'>>;

export function createAccumulator(call: SqlAggregateCall, argType: SqlType): SqlAccumulator {
  const inner = baseAccumulator(call, argType);
  return withRange(call.distinct ? distinctOf(withRange(inner)) : inner);
}

function withRange(parts: AccumulatorParts): SqlAccumulator {
  if (parts.addRange !== undefined) return parts as SqlAccumulator;
  const add = parts.add;
  return {
    add, result: parts.result,
    addRange(values, start, end) {
      let bytes = 0;
      for (let r = start; r < end; r++) bytes += add(values[r]!);
      return bytes;
    },
  };
}

function distinctOf(inner: SqlAccumulator): AccumulatorParts {
  const seen = new Set<string>();
  return {
    add(value) {
      if (value === null) return 0;
      const key = valueKey(value);
      if (seen.has(key)) return 0;
      seen.add(key);
      return inner.add(value) + 16 + 2 * key.length;
    },
    result: () => inner.result(),
  };
}

function baseAccumulator(call: SqlAggregateCall, argType: SqlType): AccumulatorParts {
  const integer = SQL_INTEGER_TYPES.has(argType);
  switch (call.name) {
    case 'COUNT': {
      let count = 0n;
      return {
        add: (value) => { if (value !== null) count++; return 0; },
        addRange(values, start, end) {
          // A typed column holds no NULLs (evaluate.ts: SqlColumn).
          if (values instanceof Float64Array) {
            count += BigInt(end - start);
            return 0;
          }
          let n = 0;
          for (let r = start; r < end; r++) if (values[r] !== null) n++;
          count += BigInt(n);
          return 0;
        },
        result: () => count,
      };
    }
    case 'SUM': return integer ? sumLong() : sumDouble(false);
    case 'TOTAL': return sumDouble(true);
    case 'AVG': {
      let sum = 0;
      let count = 0;
      return {
        add(value) {
          if (value !== null) { sum += Number(value); count++; }
          return 0;
        },
        addRange(values, start, end) {
          if (values instanceof Float64Array) {
            sum = sumTyped(values, start, end, sum);
            count += end - start;
            return 0;
          }
          for (let r = start; r < end; r++) {
            const value = values[r]!;
            if (value === null) continue;
            sum += typeof value === 'number' ? value : Number(value);
            count++;
          }
          return 0;
        },
        result: () => (count === 0 ? null : sum / count),
      };
    }
    case 'MIN': case 'MAX': {
      if (SQL_FLOATING_TYPES.has(argType)) return call.name === 'MIN' ? minDouble() : maxDouble();
      const sign = call.name === 'MIN' ? -1 : 1;
      let best: SqlValue = null;
      return {
        add(value) {
          if (value !== null && (best === null || sign * compareSqlValues(value, best) > 0)) best = value;
          return 0;
        },
        result: () => best,
      };
    }
    case 'FIRST': {
      let first: SqlValue = null;
      let seen = false;
      return {
        add(value) {
          if (!seen) { first = value; seen = true; }
          return 0;
        },
        result: () => first,
      };
    }
    case 'GROUP_CONCAT': {
      const parts: string[] = [];
      const separator = call.separator ?? ',';
      return {
        add(value) {
          if (value === null) return 0;
          const text = concatText(value, argType);
          parts.push(text);
          return valueSizeBytes(text);
        },
        result: () => (parts.length === 0 ? null : parts.join(separator)),
      };
    }
    case 'STDDEV_SAMP': case 'STDDEV0': case 'STDDEV_POP':
    case 'VAR_SAMP': case 'VARIANCE0': case 'VAR_POP':
      return variance(call.name);
    case 'MEDIAN': return ordered((sorted) => median(sorted, integer));
    case 'PERCENTILE_CONT': {
      const fraction = call.fraction;
      assert(fraction !== undefined && fraction >= 0 && fraction <= 1);
      return ordered((sorted) => percentile(sorted, fraction));
    }
  }
}

/**
 * MAX over DOUBLE/FLOAT values (numbers or NULL) as compareSqlValues orders them: NaN above
 * every number, the first of equal values (0 and -0) kept.
 */
function maxDouble(): AccumulatorParts {
  return bestDouble(DOUBLE_MAX_PREFERS);
}

const DOUBLE_MAX_PREFERS = (value: number, than: number | null): boolean =>
  than === null || value > than || (value !== value && than === than);
const DOUBLE_MIN_PREFERS = (value: number, than: number | null): boolean =>
  than === null || value < than || (than !== than && value === value);

/**
 * MIN's or MAX's choice between two non-NULL values as its accumulator makes it: true when
 * `value` replaces the kept `than` (so the first of equal values stays). A window's sliding
 * MIN/MAX (window-sliding.ts) keeps its deque by the same rule, so both answer alike.
 */
export function extremePrefers(name: 'MIN' | 'MAX', argType: SqlType): (value: SqlValue, than: SqlValue) => boolean {
  if (SQL_FLOATING_TYPES.has(argType)) {
    const prefers = name === 'MIN' ? DOUBLE_MIN_PREFERS : DOUBLE_MAX_PREFERS;
    return (value, than) => prefers(value as number, than as number);
  }
  const sign = name === 'MIN' ? -1 : 1;
  return (value, than) => sign * compareSqlValues(value, than) > 0;
}

/** MIN over DOUBLE/FLOAT values, the same order: a number replaces a NaN. */
function minDouble(): AccumulatorParts {
  return bestDouble(DOUBLE_MIN_PREFERS);
}

/** Keeps the value `better` prefers over the one kept (null: none yet); NULLs are skipped. */
function bestDouble(better: (value: number, than: number | null) => boolean): AccumulatorParts {
  let best: number | null = null;
  return {
    add(value) {
      if (value !== null && better(value as number, best)) best = value as number;
      return 0;
    },
    addRange(values, start, end) {
      if (values instanceof Float64Array) {
        // A local, written back once: each store of a double into the closure's slot boxes it.
        let kept = best;
        for (let r = start; r < end; r++) {
          const value = values[r]!;
          if (better(value, kept)) kept = value;
        }
        best = kept;
        return 0;
      }
      for (let r = start; r < end; r++) {
        const value = values[r] as number | null;
        if (value !== null && better(value, best)) best = value;
      }
      return 0;
    },
    result: () => best,
  };
}

/**
 * `sum` plus values[start … end - 1], left to right. A loop of its own over a local: a loop adding
 * into an accumulator's closure variable stored a new boxed double (16 bytes of garbage) a row.
 */
function sumTyped(values: Float64Array, start: number, end: number, sum: number): number {
  let total = sum;
  for (let r = start; r < end; r++) total += values[r]!;
  return total;
}

function sumLong(): AccumulatorParts {
  let sum = 0n;
  let any = false;
  return {
    add(value) {
      if (value === null) return 0;
      sum += BigInt(value as number | bigint);
      if (sum > INT64_MAX || sum < INT64_MIN) {
        throw new StorageError('SQL_PROC_VALUE_OVERFLOW', 'integer overflow: SUM is beyond LONG');
      }
      any = true;
      return 0;
    },
    result: () => (any ? sum : null),
  };
}

function sumDouble(total: boolean): AccumulatorParts {
  let sum = 0;
  let any = false;
  return {
    add(value) {
      if (value !== null) { sum += Number(value); any = true; }
      return 0;
    },
    addRange(values, start, end) {
      if (values instanceof Float64Array) {
        sum = sumTyped(values, start, end, sum);
        if (end > start) any = true;
        return 0;
      }
      for (let r = start; r < end; r++) {
        const value = values[r]!;
        if (value === null) continue;
        sum += typeof value === 'number' ? value : Number(value);
        any = true;
      }
      return 0;
    },
    result: () => (any || total ? sum : null),
  };
}

/** Welford's running mean and sum of squared deviations: stable for large values. */
function variance(name: SqlAggregateCall['name']): AccumulatorParts {
  let count = 0;
  let mean = 0;
  let m2 = 0;
  return {
    add(value) {
      if (value === null) return 0;
      const x = Number(value);
      count++;
      const delta = x - mean;
      mean += delta / count;
      m2 += delta * (x - mean);
      return 0;
    },
    result() {
      if (count === 0) return null;
      const population = name === 'STDDEV_POP' || name === 'VAR_POP';
      const zeroForOne = name === 'STDDEV0' || name === 'VARIANCE0';
      let value: number;
      if (population) value = m2 / count;
      else if (count === 1) {
        if (!zeroForOne) return null;
        value = 0;
      } else value = m2 / (count - 1);
      return name.startsWith('STDDEV') ? Math.sqrt(value) : value;
    },
  };
}

function ordered(finish: (sorted: SqlValue[]) => SqlValue): AccumulatorParts {
  const values: SqlValue[] = [];
  return {
    add(value) {
      if (value === null) return 0;
      values.push(value);
      return 8;
    },
    result() {
      if (values.length === 0) return null;
      values.sort(compareSqlValues);
      return finish(values);
    },
  };
}

function median(sorted: SqlValue[], integer: boolean): SqlValue {
  const middle = Math.floor(sorted.length / 2);
  if (integer) {
    const high = BigInt(sorted[middle] as number | bigint);
    if (sorted.length % 2 === 1) return high;
    return (BigInt(sorted[middle - 1] as number | bigint) + high) / 2n;
  }
  const high = Number(sorted[middle]);
  return sorted.length % 2 === 1 ? high : (Number(sorted[middle - 1]) + high) / 2;
}

function percentile(sorted: SqlValue[], fraction: number): number {
  const rank = fraction * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = Number(sorted[low]);
  const b = Number(sorted[high]);
  return a + (b - a) * (rank - low);
}
