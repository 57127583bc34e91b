// Numbers while a query runs: integer arithmetic with LONG (int64) semantics over values that are a
// number when small and a bigint otherwise, comparisons with GridDB's NaN rule, and TIMESTAMP unit
// conversion.
//
// An integral result is a number whenever it is a safe integer and a bigint otherwise; an overflow
// of int64 wraps around, as the C++ arithmetic of GridDB does (its manual calls the value
// "undefined"). Floating point follows IEEE 754: x/0 is ±INF, 0/0 NaN.

import { assert } from '../../base/assert.ts';
import type { TimePrecision } from '../../schema/column-type.ts';
import { tqlEvaluationError, type TqlPosition } from './error.ts';
import { unitsPerMs } from './types.ts';

export type Integral = number | bigint;

/** The canonical shape of an integer: a number if it is safe, else a bigint. */
export function integralOf(value: bigint): Integral {
  return value >= -0x1f_ffff_ffff_ffffn && value <= 0x1f_ffff_ffff_ffffn ? Number(value) : value;
}

function wrap(value: bigint): Integral {
  return integralOf(BigInt.asIntN(64, value));
}

export function integralAdd(a: Integral, b: Integral): Integral {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return wrap(BigInt(a) + BigInt(b));
}

export function integralSubtract(a: Integral, b: Integral): Integral {
  if (typeof a === 'number' && typeof b === 'number') {
    const difference = a - b;
    if (Number.isSafeInteger(difference)) return difference;
  }
  return wrap(BigInt(a) - BigInt(b));
}

export function integralMultiply(a: Integral, b: Integral): Integral {
  if (typeof a === 'number' && typeof b === 'number') {
    // Exact whenever the true product is a safe integer: a double holds every such integer.
    const product = a * b;
    if (Number.isSafeInteger(product)) return product === 0 ? 0 : product;
  }
  return wrap(BigInt(a) * BigInt(b));
}

/** Truncates toward zero, as C. */
export function integralDivide(a: Integral, b: Integral, position: TqlPosition): Integral {
  if (b == 0) throw tqlEvaluationError('integer division by zero', position);
  if (typeof a === 'number' && typeof b === 'number') {
    // a % b is exact for doubles, so a - a % b is an exact multiple of b and the quotient exact.
    const quotient = (a - (a % b)) / b;
    return quotient === 0 ? 0 : quotient;
  }
  return wrap(BigInt(a) / BigInt(b));
}

/** The remainder has the sign of the dividend, as C. */
export function integralRemainder(a: Integral, b: Integral, position: TqlPosition): Integral {
  if (b == 0) throw tqlEvaluationError('integer remainder of a division by zero', position);
  if (typeof a === 'number' && typeof b === 'number') {
    const remainder = a % b;
    return remainder === 0 ? 0 : remainder;
  }
  return wrap(BigInt(a) % BigInt(b));
}

export function integralNegate(a: Integral): Integral {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  return wrap(-a);
}

export function integralBitAnd(a: Integral, b: Integral): Integral {
  return wrap(BigInt.asIntN(64, BigInt(a)) & BigInt.asIntN(64, BigInt(b)));
}

export function integralBitOr(a: Integral, b: Integral): Integral {
  return wrap(BigInt.asIntN(64, BigInt(a)) | BigInt.asIntN(64, BigInt(b)));
}

/**
 * Shifts of 64 bits or more give 0 (or -1 shifting a negative number right); a negative count
 * shifts the other way.
 */
export function integralShift(a: Integral, bits: Integral, direction: 'left' | 'right'): Integral {
  const count = BigInt(bits);
  const left = direction === 'left' ? count >= 0n : count < 0n;
  const magnitude = count < 0n ? -count : count;
  const value = BigInt(a);
  if (magnitude >= 64n) return left ? 0 : (value < 0n ? -1 : 0);
  return wrap(left ? value << magnitude : value >> magnitude);
}

/** A numeric value (number or bigint) as a double. */
export function toDouble(value: Integral): number {
  return typeof value === 'number' ? value : Number(value);
}

/** GridDB's rule: NaN equals NaN and is greater than every other value. */
export function doubleEquals(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** Orders doubles with NaN greatest (and equal to itself); -0 equals 0. */
export function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const aNaN = a !== a;
  const bNaN = b !== b;
  return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
}

/** Orders integral values exactly, whichever of number and bigint each is. */
export function compareIntegrals(a: Integral, b: Integral): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A TIMESTAMP value in the units of another precision, exactly, as a bigint. */
export function timeInUnits(
  value: number | bigint,
  from: TimePrecision | undefined,
  to: TimePrecision | undefined,
): bigint {
  const scale = unitsPerMs(to) / unitsPerMs(from);
  assert(Number.isInteger(scale) && scale >= 1, 'time conversion to a coarser precision');
  return BigInt(value) * BigInt(scale);
}
