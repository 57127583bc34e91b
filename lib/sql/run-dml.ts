// INSERT, INSERT OR REPLACE / REPLACE, UPDATE and DELETE (§5.4). Each statement computes every row
// it changes first (bounded by SQL_DML_ROW_COUNT_MAX), then applies them in one transaction on the
// table: a failing row (a duplicate key on plain INSERT, a NULL in a NOT NULL column, a value out
// of its column's range) aborts it, and the table is as before. Values take their column's shape
// by the assignment rules below; other conversions are CAST's (lib/sql/functions/cast.ts).

import { StorageError } from '../base/errors.ts';
import { SQL_DML_ROW_COUNT_MAX, SQL_VALUES_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row, RowKey, Value } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { SqlExpression, SqlName, SqlStatement } from './ast.ts';
import { SqlError, sqlNotSupported, type SqlPosition } from './errors.ts';
import { collectRows, type SqlRunEnvironment } from './exec/execute-plan.ts';
import { sqlTypeOfColumn } from './exec/table-source.ts';
import { widenValue } from './exec/value-ops.ts';
import { bindExpression, sqlTypeError, type SqlBindScope } from './plan/bind-expression.ts';
import type { SqlBoundExpression } from './plan/bound-expression.ts';
import type { SqlPlanNode } from './plan/logical-plan.ts';
import { bindCondition, columnIndexOf, planQuery, type SqlPlanContext } from './plan/plan-select.ts';
import { scanAccess } from './plan/plan-scan.ts';
import type { SqlDatabase } from './sql-database.ts';
import { SQL_INTEGER_TYPES, SQL_TIMESTAMP_TYPES, isSqlNumericType, type SqlType, type SqlValue } from './value.ts';

type Dml = Extract<SqlStatement, { kind: 'insert' | 'update' | 'delete' }>;

export async function runDml(statement: Dml, database: SqlDatabase, plan: SqlPlanContext,
  env: SqlRunEnvironment): Promise<number> {
  const schema = database.tableSchema(statement.table.text);
  if (schema === undefined) {
    throw new SqlError('CONTAINER_NOT_FOUND', `no table ${statement.table.text}`, statement.table.position);
  }
  const unreadable = schema.columns.find((column) => sqlTypeOfColumn(column) === 'UNKNOWN');
  if (unreadable !== undefined) {
    throw sqlNotSupported(`table ${schema.name} has the ${unreadable.array ? 'array' : 'GEOMETRY'} column ` +
      `${unreadable.name}, which SQL cannot write: change it through the client API`, statement.position);
  }
  switch (statement.kind) {
    case 'insert': return insert(statement, schema, database, plan, env);
    case 'update': return update(statement, schema, database, plan, env);
    case 'delete': return remove(statement, schema, database, plan, env);
  }
}

/** A constant expression's value stored in a column (as INSERT … VALUES would store it). */
export async function constantForColumn(expression: SqlExpression, schema: ContainerSchema, columnIndex: number,
  plan: SqlPlanContext, env: SqlRunEnvironment): Promise<Value> {
  const noColumns: SqlBindScope = {
    column: (_t, name, at) => { throw new SqlError('COLUMN_NOT_FOUND', `a constant cannot read the column ${name.text}`, at); },
  };
  const bound = bindExpression(expression, noColumns, plan);
  const node: SqlPlanNode = { kind: 'values', rows: [[bound]], columns: [{ name: 'value', type: 'UNKNOWN' }] };
  const [row] = await collectRows(node, env, 1);
  return assignValue(row![0]!, bound.type, schema, columnIndex, expression.position) as Value;
}

async function insert(statement: Extract<Dml, { kind: 'insert' }>, schema: ContainerSchema,
  database: SqlDatabase, plan: SqlPlanContext, env: SqlRunEnvironment): Promise<number> {
  const targets = statement.columns === undefined ? schema.columns.map((_c, i) => i)
    : statement.columns.map((name) => existingColumn(schema, name));
  if (new Set(targets).size !== targets.length) {
    throw new SqlError('DUPLICATE_COLUMN_NAME', 'a column is named twice', statement.position);
  }
  let values: SqlValue[][];
  let types: SqlType[];
  let position: SqlPosition = statement.position;
  if (statement.source.kind === 'values') {
    const rows = statement.source.rows;
    if (rows.length > SQL_VALUES_ROW_COUNT_MAX) {
      throw new SqlError('LIMIT_EXCEEDED', `VALUES has ${rows.length} rows, more than ` +
        `${SQL_VALUES_ROW_COUNT_MAX}: split the statement`, statement.position);
    }
    const noColumns: SqlBindScope = {
      column: (_t, name, at) => { throw new SqlError('COLUMN_NOT_FOUND', `VALUES cannot read the column ${name.text}`, at); },
    };
    const bound = rows.map((row) => {
      if (row.length !== targets.length) {
        throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `a VALUES row has ${row.length} values for ` +
          `${targets.length} columns`, row[0]?.position ?? statement.position);
      }
      return row.map((expression) => bindExpression(expression, noColumns, plan));
    });
    const node: SqlPlanNode = {
      kind: 'values', rows: bound, columns: targets.map((t) => ({ name: schema.columns[t]!.name, type: 'UNKNOWN' })),
    };
    values = await collectRows(node, env, SQL_VALUES_ROW_COUNT_MAX);
    types = [];
    values = values.map((row, r) => row.map((value, c) => {
      const type = bound[r]![c]!.type;
      return assignValue(value, type, schema, targets[c]!, rows[r]![c]!.position);
    }));
  } else {
    const query = planQuery(statement.source.query, plan);
    if (query.columns.length !== targets.length) {
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the SELECT gives ${query.columns.length} columns ` +
        `for ${targets.length}`, statement.source.query.position);
    }
    types = query.columns.map((column) => column.type);
    position = statement.source.query.position;
    values = (await collectRows(query.root, env, SQL_DML_ROW_COUNT_MAX))
      .map((row) => row.map((value, c) => assignValue(value, types[c]!, schema, targets[c]!, position)));
  }
  const rows: Row[] = values.map((row) => {
    const full: Value[] = schema.columns.map(() => null);
    row.forEach((value, c) => { full[targets[c]!] = value as Value; });
    return full;
  });
  const replace = statement.mode !== 'INSERT';
  await database.transaction(schema.name, async (txn) => {
    if (!replace && schema.rowKeyColumnCount > 0) {
      const seen = new Set<string>();
      for (const row of rows) {
        const key = keyOf(schema, row);
        const text = JSON.stringify(key, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
        if (seen.has(text) || (key !== null && await txn.get(key) !== undefined)) {
          throw new SqlError('ROW_INVALID', `duplicate primary key ${text} in table ${schema.name}: ` +
            'use INSERT OR REPLACE to overwrite', statement.position);
        }
        seen.add(text);
      }
    }
    if (rows.length > 0) await txn.put(rows);
  });
  return rows.length;
}

async function update(statement: Extract<Dml, { kind: 'update' }>, schema: ContainerSchema,
  database: SqlDatabase, plan: SqlPlanContext, env: SqlRunEnvironment): Promise<number> {
  needsKey(schema, 'UPDATE', statement.position);
  const assignments = statement.assignments.map(({ column, value }) => {
    const index = existingColumn(schema, column);
    if (index < schema.rowKeyColumnCount) {
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the primary key column ${column.text} cannot be ` +
        'updated', column.position);
    }
    const partitioning = schema.partitioning;
    if (partitioning !== undefined &&
      (index === partitioning.columnIndex || index === partitioning.subColumnIndex)) {
      // GridDB: [240016:SQL_COMPILE_PARTITIONING_KEY_NOT_UPDATABLE]
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `Partitioning column='${column.text}' is not updatable`,
        column.position);
    }
    return { index, value, position: column.position };
  });
  const { node, scope } = tableRows(schema, statement.where, plan);
  const expressions: SqlBoundExpression[] = schema.columns.map((column, i) =>
    ({ kind: 'column', index: i, type: sqlTypeOfColumn(column) }));
  const bound = assignments.map((a) => ({ ...a, expression: bindExpression(a.value, scope, plan) }));
  for (const a of bound) expressions[a.index] = a.expression;
  const project: SqlPlanNode = {
    kind: 'project', input: node, expressions,
    columns: expressions.map((e, i) => ({ name: schema.columns[i]!.name, type: e.type })),
  };
  const rows = (await collectRows(project, env, SQL_DML_ROW_COUNT_MAX)).map((row) => row.map((value, c) => {
    const assigned = bound.find((a) => a.index === c);
    return (assigned === undefined ? value
      : assignValue(value, assigned.expression.type, schema, c, assigned.position)) as Value;
  }));
  await database.transaction(schema.name, async (txn) => { if (rows.length > 0) await txn.put(rows); });
  return rows.length;
}

async function remove(statement: Extract<Dml, { kind: 'delete' }>, schema: ContainerSchema,
  database: SqlDatabase, plan: SqlPlanContext, env: SqlRunEnvironment): Promise<number> {
  needsKey(schema, 'DELETE', statement.position);
  const { node } = tableRows(schema, statement.where, plan);
  const rows = await collectRows(node, env, SQL_DML_ROW_COUNT_MAX);
  await database.transaction(schema.name, async (txn) => {
    for (const row of rows) await txn.remove(keyOf(schema, row as Row)!);
  });
  return rows.length;
}

/** The rows of a table WHERE selects, every column read, through the key and index ranges WHERE allows. */
function tableRows(schema: ContainerSchema, where: SqlExpression | undefined, plan: SqlPlanContext) {
  const scope: SqlBindScope = {
    column(_table, name, position) {
      const index = columnIndexOf(schema, name);
      if (index < 0) throw new SqlError('COLUMN_NOT_FOUND', `table ${schema.name} has no column ${name.text}`, position);
      return { kind: 'column', index, type: sqlTypeOfColumn(schema.columns[index]!) };
    },
  };
  const columns = schema.columns.map((column) => ({ name: column.name, type: sqlTypeOfColumn(column) }));
  const predicate = where === undefined ? undefined : bindCondition(where, scope, plan, 'WHERE');
  // The key ranges and index range of a SELECT with this WHERE (plan-scan.ts): only rows they hold are read.
  let node: SqlPlanNode = {
    kind: 'scan', table: schema.name, columnIndexes: schema.columns.map((_c, i) => i), columns,
    ...scanAccess(schema, predicate, plan), rowCountMax: Infinity,
  };
  if (predicate !== undefined) node = { kind: 'filter', input: node, predicate, columns };
  return { node, scope };
}

function needsKey(schema: ContainerSchema, what: string, position: SqlPosition): void {
  if (schema.rowKeyColumnCount === 0) {
    throw sqlNotSupported(`${what} needs a table with a PRIMARY KEY; ${schema.name} has none`, position);
  }
}

function existingColumn(schema: ContainerSchema, name: SqlName): number {
  const index = columnIndexOf(schema, name);
  if (index < 0) throw new SqlError('COLUMN_NOT_FOUND', `table ${schema.name} has no column ${name.text}`, name.position);
  return index;
}

function keyOf(schema: ContainerSchema, row: Row): RowKey | null {
  const count = schema.rowKeyColumnCount;
  if (count === 0) return null;
  return (count === 1 ? row[0] : row.slice(0, count)) as RowKey;
}

const INTEGER_RANGE: Partial<Record<SqlType, readonly [bigint, bigint]>> = {
  BYTE: [-128n, 127n], SHORT: [-32768n, 32767n], INTEGER: [-2147483648n, 2147483647n],
  LONG: [-(2n ** 63n), 2n ** 63n - 1n],
};

/**
 * A value of type `from` stored in column `index`: integers into any integer column in range,
 * numbers into FLOAT and DOUBLE, timestamps into any precision (a finer one truncated), else only
 * the column's own type.
 */
export function assignValue(value: SqlValue, from: SqlType, schema: ContainerSchema, index: number,
  position: SqlPosition): SqlValue {
  if (value === null) return null;
  const column = schema.columns[index]!;
  const to = sqlTypeOfColumn(column);
  if (from === to) return value;
  const mismatch = () => sqlTypeError(`column ${column.name} is ${to}: a ${from} value does not fit ` +
    '(use CAST)', position);
  const range = INTEGER_RANGE[to];
  if (range !== undefined) {
    if (!SQL_INTEGER_TYPES.has(from)) throw mismatch();
    const integer = BigInt(value as number | bigint);
    if (integer < range[0] || integer > range[1]) {
      throw new SqlError('VALUE_OUT_OF_RANGE', `${integer} is out of the range of ${to} column ${column.name}`, position);
    }
    return to === 'LONG' ? integer : Number(integer);
  }
  if (to === 'FLOAT' || to === 'DOUBLE') {
    if (!isSqlNumericType(from)) throw mismatch();
    return Number(value);
  }
  if (SQL_TIMESTAMP_TYPES.has(to) && SQL_TIMESTAMP_TYPES.has(from)) {
    const rank = (type: SqlType) => (type === 'TIMESTAMP' ? 0 : type === 'TIMESTAMP(6)' ? 1 : 2);
    if (rank(to) > rank(from)) return widenValue(value, from, to);
    const divisor = [1n, 1000n, 1_000_000n][rank(from) - rank(to)]!;
    const units = BigInt(value as number | bigint) / divisor;
    return to === 'TIMESTAMP' ? Number(units) : units;
  }
  if (from === 'UNKNOWN') throw new StorageError('INTERNAL_ERROR', 'a non-NULL value of type UNKNOWN');
  throw mismatch();
}
