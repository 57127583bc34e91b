// TQL expressions by recursive descent, one method per precedence level, lowest first
// (spec/surface.md §3.3; equal precedence associates to the left):
//
//   or          and {(OR | XOR) and}
//   and         not {AND not}
//   not         NOT not | comparison
//   comparison  bitwise {op bitwise | IS [NOT] NULL | [NOT] LIKE bitwise [ESCAPE bitwise]
//                        | [NOT] IN '(' expr {',' expr} ')' | [NOT] BETWEEN bitwise AND bitwise}
//                 op: = == <> != < <= > >=
//   bitwise     additive {(& | '|' | << | >>) additive}
//   additive    multiplicative {(+ | -) multiplicative}
//   multiplicative  unary {(* | / | %) unary}
//   unary       - unary | + unary | primary
//   primary     literal | name | name '(' [* [, expr...] | expr {, expr}] ')' | '(' or ')'
//
// The bitwise operators are in GridDB's grammar but not its precedence table; they sit between the
// comparisons and the additive operators, as in the SQL dialect that grammar comes from. IN and
// BETWEEN are extensions (GridDB's lexer has the words, its grammar no rule).
//
// Nesting is bounded by TQL_EXPRESSION_DEPTH_MAX: every parenthesis, argument list, unary operator
// and binary operator of a chain counts, so the tree built is never deeper than that and no later
// pass can run out of stack on it.

import { assert } from '../../base/assert.ts';
import {
  TQL_EXPRESSION_DEPTH_MAX, TQL_FUNCTION_ARGUMENT_COUNT_MAX, TQL_IN_LIST_LENGTH_MAX,
} from '../../base/limits.ts';
import type {
  TqlArithmeticOperator, TqlComparisonOperator, TqlExpression, TqlLiteral,
} from './ast.ts';
import { TqlError, tqlSyntaxError, type TqlPosition } from './error.ts';
import type { TqlOperator, TqlToken } from './lexer.ts';

const RESERVED = new Set([
  'SELECT', 'FROM', 'WHERE', 'ORDER', 'BY', 'ASC', 'DESC', 'LIMIT', 'OFFSET', 'AND', 'OR', 'XOR',
  'NOT', 'IS', 'NULL', 'LIKE', 'ESCAPE', 'IN', 'BETWEEN', 'EXPLAIN', 'ANALYZE', 'TRUE', 'FALSE',
  'NAN', 'INF',
]);

const COMPARISON_OPERATORS: Partial<Record<TqlOperator, TqlComparisonOperator>> = {
  '=': '=', '==': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=',
};
const BITWISE_OPERATORS: readonly TqlOperator[] = ['&', '|', '<<', '>>'];
const ADDITIVE_OPERATORS: readonly TqlOperator[] = ['+', '-'];
const MULTIPLICATIVE_OPERATORS: readonly TqlOperator[] = ['*', '/', '%'];

export class ExpressionParser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly TqlToken[]) {}

  /** One whole expression (the `or` level). */
  expression(): TqlExpression {
    this.enter();
    try {
      return this.or();
    } finally {
      this.leave();
    }
  }

  // ---- tokens ------------------------------------------------------------------------------

  protected peek(): TqlToken {
    return this.tokens[this.index]!;
  }

  protected peekAt(ahead: number): TqlToken {
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)]!;
  }

  protected next(): TqlToken {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'end') this.index++;
    return token;
  }

  protected isKeyword(token: TqlToken, keyword: string): boolean {
    return token.kind === 'identifier' && !token.quoted && token.text.toUpperCase() === keyword;
  }

  protected isReserved(token: TqlToken & { kind: 'identifier' }): boolean {
    return RESERVED.has(token.text.toUpperCase());
  }

  protected acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.next();
    return true;
  }

  protected expectKeyword(keyword: string): void {
    const token = this.peek();
    if (!this.acceptKeyword(keyword)) {
      throw tqlSyntaxError(`expected ${keyword}, found ${this.describe(token)}`, token.position);
    }
  }

  protected acceptOperator(operator: TqlOperator): boolean {
    const token = this.peek();
    if (token.kind !== 'operator' || token.text !== operator) return false;
    this.next();
    return true;
  }

  protected expectOperator(operator: TqlOperator, context: string): void {
    const token = this.peek();
    if (!this.acceptOperator(operator)) {
      throw tqlSyntaxError(`expected "${operator}" ${context}, found ${this.describe(token)}`,
        token.position);
    }
  }

  protected describe(token: TqlToken): string {
    switch (token.kind) {
      case 'end': return 'the end of the query';
      case 'identifier': return token.quoted ? `"${token.text}"` : token.text;
      case 'integer': case 'float': return token.text;
      case 'string':
        return `'${token.value.length > 32 ? `${token.value.slice(0, 32)}...` : token.value}'`;
      case 'blob': return 'a BLOB literal';
      case 'operator': return `"${token.text}"`;
    }
  }

  private enter(): void {
    if (++this.depth > TQL_EXPRESSION_DEPTH_MAX) {
      throw new TqlError('LIMIT_EXCEEDED',
        `an expression may nest at most ${TQL_EXPRESSION_DEPTH_MAX} levels deep`,
        this.peek().position);
    }
  }

  private leave(): void {
    this.depth--;
  }

  /** Runs a left-associative chain, counting each operator it applies as one level of depth. */
  private chain(parse: (left: TqlExpression) => TqlExpression | undefined, first: TqlExpression) {
    let left = first;
    let levels = 0;
    try {
      for (;;) {
        const combined = parse(left);
        if (combined === undefined) return left;
        left = combined;
        levels++;
        this.enter();
      }
    } finally {
      this.depth -= levels;
    }
  }

  // ---- levels, lowest precedence first -----------------------------------------------------

  private or(): TqlExpression {
    return this.chain((left) => {
      const token = this.peek();
      if (this.acceptKeyword('OR')) {
        const operands = [left, this.and()];
        while (this.acceptKeyword('OR')) operands.push(this.and());
        return { kind: 'logical', operator: 'OR', operands, position: left.position };
      }
      if (this.acceptKeyword('XOR')) {
        return { kind: 'xor', left, right: this.and(), position: token.position };
      }
      return undefined;
    }, this.and());
  }

  private and(): TqlExpression {
    const first = this.not();
    if (!this.isKeyword(this.peek(), 'AND')) return first;
    const operands = [first];
    while (this.acceptKeyword('AND')) operands.push(this.not());
    return { kind: 'logical', operator: 'AND', operands, position: first.position };
  }

  private not(): TqlExpression {
    const token = this.peek();
    if (!this.acceptKeyword('NOT')) return this.comparison();
    this.enter();
    try {
      return { kind: 'unary', operator: 'NOT', operand: this.not(), position: token.position };
    } finally {
      this.leave();
    }
  }

  private comparison(): TqlExpression {
    return this.chain((left) => this.comparisonRest(left), this.bitwise());
  }

  private comparisonRest(left: TqlExpression): TqlExpression | undefined {
    const token = this.peek();
    const position = left.position;
    if (token.kind === 'operator') {
      const operator = COMPARISON_OPERATORS[token.text];
      if (operator === undefined) return undefined;
      this.next();
      return { kind: 'comparison', operator, left, right: this.bitwise(), position };
    }
    if (this.acceptKeyword('IS')) {
      const negated = this.acceptKeyword('NOT');
      const nullToken = this.peek();
      if (!this.acceptKeyword('NULL')) {
        throw tqlSyntaxError(`IS${negated ? ' NOT' : ''} must be followed by NULL, ` +
          `not ${this.describe(nullToken)}`, nullToken.position);
      }
      return { kind: 'isNull', operand: left, negated, position };
    }
    const negated = this.isKeyword(token, 'NOT') &&
      ['LIKE', 'IN', 'BETWEEN'].some((keyword) => this.isKeyword(this.peekAt(1), keyword));
    if (negated) this.next();
    if (this.acceptKeyword('LIKE')) {
      const pattern = this.bitwise();
      const escape = this.acceptKeyword('ESCAPE') ? this.bitwise() : undefined;
      return { kind: 'like', operand: left, pattern, escape, negated, position };
    }
    if (this.acceptKeyword('IN')) {
      return { kind: 'in', operand: left, list: this.inList(), negated, position };
    }
    if (this.acceptKeyword('BETWEEN')) {
      const low = this.bitwise();
      this.expectKeyword('AND');
      return { kind: 'between', operand: left, low, high: this.bitwise(), negated, position };
    }
    return undefined;
  }

  private inList(): TqlExpression[] {
    this.expectOperator('(', 'after IN');
    const list: TqlExpression[] = [];
    do {
      if (list.length === TQL_IN_LIST_LENGTH_MAX) {
        throw new TqlError('LIMIT_EXCEEDED',
          `an IN list may have at most ${TQL_IN_LIST_LENGTH_MAX} items`, this.peek().position);
      }
      list.push(this.expression());
    } while (this.acceptOperator(','));
    this.expectOperator(')', 'to close the IN list');
    return list;
  }

  private bitwise(): TqlExpression {
    return this.chain((left) => this.binary(left, BITWISE_OPERATORS, () => this.additive()),
      this.additive());
  }

  private additive(): TqlExpression {
    return this.chain((left) => this.binary(left, ADDITIVE_OPERATORS, () => this.multiplicative()),
      this.multiplicative());
  }

  private multiplicative(): TqlExpression {
    return this.chain((left) => this.binary(left, MULTIPLICATIVE_OPERATORS, () => this.unary()),
      this.unary());
  }

  private binary(
    left: TqlExpression,
    operators: readonly TqlOperator[],
    operand: () => TqlExpression,
  ): TqlExpression | undefined {
    const token = this.peek();
    if (token.kind !== 'operator' || !operators.includes(token.text)) return undefined;
    this.next();
    const operator = token.text as TqlArithmeticOperator;
    return { kind: 'arithmetic', operator, left, right: operand(), position: left.position };
  }

  private unary(): TqlExpression {
    const token = this.peek();
    const minus = this.acceptOperator('-');
    if (!minus && !this.acceptOperator('+')) return this.primary();
    this.enter();
    try {
      // `-5`, `-1.5`, `-INF` are literals (so -9223372036854775808 is a LONG); `-(5)` is not.
      const next = this.peek();
      const number = next.kind === 'integer' || next.kind === 'float' ||
        this.isKeyword(next, 'INF') || this.isKeyword(next, 'NAN');
      const operand = number ? this.primary() : this.unary();
      if (!minus) return operand;
      if (number) return negatedLiteral(operand, token.position);
      return { kind: 'unary', operator: '-', operand, position: token.position };
    } finally {
      this.leave();
    }
  }

  protected primary(): TqlExpression {
    const token = this.next();
    const { position } = token;
    switch (token.kind) {
      case 'integer': return literal({ type: 'INTEGER', value: token.value }, position);
      case 'float': return literal({ type: 'DOUBLE', value: token.value }, position);
      case 'string': return literal({ type: 'STRING', value: token.value }, position);
      case 'blob': return literal({ type: 'BLOB', value: token.value }, position);
      case 'operator':
        if (token.text === '(') {
          const inner = this.expression();
          this.expectOperator(')', 'to close "("');
          return inner;
        }
        break;
      case 'identifier':
        if (token.quoted) return { kind: 'name', name: token.text, quoted: true, position };
        return this.word(token);
      case 'end':
        break;
    }
    throw tqlSyntaxError(`expected a value, a column or a function, found ${this.describe(token)}`,
      position);
  }

  /** An unquoted identifier in an expression: a literal keyword, a function call or a name. */
  private word(token: TqlToken & { kind: 'identifier' }): TqlExpression {
    const { position } = token;
    const upper = token.text.toUpperCase();
    switch (upper) {
      case 'NULL': return literal({ type: 'NULL' }, position);
      case 'TRUE': return literal({ type: 'BOOL', value: true }, position);
      case 'FALSE': return literal({ type: 'BOOL', value: false }, position);
      case 'NAN': return literal({ type: 'DOUBLE', value: Number.NaN }, position);
      case 'INF': return literal({ type: 'DOUBLE', value: Number.POSITIVE_INFINITY }, position);
    }
    if (RESERVED.has(upper)) {
      throw tqlSyntaxError(`unexpected keyword ${token.text} (quote a column of that name: ` +
        `"${token.text}")`, position);
    }
    if (this.acceptOperator('(')) return this.call(token.text, position);
    return { kind: 'name', name: token.text, quoted: false, position };
  }

  private call(name: string, position: TqlPosition): TqlExpression {
    this.enter();
    try {
      const args: TqlExpression[] = [];
      let star = false;
      if (this.acceptOperator(')')) return { kind: 'call', name, star, args, position };
      if (this.acceptOperator('*')) {
        star = true;
        if (this.acceptOperator(')')) return { kind: 'call', name, star, args, position };
        this.expectOperator(',', `after * in ${name}(`);
      }
      do {
        if (args.length === TQL_FUNCTION_ARGUMENT_COUNT_MAX) {
          throw new TqlError('LIMIT_EXCEEDED', `a function takes at most ` +
            `${TQL_FUNCTION_ARGUMENT_COUNT_MAX} arguments`, this.peek().position);
        }
        args.push(this.expression());
      } while (this.acceptOperator(','));
      this.expectOperator(')', `to close ${name}(`);
      return { kind: 'call', name, star, args, position };
    } finally {
      this.leave();
    }
  }
}

function literal(value: TqlLiteral, position: TqlPosition): TqlExpression {
  return { kind: 'literal', literal: value, position };
}

function negatedLiteral(operand: TqlExpression, position: TqlPosition): TqlExpression {
  assert(operand.kind === 'literal');
  const value = operand.literal;
  if (value.type === 'INTEGER') return literal({ type: 'INTEGER', value: -value.value }, position);
  assert(value.type === 'DOUBLE');
  return literal({ type: 'DOUBLE', value: -value.value }, position);
}
