// CREATE/DROP TABLE, CREATE/DROP INDEX, ALTER TABLE (§5.2), from after CREATE, DROP or ALTER.
// Column PRIMARY KEY only on the first column, not together with a PRIMARY KEY (...) constraint,
// and never in ALTER TABLE ADD: these are syntax errors at the place, as the spec words them.
// PARTITION BY parses into `partitioning` for the executor to refuse with NOT_SUPPORTED.

import type { SqlLiteral, SqlName } from './ast.ts';
import type {
  SqlColumnDefinition, SqlPartitioning, SqlStatement, SqlTableOption,
} from './ast-statements.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlSyntaxError, type SqlPosition } from './errors.ts';
import { parseExpression as parseExpressionForPartition } from './parse-expression.ts';
import { parseColumnType } from './parse-primary.ts';

function parseIfNotExists(cursor: SqlCursor): boolean {
  if (!cursor.acceptKeyword('IF')) return false;
  cursor.expectKeyword('NOT');
  cursor.expectKeyword('EXISTS');
  return true;
}

export function parseIfExists(cursor: SqlCursor): boolean {
  if (!cursor.acceptKeyword('IF')) return false;
  cursor.expectKeyword('EXISTS');
  return true;
}

function parseColumnNames(cursor: SqlCursor): SqlName[] {
  return cursor.parenthesizedList(() => cursor.expectName('a column name'));
}

export function parseColumnDefinition(cursor: SqlCursor): SqlColumnDefinition {
  const name = cursor.expectName('a column name');
  const type = parseColumnType(cursor);
  let nullable: boolean | undefined;
  let primaryKey = false;
  for (;;) {
    const position = cursor.position();
    if (cursor.acceptKeyword('PRIMARY')) {
      cursor.expectKeyword('KEY');
      if (primaryKey) throw sqlSyntaxError(`PRIMARY KEY twice on column ${name.text}`, position);
      primaryKey = true;
    } else if (cursor.isKeyword('NULL') || cursor.isKeyword('NOT')) {
      const notNull = cursor.acceptKeyword('NOT');
      cursor.expectKeyword('NULL');
      if (nullable !== undefined) {
        throw sqlSyntaxError(`NULL or NOT NULL twice on column ${name.text}`, position);
      }
      nullable = !notNull;
    } else {
      return { name, type, nullable, primaryKey };
    }
  }
}

export function parseCreateTableRest(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  const ifNotExists = parseIfNotExists(cursor);
  const name = cursor.expectName('a table name');
  cursor.expectOperator('(');
  const columns: SqlColumnDefinition[] = [];
  let primaryKey: SqlName[] | undefined;
  do {
    const itemPosition = cursor.position();
    if (cursor.acceptKeyword('PRIMARY')) {
      cursor.expectKeyword('KEY');
      primaryKey = parseColumnNames(cursor);
      if (columns.some((column) => column.primaryKey)) {
        throw sqlSyntaxError('PRIMARY KEY (...) together with a column PRIMARY KEY', itemPosition);
      }
      break;
    }
    const column = parseColumnDefinition(cursor);
    if (column.primaryKey && columns.length > 0) {
      throw sqlSyntaxError(`only the first column may be declared PRIMARY KEY, not ` +
        `${column.name.text}; write PRIMARY KEY (...) after the columns`, itemPosition);
    }
    columns.push(column);
  } while (cursor.acceptOperator(','));
  cursor.expectOperator(')');
  let timeSeries = false;
  if (cursor.acceptKeyword('USING')) {
    cursor.expectKeyword('TIMESERIES');
    timeSeries = true;
  }
  const options = cursor.acceptKeyword('WITH')
    ? cursor.parenthesizedList(() => parseTableOption(cursor)) : [];
  const partitioning = cursor.isKeyword('PARTITION') ? parsePartitioning(cursor) : undefined;
  return {
    kind: 'createTable', ifNotExists, name, columns, primaryKey, timeSeries, options, partitioning,
    position,
  };
}

function parseTableOption(cursor: SqlCursor): SqlTableOption {
  const key = cursor.expectName('a table option name');
  cursor.expectOperator('=');
  return { key, value: parseOptionValue(cursor) };
}

function parseOptionValue(cursor: SqlCursor): SqlLiteral {
  const negative = cursor.acceptOperator('-');
  const token = cursor.peek();
  if (token.kind === 'string' && !negative) {
    cursor.next();
    return { type: 'STRING', value: token.value };
  }
  if (token.kind === 'integer') {
    cursor.next();
    return { type: 'INTEGER', value: negative ? -token.value : token.value };
  }
  if (token.kind === 'float') {
    cursor.next();
    return { type: 'DOUBLE', value: negative ? -token.value : token.value };
  }
  return cursor.fail('a string or a number');
}

function parsePartitioning(cursor: SqlCursor): SqlPartitioning {
  const position = cursor.expectKeyword('PARTITION');
  cursor.expectKeyword('BY');
  if (cursor.acceptKeyword('HASH')) {
    const column = parseSingleColumn(cursor);
    cursor.expectKeyword('PARTITIONS');
    const partitionCount = cursor.expectInteger('a partition count');
    return { kind: 'hash', column, partitionCount, position };
  }
  if (!cursor.acceptKeyword('RANGE')) cursor.fail('HASH or RANGE');
  const column = parseSingleColumn(cursor);
  cursor.expectKeyword('EVERY');
  cursor.expectOperator('(');
  const interval = cursor.expectInteger('an interval');
  let unit: 'DAY' | 'HOUR' | undefined;
  if (cursor.acceptOperator(',')) {
    if (cursor.acceptKeyword('DAY')) unit = 'DAY';
    else if (cursor.acceptKeyword('HOUR')) unit = 'HOUR';
    else cursor.fail('DAY or HOUR');
  }
  cursor.expectOperator(')');
  let subpartition: { column: SqlName; count: bigint } | undefined;
  if (cursor.acceptKeyword('SUBPARTITION')) {
    cursor.expectKeyword('BY');
    cursor.expectKeyword('HASH');
    const subColumn = parseSingleColumn(cursor);
    cursor.expectKeyword('SUBPARTITIONS');
    subpartition = { column: subColumn, count: cursor.expectInteger('a subpartition count') };
  }
  return { kind: 'interval', column, interval, unit, subpartition, position };
}

function parseSingleColumn(cursor: SqlCursor): SqlName {
  cursor.expectOperator('(');
  const column = cursor.expectName('a column name');
  cursor.expectOperator(')');
  return column;
}

export function parseCreateIndexRest(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  const ifNotExists = parseIfNotExists(cursor);
  const name = cursor.expectName('an index name');
  cursor.expectKeyword('ON');
  const table = cursor.expectName('a table name');
  const columns = parseColumnNames(cursor);
  return { kind: 'createIndex', ifNotExists, name, table, columns, position };
}

export function parseAlterTableRest(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  cursor.expectKeyword('TABLE');
  const table = cursor.expectName('a table name');
  if (cursor.acceptKeyword('RENAME')) {
    cursor.expectKeyword('COLUMN');
    const from = cursor.expectName('a column name');
    cursor.expectKeyword('TO');
    const to = cursor.expectName('a column name');
    return { kind: 'alterTableRenameColumn', table, from, to, position };
  }
  if (cursor.acceptKeyword('DROP')) {
    cursor.expectKeyword('PARTITION');
    cursor.expectKeyword('FOR');
    cursor.expectOperator('(');
    const value = parseExpressionForPartition(cursor);
    cursor.expectOperator(')');
    return { kind: 'alterTableDropPartition', table, value, position };
  }
  if (!cursor.isKeyword('ADD')) cursor.fail('ADD, RENAME COLUMN or DROP PARTITION');
  const columns = cursor.list(() => {
    cursor.expectKeyword('ADD');
    cursor.acceptKeyword('COLUMN');
    const columnPosition = cursor.position();
    const column = parseColumnDefinition(cursor);
    if (column.primaryKey) {
      throw sqlSyntaxError('ALTER TABLE ADD cannot add a PRIMARY KEY column', columnPosition);
    }
    return column;
  });
  return { kind: 'alterTableAddColumns', table, columns, position };
}

