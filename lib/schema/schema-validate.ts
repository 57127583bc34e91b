// Container definitions → ContainerSchema (spec/surface.md §4.2–§4.6), schema equality for
// "create again", and the schema changes GridDB allows (add a column at the end, rename a column,
// add an index).
//
// The definition is untrusted JSON: every problem is a StorageError with a stable code, never a
// TypeError. Sizes are checked before items are read, so a 10-million-column definition costs no
// more than a 10-column one. ContainerSchema values are treated as immutable: every change returns
// a new schema, and lookups cache on the columns array.
//
// Row keys: `rowKey: true` is one key column, a number n is the n leading columns (≤ 16, composite
// only for collections). A TIME_SERIES has exactly one key column, column 0, TIMESTAMP(ms); an
// omitted rowKey is implied for it. Key columns are STRING, INTEGER, LONG or TIMESTAMP, never
// arrays, and always notNull.

import { StorageError } from '../base/errors.ts';
import {
  ROW_FIXED_PART_BYTES_MAX, ROW_KEY_COLUMN_COUNT_MAX, type BlockSizeLimits,
} from '../base/limits.ts';
import { ROW_KEY_TYPES } from './column-type.ts';
import type {
  ColumnSchema, ContainerSchema, ContainerType, IndexSchema,
} from './container-schema.ts';
import { describeValue, quote } from './describe-value.ts';
import {
  normalizeName, validateColumnName, validateContainerName, validateDataAffinity,
} from './names.ts';
import { columnFromDefinition, columnsFixedPartBytes } from './schema-validate-column.ts';
import {
  indexesDistinctCheck, indexFromDefinition, indexSelectorFromDefinition, type IndexTarget,
} from './schema-validate-index.ts';
import {
  definitionArray, definitionEnumText, definitionMember, definitionObject, schemaInvalid,
} from './schema-validate-json.ts';
import { removedOptionsCheck } from './schema-validate-removed.ts';
import type { TablePartitioning } from './table-partitioning.ts';

const CONTAINER_MEMBERS = new Set([
  'name', 'type', 'columns', 'rowKey', 'dataAffinity', 'indexes', 'timeSeriesProperties',
  'rowExpiration', 'triggers', 'partitioning', 'partitionOf',
]);

/** Validates any JSON-shaped value as a ContainerDefinition; the result has schemaVersion 1. */
export function validateContainerDefinition(
  definition: unknown,
  limits: BlockSizeLimits,
): ContainerSchema {
  const object = definitionObject(definition, 'container definition', CONTAINER_MEMBERS);
  const name = validateContainerName(definitionMember(object, 'name'), limits);
  const where = `container ${quote(name)}`;
  const type = containerTypeParse(definitionEnumText(object, 'type', where), where);
  removedOptionsCheck(object, type, where);
  const columns = containerColumns(definitionArray(object, 'columns', where), name, limits);
  const rowKeyColumnCount = rowKeyParse(definitionMember(object, 'rowKey'), type, where);
  rowKeyCheck(columns, { rowKeyColumnCount, type, where });
  const schema: ContainerSchema = {
    name, type, columns, rowKeyColumnCount, indexes: [], schemaVersion: 1,
  };
  const dataAffinity = definitionMember(object, 'dataAffinity');
  if (dataAffinity !== undefined) schema.dataAffinity = validateDataAffinity(dataAffinity);
  schema.indexes = containerIndexes(definitionArray(object, 'indexes', where), schema, limits);
  // Only SQL's CREATE TABLE gives these, already checked (lib/sql/run-ddl.ts); no wire form has them.
  const partitioning = definitionMember(object, 'partitioning');
  if (partitioning !== undefined) schema.partitioning = partitioning as TablePartitioning;
  const partitionOf = definitionMember(object, 'partitionOf');
  if (typeof partitionOf === 'string') schema.partitionOf = partitionOf;
  return schema;
}

/**
 * True when `b` describes the same container as `a`: names (case-insensitively), container type,
 * columns (name, type, array, notNull, timePrecision), row key and data affinity. Indexes and
 * schemaVersion are not compared: creating a container again with other indexes is not a conflict.
 */
export function schemasEqual(a: ContainerSchema, b: ContainerSchema): boolean {
  if (normalizeName(a.name) !== normalizeName(b.name)) return false;
  if (a.type !== b.type || a.rowKeyColumnCount !== b.rowKeyColumnCount) return false;
  if (normalizeName(a.dataAffinity ?? '') !== normalizeName(b.dataAffinity ?? '')) return false;
  if (JSON.stringify(a.partitioning) !== JSON.stringify(b.partitioning)) return false;
  if (a.columns.length !== b.columns.length) return false;
  return a.columns.every((column, i) => {
    const other = b.columns[i];
    return other !== undefined &&
      normalizeName(column.name) === normalizeName(other.name) &&
      column.type === other.type &&
      column.array === other.array &&
      column.notNull === other.notNull &&
      column.timePrecision === other.timePrecision;
  });
}

const columnIndexCache = new WeakMap<readonly ColumnSchema[], Map<string, number>>();

/** Position of the column named `name` (case-insensitive), or undefined. */
export function columnIndexByName(schema: ContainerSchema, name: string): number | undefined {
  return columnIndexByKey(schema.columns).get(normalizeName(name));
}

/** Appends `column` (a column definition) at the end; schemaVersion + 1. */
export function validateAddColumn(
  schema: ContainerSchema,
  column: unknown,
  limits: BlockSizeLimits,
): ContainerSchema {
  const where = `container ${quote(schema.name)}`;
  if (schema.columns.length + 1 > limits.columnCountMax) {
    throw new StorageError('TOO_MANY_COLUMNS',
      `${where}: cannot add a column, it has ${limits.columnCountMax} already`);
  }
  if (typeof column === 'object' && column !== null && Object.hasOwn(column, 'rowKey')) {
    throw schemaInvalid(`${where}: an added column cannot be part of the row key`);
  }
  const added = columnFromDefinition(column, schema.columns.length, schema.name);
  if (columnIndexByName(schema, added.name) !== undefined) {
    throw new StorageError('DUPLICATE_COLUMN_NAME',
      `${where}: column ${quote(added.name)} exists already`);
  }
  const columns = [...schema.columns, added];
  fixedPartCheck(columns, where);
  return schemaChanged(schema, columns);
}

/** Renames column `fromName` (case-insensitive) to `toName`; schemaVersion + 1. */
export function validateRenameColumn(
  schema: ContainerSchema,
  fromName: string,
  toName: string,
  _limits: BlockSizeLimits,
): ContainerSchema {
  const where = `container ${quote(schema.name)}`;
  const columnIndex = columnIndexByName(schema, String(fromName));
  if (columnIndex === undefined) {
    throw new StorageError('COLUMN_NOT_FOUND', `${where}: column ${quote(String(fromName))} ` +
      'does not exist');
  }
  const name = validateColumnName(toName, schema.name);
  const existing = columnIndexByName(schema, name);
  if (existing !== undefined && existing !== columnIndex) {
    throw new StorageError('DUPLICATE_COLUMN_NAME',
      `${where}: column ${quote(name)} exists already`);
  }
  const columns = schema.columns.map((column, i) =>
    (i === columnIndex ? { ...column, name } : column));
  return schemaChanged(schema, columns);
}

/** A new schema with `columns` and the next version; nothing is shared with the old one. */
function schemaChanged(schema: ContainerSchema, columns: ColumnSchema[]): ContainerSchema {
  return {
    ...schema, columns, indexes: [...schema.indexes], schemaVersion: schema.schemaVersion + 1,
  };
}

/**
 * Adds `index` (an index definition: `{ name?, columnNames, type }`). An index is not a schema
 * change of the rows, so schemaVersion stays.
 */
export function validateAddIndex(
  schema: ContainerSchema,
  index: unknown,
  limits: BlockSizeLimits,
): ContainerSchema {
  if (schema.indexes.length + 1 > limits.indexCountMax) {
    throw new StorageError('LIMIT_EXCEEDED', `container ${quote(schema.name)}: cannot add an ` +
      `index, it has ${limits.indexCountMax} already`);
  }
  const added = indexFromDefinition(index, schema.indexes.length, indexTarget(schema), limits);
  const indexes = [...schema.indexes, added];
  indexesDistinctCheck(indexes, schema.name);
  return { ...schema, indexes };
}

/** An index definition checked against the container, without adding it (createIndex's first look). */
export function validateIndexDefinition(
  schema: ContainerSchema,
  index: unknown,
  limits: BlockSizeLimits,
): IndexSchema {
  return indexFromDefinition(index, schema.indexes.length, indexTarget(schema), limits);
}

/** Which of the container's indexes a dropIndex selector means (schema-validate-index.ts). */
export function validateIndexSelector(
  schema: ContainerSchema,
  selector: unknown,
): (index: IndexSchema) => boolean {
  return indexSelectorFromDefinition(selector, indexTarget(schema));
}

function containerTypeParse(text: string | undefined, where: string): ContainerType {
  if (text === 'COLLECTION' || text === 'TIME_SERIES') return text;
  throw schemaInvalid(`${where}: type must be COLLECTION or TIME_SERIES, got ` +
    quote(String(text)));
}

function containerColumns(
  columnsGiven: readonly unknown[] | undefined,
  containerName: string,
  limits: BlockSizeLimits,
): ColumnSchema[] {
  const where = `container ${quote(containerName)}`;
  if (columnsGiven === undefined || columnsGiven.length === 0) {
    throw schemaInvalid(`${where}: columns must list at least one column`);
  }
  if (columnsGiven.length > limits.columnCountMax) {
    throw new StorageError('TOO_MANY_COLUMNS', `${where}: ${columnsGiven.length} columns, more ` +
      `than ${limits.columnCountMax}`);
  }
  const columns = columnsGiven.map((column, i) => columnFromDefinition(column, i, containerName));
  const positions = new Map<string, number>();
  for (const [i, column] of columns.entries()) {
    const first = positions.get(normalizeName(column.name));
    if (first !== undefined) {
      throw new StorageError('DUPLICATE_COLUMN_NAME', `${where}: columns ${first} and ${i} are ` +
        `both named ${quote(column.name)} (names ignore case)`);
    }
    positions.set(normalizeName(column.name), i);
  }
  fixedPartCheck(columns, where);
  return columns;
}

function fixedPartCheck(columns: readonly ColumnSchema[], where: string): void {
  const sizeBytes = columnsFixedPartBytes(columns);
  if (sizeBytes > ROW_FIXED_PART_BYTES_MAX) {
    throw new StorageError('TOO_MANY_COLUMNS', `${where}: fixed-length columns take ${sizeBytes} ` +
      `bytes a row, more than ${ROW_FIXED_PART_BYTES_MAX}`);
  }
}

function rowKeyParse(rowKey: unknown, type: ContainerType, where: string): number {
  if (rowKey === undefined) return type === 'TIME_SERIES' ? 1 : 0;
  if (typeof rowKey === 'boolean') return rowKey ? 1 : 0;
  if (typeof rowKey === 'number' && Number.isInteger(rowKey) && rowKey >= 0 &&
    rowKey <= ROW_KEY_COLUMN_COUNT_MAX) {
    return rowKey;
  }
  throw schemaInvalid(`${where}: rowKey must be true, false or a column count from 0 to ` +
    `${ROW_KEY_COLUMN_COUNT_MAX}, got ${describeValue(rowKey)}`);
}

/** Checks the key columns and marks them notNull. */
function rowKeyCheck(
  columns: ColumnSchema[],
  { rowKeyColumnCount, type, where }: {
    rowKeyColumnCount: number;
    type: ContainerType;
    where: string;
  },
): void {
  if (rowKeyColumnCount > columns.length) {
    throw schemaInvalid(`${where}: rowKey covers ${rowKeyColumnCount} columns but there are ` +
      `${columns.length}`);
  }
  if (type === 'TIME_SERIES') {
    const key = columns[0];
    if (rowKeyColumnCount !== 1 || key === undefined || key.type !== 'TIMESTAMP' || key.array ||
      key.timePrecision !== 'MILLISECOND') {
      throw schemaInvalid(`${where}: a time series needs exactly one row key column, column 0, ` +
        'of type TIMESTAMP with MILLISECOND precision');
    }
  }
  for (let i = 0; i < rowKeyColumnCount; i++) {
    const column = columns[i]!;
    if (column.array || !ROW_KEY_TYPES.includes(column.type)) {
      throw schemaInvalid(`${where}: row key column ${quote(column.name)} is ` +
        `${column.type}${column.array ? ' array' : ''}; keys are ${ROW_KEY_TYPES.join(', ')}`);
    }
    columns[i] = { ...column, notNull: true };
  }
}

function containerIndexes(
  indexesGiven: readonly unknown[] | undefined,
  schema: ContainerSchema,
  limits: BlockSizeLimits,
): IndexSchema[] {
  if (indexesGiven === undefined) return [];
  if (indexesGiven.length > limits.indexCountMax) {
    throw new StorageError('LIMIT_EXCEEDED', `container ${quote(schema.name)}: ` +
      `${indexesGiven.length} indexes, more than ${limits.indexCountMax}`);
  }
  const target = indexTarget(schema);
  const indexes = indexesGiven.map((index, i) => indexFromDefinition(index, i, target, limits));
  indexesDistinctCheck(indexes, schema.name);
  return indexes;
}

function indexTarget(schema: ContainerSchema): IndexTarget {
  const { name, type, columns } = schema;
  return { name, type, columns, columnIndexByKey: columnIndexByKey(columns) };
}

function columnIndexByKey(columns: readonly ColumnSchema[]): ReadonlyMap<string, number> {
  let byKey = columnIndexCache.get(columns);
  if (byKey === undefined || byKey.size !== columns.length) {
    byKey = new Map(columns.map((column, i) => [normalizeName(column.name), i]));
    columnIndexCache.set(columns, byKey);
  }
  return byKey;
}
