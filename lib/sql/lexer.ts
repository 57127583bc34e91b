// The SQL lexer: text → tokens (tokens.ts), the last one always `end`. Comments `-- ...` and
// `/* ... */` vanish; a hint comment `/*+ ... */` stays as a token for the parser to place. The
// lexer refuses a NUL character, an unclosed string, name or comment, a number running into a
// name (`12ab`), and a float literal beyond the DOUBLE range (`1e999`), each with its position.

import { assert } from '../base/assert.ts';
import { SQL_TEXT_LENGTH_MAX } from '../base/limits.ts';
import {
  SQL_POSITION_START, sqlLimitExceeded, sqlSyntaxError, type SqlPosition,
} from './errors.ts';
import { SQL_OPERATORS, type SqlToken } from './tokens.ts';

const CODE_0 = 0x30;
const CODE_9 = 0x39;
const CODE_DOT = 0x2e;
const CODE_QUOTE = 0x27;
const CODE_DOUBLE_QUOTE = 0x22;
const CODE_NEWLINE = 0x0a;

function isDigit(code: number): boolean {
  return code >= CODE_0 && code <= CODE_9;
}

/** ASCII letters, `_`, and any non-ASCII character, as SQLite reads names. */
function isWordStart(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f ||
    code >= 0x80;
}

function isWordPart(code: number): boolean {
  return isWordStart(code) || isDigit(code) || code === 0x24; // $
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c ||
    code === 0x0b;
}

/** Splits SQL text into tokens. Throws SqlError (SQL_COMPILE_SYNTAX_ERROR, LIMIT_EXCEEDED). */
export function sqlTokenize(text: string): SqlToken[] {
  if (text.length > SQL_TEXT_LENGTH_MAX) {
    throw sqlLimitExceeded(
      `an SQL text may have at most ${SQL_TEXT_LENGTH_MAX} characters, this one has ${text.length}`,
      SQL_POSITION_START);
  }
  const lexer = new Lexer(text);
  const tokens: SqlToken[] = [];
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

  next(): SqlToken {
    const hint = this.skipSpaceAndComments();
    if (hint !== undefined) return hint;
    const position = this.position();
    if (this.offset >= this.text.length) return { kind: 'end', position, endOffset: this.offset };
    const code = this.text.charCodeAt(this.offset);
    if (code === 0) throw sqlSyntaxError('the text contains a NUL character', position);
    if ((code === 0x58 || code === 0x78) && this.text.charCodeAt(this.offset + 1) === CODE_QUOTE) {
      return this.blob(position); // X'...'
    }
    if (isWordStart(code)) return this.word(position);
    if (isDigit(code) || (code === CODE_DOT && isDigit(this.text.charCodeAt(this.offset + 1)))) {
      return this.number(position);
    }
    if (code === CODE_QUOTE) {
      const value = this.quoted(CODE_QUOTE, 'string');
      return { kind: 'string', value, position, endOffset: this.offset };
    }
    if (code === CODE_DOUBLE_QUOTE) {
      const name = this.quoted(CODE_DOUBLE_QUOTE, 'quoted name');
      if (name.length === 0) throw sqlSyntaxError('a quoted name is empty', position);
      return { kind: 'quotedName', text: name, position, endOffset: this.offset };
    }
    if (code === 0x3f || code === 0x3a || code === 0x40) return this.parameter(position); // ? : @
    for (const operator of SQL_OPERATORS) {
      if (this.text.startsWith(operator, this.offset)) {
        this.offset += operator.length;
        return { kind: 'operator', text: operator, position, endOffset: this.offset };
      }
    }
    const character = String.fromCodePoint(this.text.codePointAt(this.offset) ?? 0);
    const why = character === '#'
      ? ' (a metatable name is written in double quotes: "#tables")' : '';
    throw sqlSyntaxError(`unexpected character ${JSON.stringify(character)}${why}`, position);
  }

  private position(): SqlPosition {
    return { offset: this.offset, line: this.line, column: this.offset - this.lineStart + 1 };
  }

  /** Moves to `offset`, counting the lines passed. */
  private advanceTo(offset: number): void {
    assert(offset >= this.offset);
    for (let i = this.offset; i < offset; i++) {
      if (this.text.charCodeAt(i) === CODE_NEWLINE) {
        this.line++;
        this.lineStart = i + 1;
      }
    }
    this.offset = offset;
  }

  /** Skips space and comments; stops at a hint comment and returns it as a token. */
  private skipSpaceAndComments(): SqlToken | undefined {
    const text = this.text;
    while (this.offset < text.length) {
      const code = text.charCodeAt(this.offset);
      if (isSpace(code)) {
        this.advanceTo(this.offset + 1);
      } else if (text.startsWith('--', this.offset)) {
        const end = text.indexOf('\n', this.offset);
        this.advanceTo(end < 0 ? text.length : end);
      } else if (text.startsWith('/*', this.offset)) {
        const position = this.position();
        const end = text.indexOf('*/', this.offset + 2);
        if (end < 0) throw sqlSyntaxError('a /* comment is not closed', position);
        const isHint = text.charCodeAt(this.offset + 2) === 0x2b; // '+'
        const body = text.slice(this.offset + 3, end);
        this.advanceTo(end + 2);
        if (isHint) return { kind: 'hint', text: body, position, endOffset: this.offset };
      } else {
        return undefined;
      }
    }
    return undefined;
  }

  private word(position: SqlPosition): SqlToken {
    const start = this.offset;
    while (this.offset < this.text.length && isWordPart(this.text.charCodeAt(this.offset))) {
      this.offset++;
    }
    const text = this.text.slice(start, this.offset);
    return { kind: 'word', text, upper: text.toUpperCase(), position, endOffset: this.offset };
  }

  private digits(): number {
    const start = this.offset;
    while (isDigit(this.text.charCodeAt(this.offset))) this.offset++;
    return this.offset - start;
  }

  private number(position: SqlPosition): SqlToken {
    const start = this.offset;
    const integerDigitCount = this.digits();
    let isFloat = false;
    if (this.text.charCodeAt(this.offset) === CODE_DOT) {
      this.offset++;
      isFloat = true;
      assert(integerDigitCount + this.digits() > 0);
    }
    const e = this.text.charCodeAt(this.offset);
    if (e === 0x45 || e === 0x65) { // 'E' | 'e'
      this.offset++;
      const sign = this.text.charCodeAt(this.offset);
      if (sign === 0x2b || sign === 0x2d) this.offset++;
      if (this.digits() === 0) {
        throw sqlSyntaxError(
          `the exponent of ${this.text.slice(start, this.offset)} has no digits`, position);
      }
      isFloat = true;
    }
    if (isWordPart(this.text.charCodeAt(this.offset))) {
      throw sqlSyntaxError(
        `a number runs into a name at ${JSON.stringify(this.text.slice(start, this.offset + 1))}`,
        position);
    }
    const text = this.text.slice(start, this.offset);
    const endOffset = this.offset;
    if (!isFloat) return { kind: 'integer', value: BigInt(text), text, position, endOffset };
    const value = Number(text);
    if (!Number.isFinite(value)) {
      throw sqlSyntaxError(`the number ${text} is beyond the range of DOUBLE`, position);
    }
    return { kind: 'float', value, text, position, endOffset };
  }

  /** A quoted string or name; a doubled quote stands for one. Strings may span lines. */
  private quoted(quote: number, what: string): string {
    const start = this.position();
    const quoteText = String.fromCharCode(quote);
    let cursor = this.offset + 1;
    let value = '';
    for (;;) {
      const end = this.text.indexOf(quoteText, cursor);
      if (end < 0) throw sqlSyntaxError(`a ${what} is not closed`, start);
      const part = this.text.slice(cursor, end);
      if (part.includes('\0')) throw sqlSyntaxError(`a ${what} contains a NUL character`, start);
      value += part;
      cursor = end + 1;
      if (this.text.charCodeAt(cursor) !== quote) break;
      value += quoteText;
      cursor++;
    }
    this.advanceTo(cursor);
    return value;
  }

  private blob(position: SqlPosition): SqlToken {
    this.offset++; // X
    const hex = this.quoted(CODE_QUOTE, 'BLOB literal');
    if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex)) {
      throw sqlSyntaxError('a BLOB literal X\'...\' needs an even number of hex digits', position);
    }
    const value = new Uint8Array(hex.length / 2);
    for (let i = 0; i < value.length; i++) {
      value[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    }
    return { kind: 'blob', value, position, endOffset: this.offset };
  }

  /** `?`, `?NNN`, `:name`, `@name`; `$` is not a parameter in GridDB (§5.5). */
  private parameter(position: SqlPosition): SqlToken {
    const first = this.text[this.offset];
    const start = this.offset;
    this.offset++;
    if (first === '?') {
      this.digits();
    } else {
      const nameStart = this.offset;
      while (this.offset < this.text.length && isWordPart(this.text.charCodeAt(this.offset))) {
        this.offset++;
      }
      if (this.offset === nameStart) {
        throw sqlSyntaxError(`the parameter ${first} has no name`, position);
      }
    }
    const text = this.text.slice(start, this.offset);
    return { kind: 'parameter', text, position, endOffset: this.offset };
  }
}
