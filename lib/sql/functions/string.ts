// The string scalar functions of §5.8 (PRINTF is printf.ts). Strings are counted in Unicode code
// points, never UTF-16 units; BLOBs in bytes. LOWER and UPPER change ASCII letters only. Where the
// spec is silent the rules are SQLite's, which GridDB's SQL follows:
//   SUBSTR(x, start[, length]): start 1 is the first character, a negative start counts from the
//     end, start 0 is one before the first; a negative length takes the characters before start.
//   INSTR(x, search[, offset[, occurrence]]): 1-based position, 0 when absent; a negative offset
//     searches backwards from that position from the end; offset 0 finds nothing; occurrence ≥ 1.
//   TRIM family: the default set is the space character; REPLACE with an empty search returns x.
//   UNICODE(''): NULL. CHAR(n...): a code point outside 0…0x10FFFF or a surrogate gives U+FFFD.
//   TRANSLATE(x, from, to): the first mapping of a character wins; characters of `from` past the
//     end of `to` are deleted.

import { StorageError } from '../../base/errors.ts';
import { SQL_FUNCTION_VALUE_BYTES_MAX } from '../../base/limits.ts';
import type { SqlType } from '../value.ts';
import {
  argumentsProblem, invalidInput, isInteger, isStringType, strictFunction, toBigint,
} from './function-kit.ts';
import { asciiLower, asciiUpper } from './pattern.ts';
import type { SqlScalarFunction } from './scalar-function.ts';
import { hexText, valueText } from './value-text.ts';

const CODE_POINT_MAX = 0x10ffff;
const REPLACEMENT_CHARACTER = '\uFFFD';

function isStringOrBlob(type: SqlType): boolean {
  return type === 'STRING' || type === 'BLOB';
}

/** A STRING result past SQL_FUNCTION_VALUE_BYTES_MAX (UTF-16 units × 3 bounds its UTF-8). */
export function checkedText(text: string, name: string): string {
  if (text.length > SQL_FUNCTION_VALUE_BYTES_MAX / 3 &&
    Buffer.byteLength(text) > SQL_FUNCTION_VALUE_BYTES_MAX) {
    throw new StorageError('LIMIT_EXCEEDED',
      `${name}: the result is over ${SQL_FUNCTION_VALUE_BYTES_MAX} bytes`);
  }
  return text;
}

const STRING_ARGS = [isStringType];

function stringFunction(name: string, minArgs: number, maxArgs: number,
  apply: (args: readonly string[]) => string): SqlScalarFunction {
  return strictFunction({
    name, minArgs, maxArgs,
    resultType: (argTypes) => argumentsProblem(name, argTypes, STRING_ARGS, ['a STRING']) ??
      'STRING',
    evaluate: (args) => checkedText(apply(args as readonly string[]), name),
  });
}

export const LENGTH = strictFunction({
  name: 'LENGTH', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) =>
    argumentsProblem('LENGTH', argTypes, [isStringOrBlob], ['a STRING or BLOB']) ?? 'LONG',
  evaluate: ([value]) => BigInt(value instanceof Uint8Array ? value.length
    : codePointCount(value as string)),
});

function codePointCount(text: string): number {
  let count = 0;
  for (const _char of text) count++;
  return count;
}

export const LOWER = stringFunction('LOWER', 1, 1, ([text]) => asciiLower(text!));
export const UPPER = stringFunction('UPPER', 1, 1, ([text]) => asciiUpper(text!));

/** SQLite's SUBSTR on a sequence of `length` items: [from, to) of the items it takes. */
export function substrRange(length: number, start: bigint, count: bigint | undefined):
  { from: number; to: number } {
  let p1 = start;
  let p2 = count ?? BigInt(length) + 1n;
  const negativeCount = p2 < 0n;
  if (negativeCount) p2 = -p2;
  if (p1 < 0n) {
    p1 += BigInt(length);
    if (p1 < 0n) {
      p2 += p1;
      if (p2 < 0n) p2 = 0n;
      p1 = 0n;
    }
  } else if (p1 > 0n) {
    p1--;
  } else if (p2 > 0n && !negativeCount) {
    p2--;
  }
  if (negativeCount) {
    p1 -= p2;
    if (p1 < 0n) {
      p2 += p1;
      p1 = 0n;
    }
  }
  const from = p1 > BigInt(length) ? length : Number(p1);
  const end = p1 + p2;
  const to = end > BigInt(length) ? length : Number(end);
  return { from, to: Math.max(from, to) };
}

export const SUBSTR = strictFunction({
  name: 'SUBSTR', minArgs: 2, maxArgs: 3,
  resultType: (argTypes) => argumentsProblem('SUBSTR', argTypes, [isStringOrBlob, isInteger],
    ['a STRING or BLOB', 'an integer']) ?? (argTypes[0] === 'BLOB' ? 'BLOB' : 'STRING'),
  evaluate([value, start, count]) {
    const from = toBigint(start!, 'SUBSTR');
    const length = count === undefined ? undefined : toBigint(count, 'SUBSTR');
    if (value instanceof Uint8Array) {
      const range = substrRange(value.length, from, length);
      return value.slice(range.from, range.to);
    }
    const chars = Array.from(value as string);
    const range = substrRange(chars.length, from, length);
    return chars.slice(range.from, range.to).join('');
  },
});

export const REPLACE = stringFunction('REPLACE', 3, 3, ([text, search, replacement]) =>
  search!.length === 0 ? text! : text!.split(search!).join(replacement!));

/** 1-based code-point position of `search` in `text`, per INSTR's offset and occurrence. */
export function instr(text: string, search: string, offset: bigint, occurrence: bigint): bigint {
  if (occurrence < 1n) throw invalidInput(`INSTR: the occurrence ${occurrence} is not ≥ 1`);
  const chars = Array.from(text);
  const needle = Array.from(search);
  const matchesAt = (index: number) => needle.every((char, i) => chars[index + i] === char);
  const lastStart = chars.length - needle.length;
  let found = 0n;
  if (offset > 0n) {
    for (let index = Number(offset > BigInt(chars.length) + 1n ? BigInt(chars.length) + 1n
      : offset) - 1; index <= lastStart; index++) {
      if (matchesAt(index) && ++found === occurrence) return BigInt(index + 1);
    }
  } else if (offset < 0n) {
    const fromEnd = BigInt(chars.length) + offset; // index of the position counted from the end
    if (fromEnd < 0n) return 0n;
    for (let index = Math.min(Number(fromEnd), lastStart); index >= 0; index--) {
      if (matchesAt(index) && ++found === occurrence) return BigInt(index + 1);
    }
  }
  return 0n;
}

export const INSTR = strictFunction({
  name: 'INSTR', minArgs: 2, maxArgs: 4,
  resultType: (argTypes) => argumentsProblem('INSTR', argTypes,
    [isStringType, isStringType, isInteger], ['a STRING', 'a STRING', 'an integer']) ?? 'LONG',
  evaluate: ([text, search, offset, occurrence]) => instr(text as string, search as string,
    offset === undefined ? 1n : toBigint(offset, 'INSTR'),
    occurrence === undefined ? 1n : toBigint(occurrence, 'INSTR')),
});

function trimmer(name: string, left: boolean, right: boolean): SqlScalarFunction {
  return stringFunction(name, 1, 2, ([text, set]) => {
    const chars = Array.from(text!);
    const remove = new Set(Array.from(set ?? ' '));
    let from = 0;
    let to = chars.length;
    if (left) while (from < to && remove.has(chars[from]!)) from++;
    if (right) while (to > from && remove.has(chars[to - 1]!)) to--;
    return chars.slice(from, to).join('');
  });
}

export const TRIM = trimmer('TRIM', true, true);
export const LTRIM = trimmer('LTRIM', true, false);
export const RTRIM = trimmer('RTRIM', false, true);

export const QUOTE: SqlScalarFunction = {
  name: 'QUOTE', minArgs: 1, maxArgs: 1,
  resultType: () => 'STRING',
  evaluate([value], [type], context) {
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
    if (value instanceof Uint8Array) return `X'${hexText(value)}'`;
    return valueText(value, type!, context.timeZoneOffsetMinutes);
  },
};

export const UNICODE = strictFunction({
  name: 'UNICODE', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) =>
    argumentsProblem('UNICODE', argTypes, STRING_ARGS, ['a STRING']) ?? 'LONG',
  evaluate: ([text]) => {
    const code = (text as string).codePointAt(0);
    return code === undefined ? null : BigInt(code);
  },
});

export const CHAR = strictFunction({
  name: 'CHAR', minArgs: 0, maxArgs: Infinity,
  resultType: (argTypes) =>
    argumentsProblem('CHAR', argTypes, [isInteger], ['an integer']) ?? 'STRING',
  evaluate: (args) => checkedText(args.map((arg) => {
    const code = toBigint(arg, 'CHAR');
    const valid = code >= 0n && code <= BigInt(CODE_POINT_MAX) &&
      !(code >= 0xd800n && code <= 0xdfffn);
    return valid ? String.fromCodePoint(Number(code)) : REPLACEMENT_CHARACTER;
  }).join(''), 'CHAR'),
});

export const TRANSLATE = stringFunction('TRANSLATE', 3, 3, ([text, from, to]) => {
  const replacements = new Map<string, string>();
  const targets = Array.from(to!);
  Array.from(from!).forEach((char, i) => {
    if (!replacements.has(char)) replacements.set(char, targets[i] ?? '');
  });
  return Array.from(text!).map((char) => replacements.get(char) ?? char).join('');
});
