// Tokens of SQL text, each with where it starts and ends (offsets into the text, for error
// positions and for cutting one statement's text out of a script).
//
//   word         [A-Za-z_\u0080-][A-Za-z0-9_$\u0080-]*  keywords are words; the parser tells them
//                apart case-insensitively (reserved-words.ts)
//   quotedName   "any text" with "" for a quote inside; never a keyword ("#tables", "select")
//   integer      [0-9]+ as a bigint of any size, so 2^53 + 1 stays exact
//   float        [0-9]+ '.' [0-9]* | '.' [0-9]+, optional exponent; [0-9]+ exponent
//   string       'text' with '' for a quote inside
//   blob         X'hex digits'
//   parameter    ?  ?NNN  :name  @name   numbered by the parser in order of appearance
//   hint         /*+ text */   a comment that the parser keeps (§5.9); other comments vanish
//   operator     see SQL_OPERATORS

import type { SqlPosition } from './errors.ts';

export const SQL_OPERATORS = [
  '||', '==', '<>', '!=', '<=', '>=', '<<', '>>',
  '(', ')', ',', '.', ';', '*', '/', '%', '+', '-', '=', '<', '>', '&', '|', '~',
  // Only a row pattern (MATCH_RECOGNIZE's PATTERN) reads these; elsewhere they are syntax errors.
  '{', '}', '^', '$',
] as const;
export type SqlOperator = (typeof SQL_OPERATORS)[number];

interface Located {
  readonly position: SqlPosition;
  /** Offset just after the token. */
  readonly endOffset: number;
}

export type SqlToken =
  | Located & { readonly kind: 'word'; readonly text: string; readonly upper: string }
  | Located & { readonly kind: 'quotedName'; readonly text: string }
  | Located & { readonly kind: 'integer'; readonly value: bigint; readonly text: string }
  | Located & { readonly kind: 'float'; readonly value: number; readonly text: string }
  | Located & { readonly kind: 'string'; readonly value: string }
  | Located & { readonly kind: 'blob'; readonly value: Uint8Array }
  | Located & { readonly kind: 'parameter'; readonly text: string }
  | Located & { readonly kind: 'hint'; readonly text: string }
  | Located & { readonly kind: 'operator'; readonly text: SqlOperator }
  | Located & { readonly kind: 'end' };

/** How an error message names a token it found: `"FORM"`, `','`, `end of text`. */
export function describeToken(token: SqlToken): string {
  switch (token.kind) {
    case 'word': return JSON.stringify(token.text);
    case 'quotedName': return `the quoted name ${JSON.stringify(token.text)}`;
    case 'integer':
    case 'float': return `the number ${token.text}`;
    case 'string': return `the string ${quoteSqlString(token.value)}`;
    case 'blob': return 'a BLOB literal';
    case 'parameter': return `the parameter ${token.text}`;
    case 'hint': return 'a hint /*+ ... */';
    case 'operator': return `'${token.text}'`;
    case 'end': return 'end of text';
  }
}

/** A string literal as SQL writes it: quotes around, '' for a quote inside. */
export function quoteSqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A quoted name as SQL writes it: double quotes around, "" for one inside. */
export function quoteSqlName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
