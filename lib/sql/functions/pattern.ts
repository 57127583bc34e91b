// LIKE and GLOB as functions (§5.7, §5.8): `x LIKE p ESCAPE e` compiles to LIKE(p, x, e) and
// `x GLOB p` to GLOB(p, x).
//
// SQL's LIKE is case-insensitive for ASCII letters only (GridDB's SQL follows SQLite here; TQL's
// LIKE is case-sensitive): both sides are folded to lower case and matched with TQL's matcher
// (lib/query/tql/like.ts). Unlike TQL, an empty pattern matches the empty string.
// GLOB is case-sensitive: `*` any run, `?` one character, `[abc]`, `[a-e]`, `[^a-e]`; a `]` right
// after `[` (or `[^`) is literal. Matching walks by code points and backtracks to the last `*`,
// O(text × pattern) at worst, without recursion.

import { likeMatcher, wildcardMatches, type LikeMatcher } from '../../query/tql/like.ts';
import type { SqlType } from '../value.ts';
import { argumentsProblem, invalidInput, isStringType, strictFunction } from './function-kit.ts';
import type { SqlScalarFunction } from './scalar-function.ts';

/** Lower case for A-Z only: SQL's LOWER and LIKE leave every other character as it is. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

export function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (run) => run.toUpperCase());
}

/** SQL's LIKE on one value: case-insensitive for ASCII letters. */
export function sqlLike(pattern: string, text: string, escape: string | undefined): boolean {
  if (escape !== undefined && Array.from(escape).length !== 1) {
    throw invalidInput(`LIKE: the escape must be one character, not '${escape}'`);
  }
  if (pattern.length === 0) return text.length === 0;
  if (lastLike.pattern !== pattern || lastLike.escape !== escape) {
    const foldedEscape = escape === undefined ? undefined : asciiLower(escape);
    lastLike = { pattern, escape, matcher: likeMatcher(asciiLower(pattern), foldedEscape) };
  }
  return lastLike.matcher.matches(asciiLower(text));
}

// The pattern is usually one constant for every row of a statement: the last one compiled is kept.
let lastLike: { pattern: string; escape: string | undefined; matcher: LikeMatcher } =
  { pattern: '', escape: undefined, matcher: likeMatcher('', undefined) };
let lastGlob: { pattern: string; items: GlobItem[] } = { pattern: '', items: [] };

type GlobItem =
  | { readonly kind: 'any' }
  | { readonly kind: 'one' }
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'set'; readonly negated: boolean; readonly ranges: readonly [number, number][] };

function globItems(pattern: readonly string[]): GlobItem[] {
  const items: GlobItem[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      if (items.at(-1)?.kind !== 'any') items.push({ kind: 'any' });
    } else if (char === '?') {
      items.push({ kind: 'one' });
    } else if (char === '[') {
      const set = globSet(pattern, i + 1);
      if (set === undefined) {
        items.push({ kind: 'char', char }); // an unclosed [ matches itself
      } else {
        items.push(set.item);
        i = set.endIndex;
      }
    } else {
      items.push({ kind: 'char', char });
    }
  }
  return items;
}

/** The set starting after `[`, and the index of its `]`; undefined when there is no `]`. */
function globSet(pattern: readonly string[], startIndex: number):
  { item: GlobItem; endIndex: number } | undefined {
  let i = startIndex;
  const negated = pattern[i] === '^';
  if (negated) i++;
  const ranges: [number, number][] = [];
  let first = true;
  for (; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === ']' && !first) {
      return { item: { kind: 'set', negated, ranges }, endIndex: i };
    }
    first = false;
    const low = char.codePointAt(0)!;
    if (pattern[i + 1] === '-' && i + 2 < pattern.length && pattern[i + 2] !== ']') {
      ranges.push([low, pattern[i + 2]!.codePointAt(0)!]);
      i += 2;
    } else {
      ranges.push([low, low]);
    }
  }
  return undefined;
}

function globItemMatches(item: GlobItem, char: string): boolean {
  if (item.kind === 'one') return true;
  if (item.kind === 'char') return item.char === char;
  if (item.kind === 'set') {
    const code = char.codePointAt(0)!;
    const inside = item.ranges.some(([low, high]) => code >= low && code <= high);
    return inside !== item.negated;
  }
  return false;
}

export function sqlGlob(pattern: string, text: string): boolean {
  if (lastGlob.pattern !== pattern) lastGlob = { pattern, items: globItems(Array.from(pattern)) };
  return wildcardMatches(lastGlob.items, Array.from(text), globItemMatches);
}

const STRINGS = [isStringType];

export const LIKE: SqlScalarFunction = strictFunction({
  name: 'LIKE',
  minArgs: 2,
  maxArgs: 3,
  resultType: (argTypes) =>
    argumentsProblem('LIKE', argTypes, STRINGS, ['a STRING']) ?? 'BOOL',
  evaluate: (args) => sqlLike(args[0] as string, args[1] as string, args[2] as string | undefined),
});

export const GLOB: SqlScalarFunction = strictFunction({
  name: 'GLOB',
  minArgs: 2,
  maxArgs: 2,
  resultType: (argTypes: readonly SqlType[]) =>
    argumentsProblem('GLOB', argTypes, STRINGS, ['a STRING']) ?? 'BOOL',
  evaluate: (args) => sqlGlob(args[0] as string, args[1] as string),
});
