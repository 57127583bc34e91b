// LIKE: whole-string matching, case-sensitive, by characters (Unicode code points). `%` matches
// any run of characters (the empty one too), `_` exactly one; the escape character, when given,
// makes the next pattern character literal. An empty pattern matches nothing, not even ''
// (GridDB's rule).
//
// Matching is the classic two-pointer wildcard walk: on a mismatch it backtracks to the last `%`
// and lets it take one more character, so it runs in O(text × pattern) at worst, without
// recursion.

type PatternItem = { readonly kind: 'any' } | { readonly kind: 'one' } |
  { readonly kind: 'char'; readonly char: string };

export interface LikeMatcher {
  matches(text: string): boolean;
}

const NEVER: LikeMatcher = { matches: () => false };

/** Compiles a pattern; `escape` is one character or undefined (the caller checked its length). */
export function likeMatcher(pattern: string, escape: string | undefined): LikeMatcher {
  if (pattern.length === 0) return NEVER;
  const items = likeItems(pattern, escape);
  if (items.every((item) => item.kind === 'char')) {
    const literal = items.map((item) => (item as { char: string }).char).join('');
    return { matches: (text) => text === literal };
  }
  return { matches: (text) => likeMatches(items, Array.from(text)) };
}

function likeItems(pattern: string, escape: string | undefined): PatternItem[] {
  const items: PatternItem[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (escape !== undefined && char === escape && i + 1 < chars.length) {
      items.push({ kind: 'char', char: chars[++i]! });
    } else if (char === '%') {
      // Adjacent %s mean the same as one.
      if (items.at(-1)?.kind !== 'any') items.push({ kind: 'any' });
    } else if (char === '_') {
      items.push({ kind: 'one' });
    } else {
      items.push({ kind: 'char', char });
    }
  }
  return items;
}

function likeMatches(items: readonly PatternItem[], text: readonly string[]): boolean {
  return wildcardMatches(items, text, likeItemMatches);
}

function likeItemMatches(item: Exclude<PatternItem, { kind: 'any' }>, char: string): boolean {
  return item.kind === 'one' || item.char === char;
}

/**
 * Whether the whole of `text` matches `items`: an `any` item takes any run of characters (the empty
 * one too), every other item one character that `matchesOne` accepts. Shared by LIKE and SQL's
 * GLOB (lib/sql/functions/pattern.ts), whose items differ only in what one character matches.
 */
export function wildcardMatches<Item extends { readonly kind: string }>(
  items: readonly Item[],
  text: readonly string[],
  matchesOne: (item: Exclude<Item, { kind: 'any' }>, char: string) => boolean,
): boolean {
  let t = 0;
  let p = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const item = items[p];
    if (item !== undefined && item.kind !== 'any' &&
      matchesOne(item as Exclude<Item, { kind: 'any' }>, text[t]!)) {
      t++;
      p++;
    } else if (item?.kind === 'any') {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (p < items.length && items[p]!.kind === 'any') p++;
  return p === items.length;
}
