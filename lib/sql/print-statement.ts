// Statements → canonical SQL text (print.ts prints expressions and queries). One case per
// statement kind of ast-statements.ts; hints go after the first keyword.

import type { SqlExpression, SqlHint } from './ast.ts';
import type { SqlStatement } from './ast-statements.ts';
import {
  printColumnDefinition, printHints, printPartitioning, printSqlExpression, printSqlLiteral,
  printSqlName, printSqlQuery,
} from './print.ts';
import { quoteSqlString } from './tokens.ts';

function printWhere(where: SqlExpression | undefined): string {
  return where === undefined ? '' : ` WHERE ${printSqlExpression(where)}`;
}

function hintText(hints: readonly SqlHint[]): string {
  return printHints(hints);
}

export function printSqlStatement(statement: SqlStatement): string {
  const ifExists = (flag: boolean): string => (flag ? 'IF EXISTS ' : '');
  const ifNotExists = (flag: boolean): string => (flag ? 'IF NOT EXISTS ' : '');
  switch (statement.kind) {
    case 'select': return printSqlQuery(statement.query, statement.hints);
    case 'insert': {
      const columns = statement.columns === undefined
        ? '' : ` (${statement.columns.map(printSqlName).join(', ')})`;
      const source = statement.source.kind === 'query'
        ? printSqlQuery(statement.source.query)
        : `VALUES ${statement.source.rows.map((row) =>
          `(${row.map(printSqlExpression).join(', ')})`).join(', ')}`;
      const [first, ...rest] = statement.mode.split(' '); // hints go after the first keyword
      return `${[`${first}${hintText(statement.hints)}`, ...rest].join(' ')} INTO ` +
        `${printSqlName(statement.table)}${columns} ${source}`;
    }
    case 'update': {
      const sets = statement.assignments.map(({ column, value }) =>
        `${printSqlName(column)} = ${printSqlExpression(value)}`).join(', ');
      const where = printWhere(statement.where);
      return `UPDATE${hintText(statement.hints)} ${printSqlName(statement.table)} SET ` +
        `${sets}${where}`;
    }
    case 'delete': {
      const where = printWhere(statement.where);
      return `DELETE${hintText(statement.hints)} FROM ${printSqlName(statement.table)}${where}`;
    }
    case 'explain':
      return `EXPLAIN ${statement.analyze ? 'ANALYZE ' : ''}` +
        printSqlStatement(statement.statement);
    case 'createTable': {
      const items = statement.columns.map(printColumnDefinition);
      if (statement.primaryKey !== undefined) {
        items.push(`PRIMARY KEY (${statement.primaryKey.map(printSqlName).join(', ')})`);
      }
      const parts = [`CREATE TABLE ${ifNotExists(statement.ifNotExists)}` +
        `${printSqlName(statement.name)} (${items.join(', ')})`];
      if (statement.timeSeries) parts.push('USING TIMESERIES');
      if (statement.options.length > 0) {
        parts.push(`WITH (${statement.options.map(({ key, value }) =>
          `${printSqlName(key)} = ${printSqlLiteral(value)}`).join(', ')})`);
      }
      if (statement.partitioning !== undefined) {
        parts.push(printPartitioning(statement.partitioning));
      }
      return parts.join(' ');
    }
    case 'dropTable':
      return `DROP TABLE ${ifExists(statement.ifExists)}${printSqlName(statement.name)}`;
    case 'createIndex':
      return `CREATE INDEX ${ifNotExists(statement.ifNotExists)}${printSqlName(statement.name)} ` +
        `ON ${printSqlName(statement.table)} (${statement.columns.map(printSqlName).join(', ')})`;
    case 'dropIndex':
      return `DROP INDEX ${ifExists(statement.ifExists)}${printSqlName(statement.name)} ` +
        `ON ${printSqlName(statement.table)}`;
    case 'alterTableAddColumns':
      return `ALTER TABLE ${printSqlName(statement.table)} ` +
        statement.columns.map((column) => `ADD COLUMN ${printColumnDefinition(column)}`).join(', ');
    case 'alterTableRenameColumn':
      return `ALTER TABLE ${printSqlName(statement.table)} RENAME COLUMN ` +
        `${printSqlName(statement.from)} TO ${printSqlName(statement.to)}`;
    case 'alterTableDropPartition':
      return `ALTER TABLE ${printSqlName(statement.table)} DROP PARTITION FOR ` +
        `(${printSqlExpression(statement.value)})`;
    case 'createDatabase': return `CREATE DATABASE ${printSqlName(statement.name)}`;
    case 'dropDatabase': return `DROP DATABASE ${printSqlName(statement.name)}`;
    case 'createRole': return `CREATE ROLE ${printSqlName(statement.name)}`;
    case 'dropRole': return `DROP ROLE ${printSqlName(statement.name)}`;
    case 'dropUser': return `DROP USER ${printSqlName(statement.name)}`;
    case 'createUser':
      return `CREATE USER ${printSqlName(statement.name)} IDENTIFIED BY ` +
        `${statement.digest ? 'SHA256 ' : ''}${quoteSqlString(statement.password)}`;
    case 'setPassword': {
      const user = statement.user === undefined ? '' : ` FOR ${printSqlName(statement.user)}`;
      return `SET PASSWORD${user} = ${statement.digest ? 'SHA256 ' : ''}${quoteSqlString(statement.password)}`;
    }
    case 'grant':
    case 'revoke':
      return `${statement.kind.toUpperCase()} ${statement.privilege} ON ` +
        `${printSqlName(statement.database)} ${statement.kind === 'grant' ? 'TO' : 'FROM'} ` +
        printSqlName(statement.grantee);
    case 'createView':
      return `CREATE ${statement.force ? 'FORCE ' : ''}VIEW ${printSqlName(statement.name)} AS ` +
        printSqlQuery(statement.query);
    case 'dropView':
      return `DROP VIEW ${ifExists(statement.ifExists)}${printSqlName(statement.name)}`;
  }
}
