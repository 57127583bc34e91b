// Numeric and array functions of TQL (spec/surface.md §3.4).
//
// ROUND rounds half away from zero, FLOOR toward -INF, CEILING toward +INF; all three give a DOUBLE
// and hand back ±0, integers, NaN and ±INF unchanged (as doubles). ROUND never gives -0 for a
// nonzero argument: GridDB's table has ROUND(-0.23) = 0.0 beside CEILING(-0.23) = -0.0.

import { integralOf, toDouble, type Integral } from './arithmetic.ts';
import { tqlEvaluationError } from './error.ts';
import { argumentOfType, type ScalarFunctionSpec } from './function-spec.ts';
import { elementType, isIntegral, isNumeric, TQL_DOUBLE, TQL_LONG, type TqlType } from './types.ts';

function rounding(name: string, round: (value: number) => number): ScalarFunctionSpec {
  return {
    argumentCountMin: 1, argumentCountMax: 1, usage: `${name}(num)`,
    bind(args, context) {
      argumentOfType(args, 0, context, isNumeric, 'a number');
      return {
        type: TQL_DOUBLE,
        impl: (values) => {
          const value = toDouble(values[0] as Integral);
          if (value === 0 || !Number.isFinite(value) || Number.isInteger(value)) return value;
          return round(value);
        },
      };
    },
  };
}

function roundHalfAwayFromZero(value: number): number {
  const rounded = value < 0 ? -Math.round(-value) : Math.round(value);
  return rounded === 0 ? 0 : rounded;
}

const isArray = (type: TqlType) => type.array;

export const OTHER_FUNCTIONS: Record<string, ScalarFunctionSpec> = {
  ROUND: rounding('ROUND', roundHalfAwayFromZero),
  FLOOR: rounding('FLOOR', Math.floor),
  CEILING: rounding('CEILING', Math.ceil),
  ARRAY_LENGTH: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'ARRAY_LENGTH(array)',
    bind(args, context) {
      argumentOfType(args, 0, context, isArray, 'an array');
      return { type: TQL_LONG, impl: (values) => (values[0] as unknown[]).length };
    },
  },
  ELEMENT: {
    argumentCountMin: 2, argumentCountMax: 2, usage: 'ELEMENT(n, array)',
    bind(args, context) {
      argumentOfType(args, 0, context, isIntegral, 'an integer (0-based position)');
      const arrayType = argumentOfType(args, 1, context, isArray, 'an array');
      const { position } = context;
      const long = arrayType.scalar === 'LONG';
      return {
        type: elementType(arrayType),
        impl: (values) => {
          const index = values[0] as Integral;
          const array = values[1] as readonly unknown[];
          if (index < 0 || index >= array.length) {
            throw tqlEvaluationError(`ELEMENT(${index}, ...): no such element in an array of ` +
              `${array.length}`, position);
          }
          const element = array[Number(index)] as number | bigint | string | boolean;
          // A LONG element is an integer like any other (a number when safe); a TIMESTAMP(ns)
          // stays a bigint.
          return long ? integralOf(BigInt(element as bigint)) : element;
        },
      };
    },
  },
};
