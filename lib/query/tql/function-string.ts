// String functions of TQL (spec/surface.md §3.4). Lengths and positions count characters (Unicode
// code points), not UTF-16 code units; UPPER and LOWER change ASCII letters only.

import { toDouble, type Integral } from './arithmetic.ts';
import { tqlEvaluationError } from './error.ts';
import { argumentOfType, type ScalarFunctionSpec } from './function-spec.ts';
import { isIntegral, isScalarOf, TQL_LONG, TQL_STRING, type TqlValue } from './types.ts';

const SURROGATE = /[\uD800-\uDFFF]/;
const isString = (type: Parameters<typeof isIntegral>[0]) => isScalarOf(type, 'STRING');

export function characterCount(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Characters [start, start + length) of a string, counting from 0. */
function characterSlice(text: string, start: number, length: number): string {
  if (!SURROGATE.test(text)) return text.substring(start, start + length);
  return Array.from(text).slice(start, start + length).join('');
}

export const STRING_FUNCTIONS: Record<string, ScalarFunctionSpec> = {
  CHAR_LENGTH: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'CHAR_LENGTH(str)',
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      return { type: TQL_LONG, impl: (values) => characterCount(values[0] as string) };
    },
  },
  CONCAT: {
    argumentCountMin: 1, argumentCountMax: Number.POSITIVE_INFINITY,
    usage: 'CONCAT(str1, str2, ...)',
    bind(args, context) {
      args.forEach((_, i) => argumentOfType(args, i, context, isString, 'a STRING'));
      // NULL arguments are skipped, not propagated (GridDB's rule for CONCAT).
      return {
        type: TQL_STRING,
        nullPropagating: false,
        impl: (values) => {
          let text = '';
          for (const value of values) if (value !== null) text += value as string;
          return text;
        },
      };
    },
  },
  SUBSTRING: {
    argumentCountMin: 2, argumentCountMax: 3, usage: 'SUBSTRING(str, start[, length])',
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      argumentOfType(args, 1, context, isIntegral, 'an integer');
      if (args.length === 3) argumentOfType(args, 2, context, isIntegral, 'an integer');
      const { position } = context;
      return {
        type: TQL_STRING,
        impl: (values: readonly TqlValue[]) => {
          const text = values[0] as string;
          const start = toDouble(values[1] as Integral);
          if (start < 1) {
            throw tqlEvaluationError(`the start of SUBSTRING must be 1 or more, not ${start}`,
              position);
          }
          const length = values.length === 3
            ? toDouble(values[2] as Integral) : Number.POSITIVE_INFINITY;
          if (length < 0) {
            throw tqlEvaluationError(`the length of SUBSTRING must be 0 or more, not ${length}`,
              position);
          }
          if (start > text.length) return '';
          return characterSlice(text, start - 1, Math.min(length, text.length));
        },
      };
    },
  },
  UPPER: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'UPPER(str)',
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      return {
        type: TQL_STRING,
        impl: (values) => (values[0] as string).replace(/[a-z]+/g, (run) => run.toUpperCase()),
      };
    },
  },
  LOWER: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'LOWER(str)',
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      return {
        type: TQL_STRING,
        impl: (values) => (values[0] as string).replace(/[A-Z]+/g, (run) => run.toLowerCase()),
      };
    },
  },
};
