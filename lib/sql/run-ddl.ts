// DDL statements (§5.2) on the engine's containers: CREATE TABLE makes a collection, or a time
// series with USING TIMESERIES; the primary key is the leading columns (the engine keys rows by
// its first columns), so a PRIMARY KEY (...) naming other columns is NOT_SUPPORTED with that
// reason. PARTITION BY and the expiry options are checked here (sql-partitioning.ts) and kept in
// the table's schema; ALTER TABLE … DROP PARTITION FOR drops an interval table's data partition.

import type { ColumnSchema, ContainerDefinition, ContainerSchema } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import type { Value } from '../schema/column-type.ts';
import type { SqlColumnDefinition, SqlExpression, SqlStatement } from './ast.ts';
import type { SqlTableOption } from './ast-statements.ts';
import { partitionKeyValue, sqlTablePartitioning } from './sql-partitioning.ts';
import { SqlError, sqlNotSupported } from './errors.ts';
import type { SqlColumnType } from './sql-types.ts';
import type { SqlDatabase } from './sql-database.ts';

type Ddl = Extract<SqlStatement, {
  kind: 'createTable' | 'dropTable' | 'createIndex' | 'dropIndex' | 'alterTableAddColumns' |
    'alterTableRenameColumn' | 'alterTableDropPartition';
}>;

export interface SqlDdlOptions {
  /** GridDB's /sql/partitioningRowkeyConstraint: a partitioning key must be a primary key column. */
  readonly partitioningRowkeyConstraint: boolean;
  /** A constant's value as a column stores it (INSERT's conversion; run-dml.ts). */
  readonly valueForColumn: (expression: SqlExpression, schema: ContainerSchema, columnIndex: number) => Promise<Value>;
}

export async function runDdl(statement: Ddl, database: SqlDatabase, options: SqlDdlOptions): Promise<void> {
  switch (statement.kind) {
    case 'createTable': return createTable(statement, database, options);
    case 'alterTableDropPartition': {
      const schema = existing(database, statement.table);
      const partitioning = schema.partitioning;
      if (partitioning === undefined || partitioning.kind === 'HASH') {
        throw new SqlError('INVALID_SCHEMA', `table ${schema.name} is not interval-partitioned: DROP PARTITION ` +
          'takes an interval or interval-hash table', statement.table.position);
      }
      await database.dropPartition(schema.name,
        await partitionKeyValue(schema, statement.value, options.valueForColumn));
      return;
    }
    case 'dropTable': {
      const dropped = await database.dropTable(statement.name.text);
      if (!dropped && !statement.ifExists) {
        throw new SqlError('CONTAINER_NOT_FOUND', `no table ${statement.name.text}`, statement.name.position);
      }
      return;
    }
    case 'createIndex': {
      const schema = existing(database, statement.table);
      const taken = schema.indexes.some((index) => normalizeName(index.name) === normalizeName(statement.name.text));
      if (taken) {
        if (statement.ifNotExists) return;
        throw new SqlError('INVALID_SCHEMA', `table ${schema.name} has an index ${statement.name.text} already`,
          statement.name.position);
      }
      await database.createIndex(schema.name, {
        name: statement.name.text, columnNames: statement.columns.map((column) => column.text), type: 'TREE',
      });
      return;
    }
    case 'dropIndex': {
      const schema = existing(database, statement.table);
      const count = await database.dropIndex(schema.name, { name: statement.name.text });
      if (count === 0 && !statement.ifExists) {
        throw new SqlError('INVALID_SCHEMA', `table ${schema.name} has no index ${statement.name.text}`,
          statement.name.position);
      }
      return;
    }
    case 'alterTableAddColumns': {
      const schema = existing(database, statement.table);
      for (const column of statement.columns) {
        if (column.primaryKey) throw sqlNotSupported('a column added later cannot be a PRIMARY KEY', column.name.position);
        await database.addColumn(schema.name, columnSchema(column, false));
      }
      return;
    }
    case 'alterTableRenameColumn': {
      const schema = existing(database, statement.table);
      await database.renameColumn(schema.name, { fromName: statement.from.text, toName: statement.to.text });
      return;
    }
  }
}

function existing(database: SqlDatabase, name: { text: string; position: SqlColumnDefinition['name']['position'] }) {
  const schema = database.tableSchema(name.text);
  if (schema === undefined) throw new SqlError('CONTAINER_NOT_FOUND', `no table ${name.text}`, name.position);
  return schema;
}

async function createTable(statement: Extract<Ddl, { kind: 'createTable' }>, database: SqlDatabase,
  options: SqlDdlOptions): Promise<void> {
  if (database.tableSchema(statement.name.text) !== undefined || database.view(statement.name.text) !== undefined) {
    if (statement.ifNotExists) return;
    throw new SqlError('CONTAINER_EXISTS', `table ${statement.name.text} exists already`, statement.name.position);
  }
  const keyNames = statement.primaryKey?.map((name) => normalizeName(name.text)) ??
    (statement.columns[0]?.primaryKey === true ? [normalizeName(statement.columns[0].name.text)] : []);
  keyNames.forEach((name, i) => {
    const column = statement.columns[i];
    if (column === undefined || normalizeName(column.name.text) !== name) {
      throw sqlNotSupported('the PRIMARY KEY must be the leading columns of the table, in order ' +
        '(the store keys rows by their first columns)', statement.primaryKey?.[i]?.position ?? statement.position);
    }
  });
  const definition: ContainerDefinition = {
    name: statement.name.text,
    type: statement.timeSeries ? 'TIME_SERIES' : 'COLLECTION',
    columns: statement.columns.map((column, i) => {
      const schema = columnSchema(column, i < keyNames.length);
      return {
        name: schema.name, type: schema.type, notNull: schema.notNull,
        ...(schema.timePrecision === undefined ? {} : { timePrecision: schema.timePrecision }),
      };
    }),
    rowKey: statement.timeSeries && keyNames.length === 0 ? true : keyNames.length,
  };
  const expiryOptions: SqlTableOption[] = [];
  for (const option of statement.options) {
    const key = option.key.text.toLowerCase();
    if (key === 'data_affinity' && option.value.type === 'STRING') {
      definition.dataAffinity = option.value.value;
    } else if (key.startsWith('expiration_')) {
      expiryOptions.push(option);
    } else {
      throw sqlNotSupported(`the table option ${option.key.text} is not supported (data_affinity and the ` +
        'expiration_ options)', option.key.position);
    }
  }
  const columns = statement.columns.map((column, i) => columnSchema(column, i < keyNames.length));
  const partitioning = sqlTablePartitioning(statement, columns, keyNames.length, expiryOptions, options);
  if (partitioning !== undefined) definition.partitioning = partitioning;
  await database.createTable(definition);
}

const PRECISION: Partial<Record<SqlColumnType, ColumnSchema['timePrecision']>> = {
  'TIMESTAMP(6)': 'MICROSECOND', 'TIMESTAMP(9)': 'NANOSECOND',
};

function columnSchema(column: SqlColumnDefinition, key: boolean): ColumnSchema {
  const precision = PRECISION[column.type];
  const type = precision === undefined ? column.type as ColumnSchema['type'] : 'TIMESTAMP';
  return {
    name: column.name.text, type, array: false, notNull: key || column.nullable === false,
    ...(precision === undefined ? {} : { timePrecision: precision }),
  };
}
