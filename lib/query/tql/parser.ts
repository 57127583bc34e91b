// The TQL parser: tokens → a TqlStatement (ast.ts), by recursive descent over GridDB's grammar
// (spec/surface.md §3.1):
//
//   statement  := [EXPLAIN [ANALYZE]] SELECT ('*' | call) [FROM name ['.' name]] [WHERE expr]
//                 [ORDER BY expr [ASC|DESC] {',' expr [ASC|DESC]}] [LIMIT int [OFFSET int]] [';']
//
// Expressions are in parser-expression.ts. Keywords are case-insensitive and reserved: a column
// named like one must be quoted. Errors are TqlErrors (TQL_SYNTAX) at the token that went wrong.

import { TQL_ORDER_BY_KEY_COUNT_MAX } from '../../base/limits.ts';
import type { TqlCall, TqlOrderKey, TqlStatement } from './ast.ts';
import { TqlError, tqlSyntaxError, type TqlPosition } from './error.ts';
import { tqlTokenize, type TqlToken } from './lexer.ts';
import { ExpressionParser } from './parser-expression.ts';

/** Parses one statement. Throws TqlError: TQL_SYNTAX, or LIMIT_EXCEEDED for an over-long query. */
export function parseTql(text: string): TqlStatement {
  if (typeof text !== 'string') {
    throw new TqlError('TQL_SYNTAX', `a query must be a string, not ${typeof text}`, undefined);
  }
  const parser = new StatementParser(tqlTokenize(text), text);
  return parser.statement();
}

class StatementParser extends ExpressionParser {
  constructor(tokens: readonly TqlToken[], private readonly text: string) {
    super(tokens);
  }

  statement(): TqlStatement {
    const explain = this.explain();
    this.expectKeyword('SELECT');
    const selectStart = this.offset();
    const select = this.selectList();
    const selectText = this.textFrom(selectStart);
    const from = this.acceptKeyword('FROM') ? this.fromName() : undefined;
    let whereText: string | undefined;
    let where: TqlStatement['where'];
    if (this.acceptKeyword('WHERE')) {
      const whereStart = this.offset();
      where = this.expression();
      whereText = this.textFrom(whereStart);
    }
    const orderBy = this.orderBy();
    const firstKey = orderBy[0];
    const orderText = firstKey === undefined ? undefined : this.textFrom(firstKey.position.offset);
    let limit: TqlStatement['limit'];
    let offset: TqlStatement['offset'];
    const limitStart = this.offset();
    if (this.acceptKeyword('LIMIT')) {
      limit = this.count('LIMIT');
      if (this.acceptKeyword('OFFSET')) offset = this.count('OFFSET');
    } else if (this.isKeyword(this.peek(), 'OFFSET')) {
      throw tqlSyntaxError('OFFSET needs a LIMIT before it', this.peek().position);
    }
    const limitText = limit === undefined ? undefined : this.textFrom(limitStart);
    this.acceptOperator(';');
    const end = this.peek();
    if (end.kind !== 'end') {
      throw tqlSyntaxError(`unexpected ${this.describe(end)} after the end of the statement`,
        end.position);
    }
    const text = { select: selectText, where: whereText, orderBy: orderText, limit: limitText };
    return { explain, select, from, where, orderBy, limit, offset, text };
  }

  /** Where the next token starts in the text. */
  private offset(): number {
    return this.peek().position.offset;
  }

  /** The text from `start` up to the next token, trimmed (comments between clauses stay). */
  private textFrom(start: number): string {
    return this.text.slice(start, this.offset()).trim();
  }

  private explain(): TqlStatement['explain'] {
    if (!this.acceptKeyword('EXPLAIN')) return undefined;
    return this.acceptKeyword('ANALYZE') ? 'EXPLAIN ANALYZE' : 'EXPLAIN';
  }

  private selectList(): TqlStatement['select'] {
    const token = this.peek();
    if (token.kind === 'operator' && token.text === '*') {
      this.next();
      return { kind: 'all', position: token.position };
    }
    const next = this.peekAt(1);
    if (token.kind === 'identifier' && !token.quoted && !this.isReserved(token) &&
      next.kind === 'operator' && next.text === '(') {
      return this.primary() as TqlCall;
    }
    throw tqlSyntaxError(
      `SELECT takes * or one function such as COUNT(*), not ${this.describe(token)}`,
      token.position);
  }

  private fromName(): NonNullable<TqlStatement['from']> {
    const first = this.peek();
    const parts = [this.name('a container name after FROM')];
    if (this.acceptOperator('.')) parts.push(this.name('a container name after "."'));
    return { parts, position: first.position };
  }

  private name(what: string): string {
    const token = this.next();
    if (token.kind !== 'identifier' || (!token.quoted && this.isReserved(token))) {
      throw tqlSyntaxError(`expected ${what}, found ${this.describe(token)}`, token.position);
    }
    return token.text;
  }

  private orderBy(): TqlOrderKey[] {
    if (!this.acceptKeyword('ORDER')) return [];
    this.expectKeyword('BY');
    const keys: TqlOrderKey[] = [];
    do {
      const position = this.peek().position;
      if (keys.length === TQL_ORDER_BY_KEY_COUNT_MAX) {
        throw new TqlError('LIMIT_EXCEEDED',
          `ORDER BY takes at most ${TQL_ORDER_BY_KEY_COUNT_MAX} keys`, position);
      }
      const expression = this.expression();
      const direction = this.acceptKeyword('DESC') ? 'DESC'
        : (this.acceptKeyword('ASC'), 'ASC');
      keys.push({ expression, direction, position });
    } while (this.acceptOperator(','));
    return keys;
  }

  /** LIMIT and OFFSET take a non-negative integer literal, nothing else (as GridDB). */
  private count(clause: 'LIMIT' | 'OFFSET'): { count: bigint; position: TqlPosition } {
    const token = this.next();
    if (token.kind !== 'integer') {
      throw tqlSyntaxError(`${clause} takes a non-negative integer, not ${this.describe(token)}`,
        token.position);
    }
    return { count: token.value, position: token.position };
  }
}
