// Aggregates of the select list (spec/surface.md §3.5): COUNT, SUM, AVG, MIN, MAX, VARIANCE,
// STDDEV and the _SAMP/_POP forms GridDB registers. NULLs are skipped (COUNT(*) counts rows).
//
// Result types: COUNT → LONG; SUM → LONG over integer columns, DOUBLE over floating ones;
// AVG, VARIANCE, STDDEV → DOUBLE; MIN, MAX → the column's type. A LONG result is a bigint.
// Integer sums are exact (bigint); a sum that does not fit a LONG is VALUE_OUT_OF_RANGE rather
// than a wrapped value. AVG of integers divides the exact sum. VARIANCE and STDDEV are sample
// statistics (÷ (n − 1)), 0 for one value; the _POP forms divide by n. MIN and MAX order NaN
// above every number.
//
// With nothing to aggregate the result is "no row" (null), except COUNT, which is 0. GridDB's
// manual says SUM gives a row then too; its server code gives none, and store follows the code.

import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import { compareDoubles, compareIntegrals, toDouble, type Integral } from './arithmetic.ts';
import type { TqlCall } from './ast.ts';
import type { Binder } from './bind.ts';
import { TqlError, tqlSemanticError, type TqlPosition } from './error.ts';
import type { AggregateFunction } from './functions.ts';
import {
  isFloating, isIntegral, isNumeric, isTimestamp, TQL_DOUBLE, TQL_LONG, typeName, type TqlType,
  type TqlValue,
} from './types.ts';

export interface AggregateSpec {
  readonly function: AggregateFunction;
  /** undefined for COUNT(*). */
  readonly columnIndex: number | undefined;
  readonly columnType: TqlType | undefined;
  readonly resultType: TqlType;
  readonly position: TqlPosition;
}

/**
 * Takes the aggregated column's values one by one (COUNT(*) takes a value per row, any value) and
 * gives the aggregate. Values come from rows or straight from columnar batches.
 */
export interface Accumulator {
  add(value: TqlValue): void;
  /** The aggregate, or null when there was nothing to aggregate. */
  result(): number | bigint | null;
}

/** Checks `F(column)` of the select list. */
export function bindAggregate(call: TqlCall, fn: AggregateFunction, binder: Binder): AggregateSpec {
  const position = call.position;
  if (fn === 'COUNT' && call.star && call.args.length === 0) {
    return {
      function: fn, columnIndex: undefined, columnType: undefined, resultType: TQL_LONG, position,
    };
  }
  const argument = call.args[0];
  if (call.star || call.args.length !== 1 || argument?.kind !== 'name') {
    const usage = fn === 'COUNT' ? 'COUNT(*) or COUNT(column)' : `${fn}(column)`;
    throw tqlSemanticError(`${fn} takes one column name: ${usage}`, argument?.position ?? position);
  }
  const column = binder.column(argument);
  const type = column.type;
  const accepted = fn === 'COUNT' ? true
    : fn === 'MIN' || fn === 'MAX' ? isNumeric(type) || isTimestamp(type)
      : isNumeric(type);
  if (!accepted) {
    const what = fn === 'MIN' || fn === 'MAX'
      ? 'a numeric or TIMESTAMP column' : 'a numeric column';
    throw tqlSemanticError(`${fn} needs ${what}, not column ${argument.name} (${typeName(type)})`,
      argument.position);
  }
  const resultType = fn === 'COUNT' ? TQL_LONG
    : fn === 'MIN' || fn === 'MAX' ? type
      : fn === 'SUM' ? (isIntegral(type) ? TQL_LONG : TQL_DOUBLE)
        : TQL_DOUBLE;
  return { function: fn, columnIndex: column.columnIndex, columnType: type, resultType, position };
}

export function createAccumulator(spec: AggregateSpec): Accumulator {
  const type = spec.columnType;
  if (spec.columnIndex === undefined || type === undefined) return countRows();
  switch (spec.function) {
    case 'COUNT': return countValues();
    case 'SUM': return isIntegral(type) ? integralSum(spec.position) : floatingSum();
    case 'AVG': return isIntegral(type) ? integralAverage() : floatingAverage();
    case 'MIN': case 'MAX': return extreme(type, spec.function);
    case 'VARIANCE': case 'VARIANCE_SAMP': return moments('variance', 1);
    case 'STDDEV': case 'STDDEV_SAMP': return moments('deviation', 1);
    case 'VARIANCE_POP': return moments('variance', 0);
    case 'STDDEV_POP': return moments('deviation', 0);
  }
}

function countRows(): Accumulator {
  let count = 0;
  return { add: () => { count++; }, result: () => BigInt(count) };
}

function countValues(): Accumulator {
  let count = 0;
  return {
    add: (value) => { if (value !== null) count++; },
    result: () => BigInt(count),
  };
}

/**
 * An exact integer sum: small values add up in a double while it stays exact (below 2^52 in
 * size), then move to a bigint; LONG values (bigints) go to the bigint directly.
 */
class ExactSum {
  private small = 0;
  private big = 0n;
  count = 0;

  add(value: Integral): void {
    this.count++;
    if (typeof value === 'bigint') {
      this.big += value;
      return;
    }
    this.small += value;
    if (this.small > 2 ** 52 || this.small < -(2 ** 52)) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
  }

  total(): bigint {
    return this.big + BigInt(this.small);
  }
}

function integralSum(position: TqlPosition): Accumulator {
  const sum = new ExactSum();
  return {
    add: (value) => {
      if (value !== null) sum.add(value as Integral);
    },
    result: () => {
      if (sum.count === 0) return null;
      const total = sum.total();
      if (total < INT64_MIN || total > INT64_MAX) {
        throw new TqlError('VALUE_OUT_OF_RANGE', `SUM is ${total}, beyond the LONG range`,
          position);
      }
      return total;
    },
  };
}

function integralAverage(): Accumulator {
  const sum = new ExactSum();
  return {
    add: (value) => {
      if (value !== null) sum.add(value as Integral);
    },
    result: () => {
      if (sum.count === 0) return null;
      const total = sum.total();
      const count = BigInt(sum.count);
      // Whole part and remainder apart: exact up to the last rounding of a huge sum.
      return Number(total / count) + Number(total % count) / sum.count;
    },
  };
}

function floatingSum(): Accumulator {
  let sum = 0;
  let count = 0;
  return {
    add: (value) => {
      if (value === null) return;
      sum += value as number;
      count++;
    },
    result: () => (count === 0 ? null : sum),
  };
}

function floatingAverage(): Accumulator {
  let sum = 0;
  let count = 0;
  return {
    add: (value) => {
      if (value === null) return;
      sum += value as number;
      count++;
    },
    result: () => (count === 0 ? null : sum / count),
  };
}

function extreme(type: TqlType, fn: 'MIN' | 'MAX'): Accumulator {
  const order = isFloating(type)
    ? (a: TqlValue, b: TqlValue) => compareDoubles(a as number, b as number)
    : (a: TqlValue, b: TqlValue) => compareIntegrals(a as Integral, b as Integral);
  const sign = fn === 'MIN' ? -1 : 1;
  let best: TqlValue = null;
  return {
    add: (value) => {
      if (value === null) return;
      if (best === null || sign * order(value, best) > 0) best = value;
    },
    result: () => best as number | bigint | null,
  };
}

/** Welford's running mean and sum of squared deviations: stable where naive sums are not. */
function moments(result: 'variance' | 'deviation', sampleCorrection: 0 | 1): Accumulator {
  let count = 0;
  let mean = 0;
  let squares = 0;
  return {
    add: (value) => {
      if (value === null) return;
      const x = toDouble(value as Integral);
      count++;
      const delta = x - mean;
      mean += delta / count;
      squares += delta * (x - mean);
    },
    result: () => {
      if (count === 0) return null;
      const variance = count === 1 ? 0 : squares / (count - sampleCorrection);
      return result === 'variance' ? variance : Math.sqrt(variance);
    },
  };
}
