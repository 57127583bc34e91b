// The TQL lexer: query text → tokens, each with its position.
//
//   identifier   [A-Za-z_][A-Za-z0-9_]*  or  "any text" with "" for a quote inside (quoted: true);
//                keywords are identifiers too, the parser tells them apart (case-insensitively)
//   integer      [0-9]+  as a bigint of any size (the binder checks the LONG range)
//   float        [0-9]+ '.' [0-9]* | '.' [0-9]+, each with an optional exponent; [0-9]+ exponent
//   string       'text' with '' for a quote inside
//   blob         X'hex digits' (an even number of them)
//   operator     ( ) , . ; * / % + - = == <> != < <= > >= & | << >>
//   comments     -- to the end of the line, /* ... */
//
// NaN and INF are identifiers here; the parser makes DOUBLE literals of them. The lexer refuses a
// NUL character anywhere, as GridDB's Web API does, and a number running into a name (`12ab`).

import { assert } from '../../base/assert.ts';
import { TQL_TEXT_LENGTH_MAX } from '../../base/limits.ts';
import { TqlError, tqlSyntaxError, type TqlPosition } from './error.ts';

interface Located {
  readonly position: TqlPosition;
}

export type TqlToken =
  | Located & { readonly kind: 'identifier'; readonly text: string; readonly quoted: boolean }
  | Located & { readonly kind: 'integer'; readonly value: bigint; readonly text: string }
  | Located & { readonly kind: 'float'; readonly value: number; readonly text: string }
  | Located & { readonly kind: 'string'; readonly value: string }
  | Located & { readonly kind: 'blob'; readonly value: Uint8Array }
  | Located & { readonly kind: 'operator'; readonly text: TqlOperator }
  | Located & { readonly kind: 'end' };

const OPERATORS = [
  '==', '<>', '!=', '<=', '>=', '<<', '>>',
  '(', ')', ',', '.', ';', '*', '/', '%', '+', '-', '=', '<', '>', '&', '|',
] as const;
export type TqlOperator = (typeof OPERATORS)[number];

const CODE_0 = 0x30;
const CODE_9 = 0x39;

function isDigit(code: number): boolean {
  return code >= CODE_0 && code <= CODE_9;
}

function isIdentifierStart(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c ||
    code === 0x0b;
}

/** Splits a query into tokens; the last one is always `end`. Throws TqlError (TQL_SYNTAX). */
export function tqlTokenize(text: string): TqlToken[] {
  if (text.length > TQL_TEXT_LENGTH_MAX) {
    throw new TqlError('LIMIT_EXCEEDED',
      `a query may have at most ${TQL_TEXT_LENGTH_MAX} characters, this one has ${text.length}`,
      undefined);
  }
  const lexer = new Lexer(text);
  const tokens: TqlToken[] = [];
  for (;;) {
    const token = lexer.next();
    tokens.push(token);
    if (token.kind === 'end') return tokens;
  }
}

class Lexer {
  private offset = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  next(): TqlToken {
    this.skipSpaceAndComments();
    const position = this.position();
    if (this.offset >= this.text.length) return { kind: 'end', position };
    const code = this.text.charCodeAt(this.offset);
    if (code === 0) throw tqlSyntaxError('the query contains a NUL character', position);
    if ((code === 0x58 || code === 0x78) && this.text.charCodeAt(this.offset + 1) === 0x27) {
      return this.blob(position); // X'...'
    }
    if (isIdentifierStart(code)) return this.identifier(position);
    if (isDigit(code) || (code === 0x2e && isDigit(this.text.charCodeAt(this.offset + 1)))) {
      return this.number(position);
    }
    if (code === 0x27) return { kind: 'string', value: this.quoted(0x27, 'string'), position };
    if (code === 0x22) {
      const name = this.quoted(0x22, 'quoted name');
      if (name.length === 0) throw tqlSyntaxError('a quoted name is empty', position);
      return { kind: 'identifier', text: name, quoted: true, position };
    }
    for (const operator of OPERATORS) {
      if (this.text.startsWith(operator, this.offset)) {
        this.offset += operator.length;
        return { kind: 'operator', text: operator, position };
      }
    }
    const character = String.fromCodePoint(this.text.codePointAt(this.offset) ?? 0);
    throw tqlSyntaxError(`unexpected character ${JSON.stringify(character)}`, position);
  }

  private position(): TqlPosition {
    return { offset: this.offset, line: this.line, column: this.offset - this.lineStart + 1 };
  }

  /** Moves past one character, counting lines. */
  private advance(): void {
    if (this.text.charCodeAt(this.offset) === 0x0a) {
      this.line++;
      this.lineStart = this.offset + 1;
    }
    this.offset++;
  }

  private skipSpaceAndComments(): void {
    const text = this.text;
    while (this.offset < text.length) {
      const code = text.charCodeAt(this.offset);
      if (isSpace(code)) {
        this.advance();
      } else if (text.startsWith('--', this.offset)) {
        while (this.offset < text.length && text.charCodeAt(this.offset) !== 0x0a) this.advance();
      } else if (text.startsWith('/*', this.offset)) {
        const start = this.position();
        const end = text.indexOf('*/', this.offset + 2);
        if (end < 0) throw tqlSyntaxError('a /* comment is not closed', start);
        while (this.offset < end + 2) this.advance();
      } else {
        return;
      }
    }
  }

  private identifier(position: TqlPosition): TqlToken {
    const start = this.offset;
    while (this.offset < this.text.length && isIdentifierPart(this.text.charCodeAt(this.offset))) {
      this.offset++;
    }
    const text = this.text.slice(start, this.offset);
    return { kind: 'identifier', text, quoted: false, position };
  }

  private digits(): number {
    const start = this.offset;
    while (isDigit(this.text.charCodeAt(this.offset))) this.offset++;
    return this.offset - start;
  }

  private number(position: TqlPosition): TqlToken {
    const start = this.offset;
    const integerDigitCount = this.digits();
    let isFloat = false;
    if (this.text.charCodeAt(this.offset) === 0x2e) { // '.'
      this.offset++;
      isFloat = true;
      const fractionDigitCount = this.digits();
      assert(integerDigitCount + fractionDigitCount > 0);
    }
    const e = this.text.charCodeAt(this.offset);
    if (e === 0x45 || e === 0x65) { // 'E' | 'e'
      this.offset++;
      const sign = this.text.charCodeAt(this.offset);
      if (sign === 0x2b || sign === 0x2d) this.offset++;
      if (this.digits() === 0) {
        throw tqlSyntaxError(`the exponent of ${this.text.slice(start, this.offset)} has no digits`,
          position);
      }
      isFloat = true;
    }
    if (isIdentifierPart(this.text.charCodeAt(this.offset))) {
      throw tqlSyntaxError(
        `a number runs into a name at ${JSON.stringify(this.text.slice(start, this.offset + 1))}`,
        position);
    }
    const text = this.text.slice(start, this.offset);
    if (isFloat) return { kind: 'float', value: Number(text), text, position };
    return { kind: 'integer', value: BigInt(text), text, position };
  }

  /** A quoted string or name; a doubled quote stands for one. */
  private quoted(quote: number, what: string): string {
    const start = this.position();
    this.offset++;
    let value = '';
    for (;;) {
      const end = this.text.indexOf(String.fromCharCode(quote), this.offset);
      if (end < 0) throw tqlSyntaxError(`a ${what} is not closed`, start);
      const part = this.text.slice(this.offset, end);
      if (part.includes('\0')) throw tqlSyntaxError(`a ${what} contains a NUL character`, start);
      while (this.offset < end) this.advance(); // strings may span lines
      value += part;
      this.offset = end + 1;
      if (this.text.charCodeAt(this.offset) !== quote) return value;
      value += String.fromCharCode(quote);
      this.offset++;
    }
  }

  private blob(position: TqlPosition): TqlToken {
    this.offset++; // X
    const hex = this.quoted(0x27, 'BLOB literal');
    if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex)) {
      throw tqlSyntaxError('a BLOB literal X\'...\' needs an even number of hex digits', position);
    }
    const value = new Uint8Array(hex.length / 2);
    for (let i = 0; i < value.length; i++) {
      value[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    }
    return { kind: 'blob', value, position };
  }
}
