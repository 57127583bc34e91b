// The SQL printer: syntax tree → canonical SQL text that parses back to the same tree (the
// round-trip property test holds it to that). Keywords upper-case, names quoted when they were,
// parentheses only where precedence.ts needs them, hints as one comment after the first keyword.

import type {
  SqlExpression, SqlGroupBy, SqlHint, SqlHintArgument, SqlLiteral, SqlName, SqlOrderItem,
  SqlFrameBound, SqlMatchRecognize, SqlQuery, SqlRowPattern, SqlSelectCore, SqlSelectItem, SqlTableReference,
} from './ast.ts';
import type { SqlColumnDefinition, SqlPartitioning } from './ast-statements.ts';
import {
  BINARY_OPERATOR_LEVELS, expressionLevel, LEVEL_COMPARISON, LEVEL_EQUALITY, LEVEL_NOT,
  LEVEL_UNARY,
} from './precedence.ts';
import { quoteSqlName, quoteSqlString } from './tokens.ts';

export function printSqlName(name: SqlName): string {
  return name.quoted ? quoteSqlName(name.text) : name.text;
}

export function printSqlLiteral(literal: SqlLiteral): string {
  switch (literal.type) {
    case 'NULL': return 'NULL';
    case 'BOOL': return literal.value ? 'TRUE' : 'FALSE';
    case 'INTEGER': return String(literal.value);
    case 'DOUBLE': {
      const text = String(literal.value);
      return /[.eE]/.test(text) ? text : `${text}.0`; // keep it a float when read back
    }
    case 'STRING': return quoteSqlString(literal.value);
    case 'BLOB': return `X'${Buffer.from(literal.value).toString('hex').toUpperCase()}'`;
  }
}

/** An expression, in parentheses if it binds looser than `levelMin`. */
function operand(expression: SqlExpression, levelMin: number): string {
  const text = printSqlExpression(expression);
  return expressionLevel(expression) < levelMin ? `(${text})` : text;
}

export function printSqlExpression(expression: SqlExpression): string {
  const not = (negated: boolean): string => (negated ? 'NOT ' : '');
  switch (expression.kind) {
    case 'literal': return printSqlLiteral(expression.literal);
    case 'column': {
      const table = expression.table === undefined ? '' : `${printSqlName(expression.table)}.`;
      return `${table}${printSqlName(expression.name)}`;
    }
    case 'parameter': return expression.text;
    case 'timeUnit': return expression.unit;
    case 'unary': {
      if (expression.operator === 'NOT') return `NOT ${operand(expression.operand, LEVEL_NOT)}`;
      const text = operand(expression.operand, LEVEL_UNARY);
      // `- -x`, never `--x`, which would start a comment
      const space = text.startsWith('-') ? ' ' : '';
      return `${expression.operator}${space}${text}`;
    }
    case 'binary': {
      const level = BINARY_OPERATOR_LEVELS[expression.operator];
      return `${operand(expression.left, level)} ${expression.operator} ` +
        operand(expression.right, level + 1);
    }
    case 'is':
      return `${operand(expression.left, LEVEL_EQUALITY)} IS ${not(expression.negated)}` +
        operand(expression.right, LEVEL_COMPARISON);
    case 'isNull':
      return `${operand(expression.operand, LEVEL_EQUALITY)} ` +
        (expression.negated ? 'NOTNULL' : 'ISNULL');
    case 'like': {
      const escape = expression.escape === undefined
        ? '' : ` ESCAPE ${operand(expression.escape, LEVEL_COMPARISON)}`;
      return `${operand(expression.operand, LEVEL_EQUALITY)} ${not(expression.negated)}` +
        `${expression.operator} ${operand(expression.pattern, LEVEL_COMPARISON)}${escape}`;
    }
    case 'between':
      return `${operand(expression.operand, LEVEL_EQUALITY)} ${not(expression.negated)}BETWEEN ` +
        `${operand(expression.low, LEVEL_COMPARISON)} AND ` +
        operand(expression.high, LEVEL_COMPARISON);
    case 'in':
      return `${operand(expression.operand, LEVEL_EQUALITY)} ${not(expression.negated)}IN ` +
        `(${expression.list.map(printSqlExpression).join(', ')})`;
    case 'inSubquery':
      return `${operand(expression.operand, LEVEL_EQUALITY)} ${not(expression.negated)}IN ` +
        `(${printSqlQuery(expression.query)})`;
    case 'scalarSubquery': return `(${printSqlQuery(expression.query)})`;
    case 'window': {
      const parts: string[] = [];
      if (expression.partitionBy.length > 0) {
        parts.push(`PARTITION BY ${expression.partitionBy.map(printSqlExpression).join(', ')}`);
      }
      if (expression.orderBy.length > 0) parts.push(`ORDER BY ${printOrderItems(expression.orderBy)}`);
      const frame = expression.frame;
      if (frame !== undefined) {
        const bound = (b: SqlFrameBound): string => (b.kind === 'PRECEDING' || b.kind === 'FOLLOWING'
          ? `${b.timeUnit === undefined ? b.offset : `(${b.offset}, ${b.timeUnit})`} ${b.kind}` : b.kind);
        parts.push(`${frame.unit} BETWEEN ${bound(frame.start)} AND ${bound(frame.end)}`);
      }
      return `${printSqlExpression(expression.call)} OVER (${parts.join(' ')})`;
    }
    case 'exists': return `${not(expression.negated)}EXISTS (${printSqlQuery(expression.query)})`;
    case 'case': {
      const parts = ['CASE'];
      if (expression.operand !== undefined) parts.push(printSqlExpression(expression.operand));
      for (const { when, then } of expression.whens) {
        parts.push(`WHEN ${printSqlExpression(when)} THEN ${printSqlExpression(then)}`);
      }
      if (expression.otherwise !== undefined) {
        parts.push(`ELSE ${printSqlExpression(expression.otherwise)}`);
      }
      parts.push('END');
      return parts.join(' ');
    }
    case 'cast': return `CAST(${printSqlExpression(expression.operand)} AS ${expression.type})`;
    case 'call': {
      const quantifier = expression.quantifier === undefined ? '' : `${expression.quantifier} `;
      const args = expression.star ? '*' : expression.args.map(printSqlExpression).join(', ');
      const within = expression.withinGroup === undefined
        ? '' : ` WITHIN GROUP (ORDER BY ${printOrderItems(expression.withinGroup)})`;
      return `${expression.name}(${quantifier}${args})${within}`;
    }
  }
}

function printOrderItems(items: readonly SqlOrderItem[]): string {
  return items.map((item) => printSqlExpression(item.expression) +
    (item.direction === undefined ? '' : ` ${item.direction}`)).join(', ');
}

function printSelectItem(item: SqlSelectItem): string {
  if (item.kind === 'star') return item.table === undefined ? '*' : `${printSqlName(item.table)}.*`;
  const alias = item.alias === undefined ? '' : ` AS ${printSqlName(item.alias)}`;
  return `${printSqlExpression(item.expression)}${alias}`;
}

function printGroupBy(groupBy: SqlGroupBy): string {
  if (groupBy.kind === 'expressions') {
    return `GROUP BY ${groupBy.expressions.map(printSqlExpression).join(', ')}`;
  }
  const offset = groupBy.offset === undefined ? ''
    : `, ${typeof groupBy.offset === 'string' ? quoteSqlString(groupBy.offset) : groupBy.offset}`;
  const fill = groupBy.fill === undefined ? '' : ` FILL(${groupBy.fill})`;
  return `GROUP BY RANGE(${printSqlExpression(groupBy.key)}) ` +
    `EVERY(${groupBy.interval}, ${groupBy.unit}${offset})${fill}`;
}

/** ` /*+ ... *\/` with a space before, or nothing. */
export function printHints(hints: readonly SqlHint[]): string {
  if (hints.length === 0) return '';
  const argument = (arg: SqlHintArgument): string =>
    (arg.kind === 'group' ? `(${arg.items.map(argument).join(' ')})` : arg.text);
  return ` /*+ ${hints.map((hint) => `${hint.name}(${hint.args.map(argument).join(' ')})`)
    .join(' ')} */`;
}

/** `SELECT ...` with the hints of its statement after the keyword. */
export function printSqlQuery(query: SqlQuery, hints: readonly SqlHint[] = []): string {
  if (query.kind === 'select') return printSelectCore(query, hints);
  const parts = [printSqlQuery(query.left, hints), query.operator, printSelectCore(query.right, [])];
  printTail(query, parts);
  return parts.join(' ');
}

function printTableReference(reference: SqlTableReference): string {
  switch (reference.kind) {
    case 'table': {
      const alias = reference.alias === undefined ? '' : ` AS ${printSqlName(reference.alias)}`;
      return `${printSqlName(reference.name)}${alias}`;
    }
    case 'derived': return `(${printSqlQuery(reference.query)}) AS ${printSqlName(reference.alias)}`;
    case 'join': {
      const natural = reference.natural ? 'NATURAL ' : '';
      const right = reference.right.kind === 'join'
        ? `(${printTableReference(reference.right)})` : printTableReference(reference.right);
      const condition = reference.condition !== undefined ? ` ON ${printSqlExpression(reference.condition)}`
        : reference.using !== undefined ? ` USING (${reference.using.map(printSqlName).join(', ')})` : '';
      return `${printTableReference(reference.left)} ${natural}${reference.type} JOIN ${right}${condition}`;
    }
    case 'matchRecognize': {
      const source = reference.source.kind === 'table' ? printSqlName(reference.source.name)
        : `(${printSqlQuery(reference.source.query)})`;
      const alias = reference.alias === undefined ? '' : ` AS ${printSqlName(reference.alias)}`;
      return `${source} MATCH_RECOGNIZE (${printMatchRecognize(reference.clause)})${alias}`;
    }
  }
}

function printMatchRecognize(clause: SqlMatchRecognize): string {
  const parts: string[] = [];
  if (clause.partitionBy.length > 0) {
    parts.push(`PARTITION BY ${clause.partitionBy.map(printSqlExpression).join(', ')}`);
  }
  if (clause.orderBy.length > 0) parts.push(`ORDER BY ${printOrderItems(clause.orderBy)}`);
  if (clause.measures.length > 0) {
    parts.push(`MEASURES ${clause.measures.map((measure) => printSqlExpression(measure.expression) +
      (measure.alias === undefined ? '' : ` AS ${printSqlName(measure.alias)}`)).join(', ')}`);
  }
  if (clause.rowsPerMatch !== undefined) parts.push(`${clause.rowsPerMatch} PER MATCH`);
  if (clause.skipPastLastRow) parts.push('AFTER MATCH SKIP PAST LAST ROW');
  parts.push(`PATTERN (${printRowPattern(clause.pattern)})`);
  parts.push(`DEFINE ${clause.define.map((item) =>
    `${printSqlName(item.name)} AS ${printSqlExpression(item.condition)}`).join(', ')}`);
  return parts.join(' ');
}

/** Parentheses where the parser would otherwise group differently; spaces around every item. */
export function printRowPattern(pattern: SqlRowPattern): string {
  switch (pattern.kind) {
    case 'variable': return printSqlName(pattern.name);
    case 'anchor': return pattern.anchor;
    case 'concat':
      return pattern.items.map((item) => (item.kind === 'concat' || item.kind === 'alternation'
        ? `(${printRowPattern(item)})` : printRowPattern(item))).join(' ');
    case 'alternation':
      return pattern.items.map((item) => (item.kind === 'alternation'
        ? `(${printRowPattern(item)})` : printRowPattern(item))).join(' | ');
    case 'quantified': {
      const inner = pattern.pattern.kind === 'variable' ? printRowPattern(pattern.pattern)
        : `(${printRowPattern(pattern.pattern)})`;
      return `${inner}${printQuantifier(pattern.min, pattern.max)}`;
    }
  }
}

function printQuantifier(min: number, max: number): string {
  if (max === Infinity) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`;
  if (min === 0 && max === 1) return '?';
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

function printTail(query: Pick<SqlSelectCore, 'orderBy' | 'limit' | 'offset'>, parts: string[]): void {
  if (query.orderBy.length > 0) parts.push(`ORDER BY ${printOrderItems(query.orderBy)}`);
  if (query.limit !== undefined) parts.push(`LIMIT ${printSqlExpression(query.limit)}`);
  if (query.offset !== undefined) parts.push(`OFFSET ${printSqlExpression(query.offset)}`);
}

function printSelectCore(query: SqlSelectCore, hints: readonly SqlHint[]): string {
  const parts = [`SELECT${printHints(hints)}`];
  if (query.quantifier !== undefined) parts.push(query.quantifier);
  parts.push(query.items.map(printSelectItem).join(', '));
  if (query.from !== undefined) parts.push(`FROM ${printTableReference(query.from)}`);
  if (query.where !== undefined) parts.push(`WHERE ${printSqlExpression(query.where)}`);
  if (query.groupBy !== undefined) parts.push(printGroupBy(query.groupBy));
  if (query.having !== undefined) parts.push(`HAVING ${printSqlExpression(query.having)}`);
  printTail(query, parts);
  return parts.join(' ');
}

export { printSqlStatement } from './print-statement.ts';
export { printColumnDefinition, printPartitioning };

function printColumnDefinition(column: SqlColumnDefinition): string {
  const parts = [printSqlName(column.name), column.type];
  if (column.primaryKey) parts.push('PRIMARY KEY');
  if (column.nullable !== undefined) parts.push(column.nullable ? 'NULL' : 'NOT NULL');
  return parts.join(' ');
}

function printPartitioning(partitioning: SqlPartitioning): string {
  const column = `(${printSqlName(partitioning.column)})`;
  if (partitioning.kind === 'hash') {
    return `PARTITION BY HASH ${column} PARTITIONS ${partitioning.partitionCount}`;
  }
  const unit = partitioning.unit === undefined ? '' : `, ${partitioning.unit}`;
  const sub = partitioning.subpartition === undefined ? ''
    : ` SUBPARTITION BY HASH (${printSqlName(partitioning.subpartition.column)}) ` +
      `SUBPARTITIONS ${partitioning.subpartition.count}`;
  return `PARTITION BY RANGE ${column} EVERY (${partitioning.interval}${unit})${sub}`;
}

