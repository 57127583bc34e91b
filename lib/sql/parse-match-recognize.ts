// MATCH_RECOGNIZE (...) after a table name or a derived table (§5.5, GridDB 5.9), in GridDB's
// grammar (server/sql_internal_parser: pattern_recognize):
//
//   MATCH_RECOGNIZE ( [PARTITION BY expr, ...] [ORDER BY expr [ASC|DESC], ...]
//     [MEASURES expr [AS name], ...] [ONE ROW PER MATCH | ALL ROWS PER MATCH]
//     [AFTER MATCH SKIP PAST LAST ROW] PATTERN ( pattern ) DEFINE name AS cond, ... )
//
//   pattern := term ('|' term)*       term := factor+
//   factor  := base ['*' | '+' | '?' | '{n}' | '{n,}' | '{,m}' | '{n,m}'] | '^' | '$'
//   base    := name | '(' pattern ')'
//
// GridDB refuses the rest of SQL:2016's row pattern grammar, and so does this parser, each with
// the construct's name at its position: reluctant quantifiers (`A*?`), PERMUTE, exclusion `{- -}`,
// SUBSET, AFTER MATCH SKIP TO ..., SHOW/OMIT EMPTY MATCHES, WITH UNMATCHED ROWS, an empty PATTERN.
// The lexer reads `A?` as A and a `?` parameter token, and `A$` as one word: both are split here.

import { SQL_ROW_PATTERN_QUANTIFIER_BOUND_MAX, SQL_ROW_PATTERN_VARIABLE_COUNT_MAX } from '../base/limits.ts';
import type {
  SqlMatchRecognize, SqlMatchSource, SqlName, SqlOrderItem, SqlRowPattern, SqlTableReference,
} from './ast.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlLimitExceeded, sqlNotSupported, sqlSyntaxError, type SqlPosition } from './errors.ts';
import { parseExpression } from './parse-expression.ts';
import { parseAlias } from './parse-select.ts';
import type { SqlToken } from './tokens.ts';

/** Parses `MATCH_RECOGNIZE (...) [[AS] alias]` after `source`; the cursor is on MATCH_RECOGNIZE. */
export function parseMatchRecognize(cursor: SqlCursor, source: SqlMatchSource, position: SqlPosition):
  SqlTableReference {
  cursor.expectKeyword('MATCH_RECOGNIZE');
  cursor.expectOperator('(');
  const clause = parseClause(cursor);
  cursor.expectOperator(')');
  const alias = parseAlias(cursor);
  return { kind: 'matchRecognize', source, clause, alias, position };
}

function parseClause(cursor: SqlCursor): SqlMatchRecognize {
  let partitionBy: SqlMatchRecognize['partitionBy'] = [];
  if (cursor.acceptKeyword('PARTITION')) {
    cursor.expectKeyword('BY');
    partitionBy = cursor.list(() => parseExpression(cursor));
  }
  let orderBy: SqlOrderItem[] = [];
  if (cursor.acceptKeyword('ORDER')) {
    cursor.expectKeyword('BY');
    orderBy = cursor.list(() => {
      const expression = parseExpression(cursor);
      const direction = cursor.acceptKeyword('ASC') ? 'ASC' : cursor.acceptKeyword('DESC') ? 'DESC' : undefined;
      return { expression, direction };
    });
  }
  let measures: SqlMatchRecognize['measures'] = [];
  if (cursor.acceptKeyword('MEASURES')) {
    measures = cursor.list(() => {
      refuseWord(cursor, 'FINAL', 'FINAL (measures are RUNNING)');
      refuseWord(cursor, 'RUNNING', 'RUNNING (it is the only semantics: leave the word out)');
      const expression = parseExpression(cursor);
      return { expression, alias: parseAlias(cursor) };
    });
  }
  const rowsPerMatch = parseRowsPerMatch(cursor);
  const skipPastLastRow = parseSkip(cursor);
  if (cursor.isKeyword('PATTERN') === false) cursor.fail('PATTERN');
  cursor.next();
  cursor.expectOperator('(');
  if (cursor.isOperator(')')) throw sqlNotSupported('an empty PATTERN () is not supported', cursor.position());
  const pattern = parsePattern(cursor, 0);
  cursor.expectOperator(')');
  refuseWord(cursor, 'SUBSET', 'SUBSET');
  cursor.expectKeyword('DEFINE');
  const define = cursor.list(() => {
    const name = cursor.expectName('a pattern variable name');
    cursor.expectKeyword('AS');
    return { name, condition: parseExpression(cursor) };
  });
  if (define.length > SQL_ROW_PATTERN_VARIABLE_COUNT_MAX) {
    throw sqlLimitExceeded(`DEFINE takes at most ${SQL_ROW_PATTERN_VARIABLE_COUNT_MAX} variables`,
      define[SQL_ROW_PATTERN_VARIABLE_COUNT_MAX]!.name.position);
  }
  return { partitionBy, orderBy, measures, rowsPerMatch, skipPastLastRow, pattern, define };
}

function refuseWord(cursor: SqlCursor, word: string, what: string): void {
  if (cursor.isKeyword(word)) throw sqlNotSupported(`${what} is not supported in MATCH_RECOGNIZE`, cursor.position());
}

function parseRowsPerMatch(cursor: SqlCursor): SqlMatchRecognize['rowsPerMatch'] {
  let rows: SqlMatchRecognize['rowsPerMatch'];
  if (cursor.acceptKeyword('ONE')) {
    cursor.expectKeyword('ROW');
    rows = 'ONE ROW';
  } else if (cursor.acceptKeyword('ALL')) {
    cursor.expectKeyword('ROWS');
    rows = 'ALL ROWS';
  } else {
    return undefined;
  }
  cursor.expectKeyword('PER');
  cursor.expectKeyword('MATCH');
  for (const word of ['SHOW', 'OMIT', 'WITH']) {
    refuseWord(cursor, word, `${word} ${word === 'WITH' ? 'UNMATCHED ROWS' : 'EMPTY MATCHES'}`);
  }
  return rows;
}

function parseSkip(cursor: SqlCursor): boolean {
  if (!cursor.acceptKeyword('AFTER')) return false;
  cursor.expectKeyword('MATCH');
  cursor.expectKeyword('SKIP');
  if (cursor.isKeyword('TO')) {
    throw sqlNotSupported('AFTER MATCH SKIP TO is not supported: only AFTER MATCH SKIP PAST LAST ROW',
      cursor.position());
  }
  cursor.expectKeyword('PAST');
  cursor.expectKeyword('LAST');
  cursor.expectKeyword('ROW');
  return true;
}

/** Alternatives separated by `|`; `depth` bounds the nesting of parentheses. */
function parsePattern(cursor: SqlCursor, depth: number): SqlRowPattern {
  const items = [parseTerm(cursor, depth)];
  while (cursor.acceptOperator('|')) items.push(parseTerm(cursor, depth));
  return items.length === 1 ? items[0]! : { kind: 'alternation', items };
}

function parseTerm(cursor: SqlCursor, depth: number): SqlRowPattern {
  const items: SqlRowPattern[] = [];
  while (!cursor.isOperator(')') && !cursor.isOperator('|') && cursor.peek().kind !== 'end') {
    items.push(...parseFactor(cursor, depth));
  }
  if (items.length === 0) cursor.fail('a pattern variable, ( or ^');
  return items.length === 1 ? items[0]! : { kind: 'concat', items };
}

/** One factor, or two when a word `A$` carries the end anchor. */
function parseFactor(cursor: SqlCursor, depth: number): SqlRowPattern[] {
  const token = cursor.peek();
  const position = token.position;
  if (cursor.acceptOperator('^')) return [{ kind: 'anchor', anchor: '^', position }];
  if (cursor.acceptOperator('$')) return [{ kind: 'anchor', anchor: '$', position }];
  if (token.kind === 'word' && token.upper === 'PERMUTE' && cursor.isOperator('(', 1)) {
    throw sqlNotSupported('PERMUTE is not supported in PATTERN', position);
  }
  if (cursor.isOperator('{') && isOperatorToken(cursor.peek(1), '-')) {
    throw sqlNotSupported('an exclusion {- ... -} is not supported in PATTERN', position);
  }
  let base: SqlRowPattern;
  if (cursor.acceptOperator('(')) {
    if (depth >= SQL_ROW_PATTERN_NESTING_MAX) {
      throw sqlLimitExceeded(`a PATTERN may nest at most ${SQL_ROW_PATTERN_NESTING_MAX} parentheses deep`, position);
    }
    if (cursor.isOperator(')')) throw sqlNotSupported('an empty pattern () is not supported', position);
    base = parsePattern(cursor, depth + 1);
    cursor.expectOperator(')');
  } else if (token.kind === 'word' && token.text.endsWith('$') && token.text.length > 1) {
    // `A$`: the lexer takes `$` as part of a name; GridDB's grammar reads it as the end anchor.
    cursor.next();
    const text = token.text.slice(0, -1);
    const name: SqlName = { text, quoted: false, position };
    const dollar = { ...position, offset: position.offset + text.length, column: position.column + text.length };
    return [{ kind: 'variable', name }, { kind: 'anchor', anchor: '$', position: dollar }];
  } else {
    base = { kind: 'variable', name: cursor.expectName('a pattern variable') };
  }
  return [parseQuantifier(cursor, base)];
}

/** Parentheses a PATTERN may nest (the expression depth bound, for the parser's stack). */
const SQL_ROW_PATTERN_NESTING_MAX = 100;

function isOperatorToken(token: SqlToken, text: string): boolean {
  return token.kind === 'operator' && token.text === text;
}

function parseQuantifier(cursor: SqlCursor, pattern: SqlRowPattern): SqlRowPattern {
  const token = cursor.peek();
  const position = token.position;
  let min: number;
  let max: number;
  if (cursor.acceptOperator('*')) {
    [min, max] = [0, Infinity];
  } else if (cursor.acceptOperator('+')) {
    [min, max] = [1, Infinity];
  } else if (token.kind === 'parameter' && token.text === '?') {
    cursor.next();
    [min, max] = [0, 1];
  } else if (cursor.isOperator('{') && !isOperatorToken(cursor.peek(1), '-')) {
    cursor.next();
    [min, max] = parseBraces(cursor);
  } else {
    return pattern;
  }
  const after = cursor.peek();
  if (after.kind === 'parameter' && after.text === '?') {
    throw sqlNotSupported('a reluctant quantifier (a quantifier followed by ?) is not supported', after.position);
  }
  if (after.kind === 'parameter' || (after.kind === 'operator' && ['*', '+', '{'].includes(after.text))) {
    throw sqlSyntaxError('a quantifier follows a quantifier: put the first in parentheses', after.position);
  }
  return { kind: 'quantified', pattern, min, max, position };
}

/** `{n}`, `{n,}`, `{,m}`, `{n,m}` after the `{`. */
function parseBraces(cursor: SqlCursor): [number, number] {
  const bound = (): number => {
    const at = cursor.position();
    const value = cursor.expectInteger('a quantifier bound (an integer)');
    if (value > BigInt(SQL_ROW_PATTERN_QUANTIFIER_BOUND_MAX)) {
      throw sqlLimitExceeded(`a quantifier bound may be at most ${SQL_ROW_PATTERN_QUANTIFIER_BOUND_MAX}`, at);
    }
    return Number(value);
  };
  let min = 0;
  let max: number;
  if (cursor.acceptOperator(',')) {
    max = bound();
  } else {
    min = bound();
    if (!cursor.acceptOperator(',')) max = min;
    else max = cursor.isOperator('}') ? Infinity : bound();
  }
  const close = cursor.position();
  cursor.expectOperator('}');
  if (min > max) throw sqlSyntaxError(`numbers out of order in the quantifier {${min},${max}}`, close);
  return [min, max];
}
