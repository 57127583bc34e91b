// The parser's place in a token list, shared by the parse-*.ts files: looks at and takes tokens,
// names what it expected when the text has something else, numbers `?` parameters and bounds the
// nesting of expressions. A hint token anywhere but where the statement parser takes hints is a
// syntax error at the hint (§5.9: a misplaced hint is a syntax error).

import { assert } from '../base/assert.ts';
import { SQL_EXPRESSION_DEPTH_MAX, SQL_PARAMETER_COUNT_MAX } from '../base/limits.ts';
import type { SqlName } from './ast.ts';
import { sqlLimitExceeded, sqlSyntaxError, type SqlPosition } from './errors.ts';
import { isPlainName, RESERVED_WORDS } from './reserved-words.ts';
import { describeToken, type SqlOperator, type SqlToken } from './tokens.ts';

export class SqlCursor {
  private index = 0;
  private depth = 0;
  /** Parameters seen in the current statement; reset by startStatement(). */
  parameterCount = 0;

  constructor(private readonly tokens: readonly SqlToken[]) {
    assert(tokens.length > 0);
    assert(tokens[tokens.length - 1]!.kind === 'end');
  }

  startStatement(): void {
    assert(this.depth === 0);
    this.parameterCount = 0;
  }

  /** The token `ahead` places on, hints included: for the statement parser and hints only. */
  peekRaw(ahead = 0): SqlToken {
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)]!;
  }

  /** The token `ahead` places on; a hint there is misplaced. */
  peek(ahead = 0): SqlToken {
    for (let i = 0; i <= ahead; i++) {
      const token = this.peekRaw(i);
      if (token.kind === 'hint') {
        throw sqlSyntaxError('a hint /*+ ... */ may only stand right before or after the first ' +
          'SELECT, INSERT, UPDATE or DELETE of a statement', token.position);
      }
    }
    return this.peekRaw(ahead);
  }

  next(): SqlToken {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  /** Where the token before the current one ends. */
  lastEndOffset(): number {
    assert(this.index > 0);
    return this.tokens[this.index - 1]!.endOffset;
  }

  /** Where the last hint token before the current place starts. */
  lastHintPosition(): SqlPosition {
    for (let i = this.index - 1; i >= 0; i--) {
      const token = this.tokens[i]!;
      if (token.kind === 'hint') return token.position;
    }
    return this.position();
  }

  /** Takes a hint token, which peek() refuses. */
  nextHint(): SqlToken & { kind: 'hint' } {
    const token = this.peekRaw();
    assert(token.kind === 'hint');
    this.index++;
    return token;
  }

  position(): SqlPosition {
    return this.peek().position;
  }

  /** `word` is upper-case (tokens compare by their upper-case text). */
  isKeyword(word: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'word' && token.upper === word;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.index++;
    return true;
  }

  expectKeyword(word: string): SqlPosition {
    if (!this.isKeyword(word)) this.fail(word);
    return this.next().position;
  }

  isOperator(operator: SqlOperator, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'operator' && token.text === operator;
  }

  acceptOperator(operator: SqlOperator): boolean {
    if (!this.isOperator(operator)) return false;
    this.index++;
    return true;
  }

  expectOperator(operator: SqlOperator): SqlPosition {
    if (!this.isOperator(operator)) this.fail(`'${operator}'`);
    return this.next().position;
  }

  /** A name may stand here: a quoted name, or a word that is not reserved (or only softly). */
  isName(ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'quotedName' || (token.kind === 'word' && isPlainName(token.text));
  }

  /** A word no clause can begin: safe to read as an alias written without AS. */
  isImplicitAlias(): boolean {
    const token = this.peek();
    return token.kind === 'quotedName' ||
      (token.kind === 'word' && !RESERVED_WORDS.has(token.upper));
  }

  expectName(what: string): SqlName {
    const token = this.peek();
    if (token.kind === 'quotedName') {
      this.index++;
      return { text: token.text, quoted: true, position: token.position };
    }
    if (token.kind === 'word' && isPlainName(token.text)) {
      this.index++;
      return { text: token.text, quoted: false, position: token.position };
    }
    if (token.kind === 'word') {
      const why = ` (${token.upper} is a reserved word: write "${token.text}" for a name)`;
      return this.fail(what, why);
    }
    return this.fail(what);
  }

  /** `integer literal` (a non-negative whole number) as a bigint. */
  expectInteger(what: string): bigint {
    const token = this.peek();
    if (token.kind !== 'integer') this.fail(what);
    this.index++;
    return token.value;
  }

  expectString(what: string): string {
    const token = this.peek();
    if (token.kind !== 'string') this.fail(what);
    this.index++;
    return token.value;
  }

  /** Throws `expected <what>, found <token>` at the current token. */
  fail(what: string, why = ''): never {
    const token = this.peek();
    throw sqlSyntaxError(`expected ${what}, found ${describeToken(token)}${why}`, token.position);
  }

  /** Counts one more level of expression nesting; deeper than the limit is an error. */
  enterExpression(): void {
    this.depth++;
    if (this.depth > SQL_EXPRESSION_DEPTH_MAX) {
      throw sqlLimitExceeded(
        `an expression may nest at most ${SQL_EXPRESSION_DEPTH_MAX} levels deep`, this.position());
    }
  }

  leaveExpression(): void {
    assert(this.depth > 0);
    this.depth--;
  }

  /** The 1-based number of the next `?` parameter, in order of appearance. */
  nextParameterIndex(position: SqlPosition): number {
    if (this.parameterCount === SQL_PARAMETER_COUNT_MAX) {
      throw sqlLimitExceeded(
        `a statement may have at most ${SQL_PARAMETER_COUNT_MAX} parameters`, position);
    }
    this.parameterCount++;
    return this.parameterCount;
  }

  /** Items separated by commas, at least one. */
  list<T>(parseItem: () => T): T[] {
    const items = [parseItem()];
    while (this.acceptOperator(',')) items.push(parseItem());
    return items;
  }

  /** `( item, ... )`. */
  parenthesizedList<T>(parseItem: () => T): T[] {
    this.expectOperator('(');
    const items = this.list(parseItem);
    this.expectOperator(')');
    return items;
  }
}
