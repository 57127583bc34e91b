// The aggregates of §5.8 as accumulators: one per group and aggregate call, fed one value per
// input row (NULLs included: each skips them as its rule says), asked once for the result. Over
// no values COUNT is 0, TOTAL 0.0, the rest NULL. `add` answers the bytes it started to hold, so
// the operator can charge its work memory (MEDIAN, PERCENTILE_CONT, GROUP_CONCAT and DISTINCT
// keep their values).

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import type { SqlAggregateCall } from '../plan/logical-plan.ts';
import { SQL_INTEGER_TYPES, type SqlType, type SqlValue } from '../value.ts';
import { compareSqlValues, concatText, valueKey, valueSizeBytes } from './value-ops.ts';

export interface SqlAccumulator {
  /** Bytes this value made the accumulator hold (0 for the fixed-size ones). */
  add(value: SqlValue): number;
  result(): SqlValue;
}

export function createAccumulator(call: SqlAggregateCall, argType: SqlType): SqlAccumulator {
  const inner = baseAccumulator(call, argType);
  return call.distinct ? distinctOf(inner) : inner;
}

function distinctOf(inner: SqlAccumulator): SqlAccumulator {
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

function baseAccumulator(call: SqlAggregateCall, argType: SqlType): SqlAccumulator {
  const integer = SQL_INTEGER_TYPES.has(argType);
  switch (call.name) {
    case 'COUNT': {
      let count = 0n;
      return { add: (value) => { if (value !== null) count++; return 0; }, result: () => count };
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
        result: () => (count === 0 ? null : sum / count),
      };
    }
    case 'MIN': case 'MAX': {
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

function sumLong(): SqlAccumulator {
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

function sumDouble(total: boolean): SqlAccumulator {
  let sum = 0;
  let any = false;
  return {
    add(value) {
      if (value !== null) { sum += Number(value); any = true; }
      return 0;
    },
    result: () => (any || total ? sum : null),
  };
}

/** Welford's running mean and sum of squared deviations: stable for large values. */
function variance(name: SqlAggregateCall['name']): SqlAccumulator {
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

function ordered(finish: (sorted: SqlValue[]) => SqlValue): SqlAccumulator {
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
