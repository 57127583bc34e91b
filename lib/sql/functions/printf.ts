// PRINTF(format, ...) (§5.8): C's printf as SQLite's SQL has it.
//
//   %[flags][width][.precision]conversion     flags: - + space 0 #
//   d i u: integer   f e E g G: double   x X o: integer as unsigned 64 bits   c: first character
//   s: the value as text   q: text with ' doubled   Q: q in quotes, NULL as NULL   %%: %
//
// Arguments convert as SQLite converts them: a number for %s is its text, text for %d is read as
// a number (0 when it is not one), NULL is 0 for numbers and '' for %s. Missing arguments count
// as NULL. A conversion letter outside the list is SQL_PROC_INVALID_EXPRESSION_INPUT; a width or
// precision past SQL_FUNCTION_VALUE_BYTES_MAX is LIMIT_EXCEEDED.

import { StorageError } from '../../base/errors.ts';
import { SQL_FUNCTION_VALUE_BYTES_MAX } from '../../base/limits.ts';
import type { SqlType, SqlValue } from '../value.ts';
import { invalidInput, isStringType, problem, LONG_MAX, LONG_MIN } from './function-kit.ts';
import type { SqlEvalContext, SqlScalarFunction } from './scalar-function.ts';
import { checkedText } from './string.ts';
import { valueText } from './value-text.ts';

const SPEC = /%([-+ 0#]*)(\d*)(?:\.(\d*))?([a-zA-Z%])?/y;
const DEFAULT_PRECISION = 6;

interface Spec {
  readonly left: boolean;
  readonly plus: boolean;
  readonly space: boolean;
  readonly zero: boolean;
  readonly alternate: boolean;
  readonly width: number;
  readonly precision: number | undefined;
}

function asText(value: SqlValue, type: SqlType, context: SqlEvalContext): string | null {
  if (value === null) return null;
  return valueText(value, type, context.timeZoneOffsetMinutes);
}

function asInteger(value: SqlValue): bigint {
  if (value === null) return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 0n;
    if (value >= 2 ** 63) return LONG_MAX;
    if (value < -(2 ** 63)) return LONG_MIN;
    return BigInt(Math.trunc(value));
  }
  if (typeof value === 'string') {
    const match = /^\s*([+-]?\d+)/.exec(value);
    if (match === null) return 0n;
    const integer = BigInt(match[1]!);
    return integer > LONG_MAX ? LONG_MAX : integer < LONG_MIN ? LONG_MIN : integer;
  }
  return 0n;
}

function asDouble(value: SqlValue): number {
  if (value === null) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const match = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(value);
    return match === null ? 0 : Number(match[0]);
  }
  return 0;
}

function pad(body: string, sign: string, spec: Spec, numeric: boolean): string {
  const length = sign.length + body.length;
  if (spec.width <= length) return sign + body;
  const fill = spec.width - length;
  if (spec.left) return sign + body + ' '.repeat(fill);
  if (spec.zero && numeric) return sign + '0'.repeat(fill) + body;
  return ' '.repeat(fill) + sign + body;
}

function signOf(negative: boolean, spec: Spec): string {
  return negative ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
}

/** C's %e mantissa and exponent: 1.500000e+02. */
function exponential(value: number, precision: number, upper: boolean): string {
  const [mantissa, exponent] = value.toExponential(precision).split('e') as [string, string];
  const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
  const text = `${mantissa}e${exponent.startsWith('-') ? '-' : '+'}${digits}`;
  return upper ? text.toUpperCase() : text;
}

function fixed(value: number, precision: number): string {
  if (value < 1e21) return value.toFixed(precision);
  const whole = BigInt(value).toString();
  return precision === 0 ? whole : `${whole}.${'0'.repeat(precision)}`;
}

function general(value: number, spec: Spec, upper: boolean): string {
  const precision = spec.precision === undefined ? DEFAULT_PRECISION
    : Math.max(spec.precision, 1);
  const exponent = value === 0 ? 0 : Number(value.toExponential(precision - 1).split('e')[1]);
  let text = exponent < -4 || exponent >= precision
    ? exponential(value, precision - 1, upper)
    : fixed(value, precision - 1 - exponent);
  if (!spec.alternate) {
    const [mantissa, exponentText] = text.split(/(?=[eE])/) as [string, string | undefined];
    const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '')
      : mantissa;
    text = trimmed + (exponentText ?? '');
  }
  return text;
}

function formatDouble(value: number, conversion: string, spec: Spec): string {
  if (Number.isNaN(value)) return pad('NaN', '', spec, false);
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  const sign = signOf(negative, spec);
  if (magnitude === Infinity) return pad('Inf', sign, spec, false);
  const precision = spec.precision ?? DEFAULT_PRECISION;
  const body = conversion === 'f' || conversion === 'F' ? fixed(magnitude, precision)
    : conversion === 'e' || conversion === 'E' ? exponential(magnitude, precision, conversion === 'E')
    : general(magnitude, spec, conversion === 'G');
  return pad(body, sign, spec, true);
}

function formatInteger(value: bigint, conversion: string, spec: Spec): string {
  if (conversion === 'd' || conversion === 'i' || conversion === 'u') {
    let digits = (value < 0n ? -value : value).toString();
    if (spec.precision !== undefined) digits = digits.padStart(spec.precision, '0');
    return pad(digits, signOf(value < 0n, spec), spec, spec.precision === undefined);
  }
  const unsigned = value < 0n ? value + 2n ** 64n : value;
  let digits = unsigned.toString(conversion === 'o' ? 8 : 16);
  if (conversion === 'X') digits = digits.toUpperCase();
  if (spec.precision !== undefined) digits = digits.padStart(spec.precision, '0');
  const prefix = spec.alternate && unsigned !== 0n
    ? (conversion === 'o' ? '0' : conversion === 'x' ? '0x' : '0X') : '';
  return pad(digits, prefix, spec, spec.precision === undefined);
}

function truncated(text: string, spec: Spec): string {
  if (spec.precision === undefined) return text;
  return Array.from(text).slice(0, spec.precision).join('');
}

export function sqlPrintf(
  format: string,
  args: readonly SqlValue[],
  argTypes: readonly SqlType[],
  context: SqlEvalContext,
): string {
  let out = '';
  let argIndex = 0;
  const next = (): [SqlValue, SqlType] => {
    const index = argIndex++;
    return index < args.length ? [args[index]!, argTypes[index]!] : [null, 'UNKNOWN'];
  };
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf('%', i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    SPEC.lastIndex = percent;
    const match = SPEC.exec(format)!;
    i = SPEC.lastIndex;
    const [, flags = '', width = '', precision, conversion] = match;
    if (conversion === undefined) break; // a lone % at the end prints nothing, as in SQLite
    const spec: Spec = {
      left: flags.includes('-'), plus: flags.includes('+'), space: flags.includes(' '),
      zero: flags.includes('0'), alternate: flags.includes('#'),
      width: width === '' ? 0 : Number(width),
      precision: precision === undefined ? undefined : Number(precision || '0'),
    };
    if (spec.width > SQL_FUNCTION_VALUE_BYTES_MAX ||
      (spec.precision ?? 0) > SQL_FUNCTION_VALUE_BYTES_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `PRINTF: the width or precision in '${match[0]}' ` +
        `is over ${SQL_FUNCTION_VALUE_BYTES_MAX}`);
    }
    if (conversion === '%') {
      out += '%';
      continue;
    }
    const [value, type] = next();
    if ('diu'.includes(conversion) || 'xXo'.includes(conversion)) {
      out += formatInteger(asInteger(value), conversion, spec);
    } else if ('fFeEgG'.includes(conversion)) {
      out += formatDouble(asDouble(value), conversion, spec);
    } else if (conversion === 'c') {
      out += pad(Array.from(asText(value, type, context) ?? '')[0] ?? '', '', spec, false);
    } else if (conversion === 's' || conversion === 'z') {
      out += pad(truncated(asText(value, type, context) ?? '', spec), '', spec, false);
    } else if (conversion === 'q' || conversion === 'Q') {
      const text = asText(value, type, context);
      const body = text === null ? (conversion === 'Q' ? 'NULL' : '(NULL)')
        : conversion === 'Q' ? `'${truncated(text, spec).replaceAll("'", "''")}'`
        : truncated(text, spec).replaceAll("'", "''");
      out += pad(body, '', spec, false);
    } else {
      throw invalidInput(`PRINTF: '%${conversion}' is not a conversion`);
    }
    checkedText(out, 'PRINTF');
  }
  return checkedText(out, 'PRINTF');
}

export const PRINTF: SqlScalarFunction = {
  name: 'PRINTF', minArgs: 1, maxArgs: Infinity,
  resultType: (argTypes) => (argTypes[0] === 'UNKNOWN' || isStringType(argTypes[0]!)
    ? 'STRING' : problem(`PRINTF: the format must be a STRING, not ${argTypes[0]}`)),
  evaluate(args, argTypes, context) {
    const format = args[0];
    if (format === null || format === undefined) return null;
    return sqlPrintf(format as string, args.slice(1), argTypes.slice(1), context);
  },
};
