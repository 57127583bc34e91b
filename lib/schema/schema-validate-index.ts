// One index of a container definition → IndexSchema (spec/surface.md §4.5).
//
//   TREE     1..16 distinct columns of STRING, BOOL, the integer types, FLOAT, DOUBLE or TIMESTAMP,
//            never arrays, never the row key of a time series (it is indexed already)
//   SPATIAL  one GEOMETRY column of a collection
//   HASH     removed in GridDB 5.0: NOT_SUPPORTED
//
// The row key's own TREE index is implicit and not listed in ContainerSchema.indexes. An index
// without a name is kept with name '' (GridDB allows unnamed NoSQL indexes). Two indexes may not
// share a name (case-insensitively) nor the same type and column list.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { ROW_KEY_COLUMN_COUNT_MAX, type BlockSizeLimits } from '../base/limits.ts';
import type { ColumnType } from './column-type.ts';
import type { ColumnSchema, ContainerType, IndexSchema, IndexType } from './container-schema.ts';
import { quote } from './describe-value.ts';
import { normalizeName, validateIndexName } from './names.ts';
import {
  definitionArray, definitionEnumText, definitionMember, definitionObject, schemaInvalid,
} from './schema-validate-json.ts';

/** Composite index width, as the composite row key (spec §4.8). */
export const INDEX_COLUMN_COUNT_MAX = ROW_KEY_COLUMN_COUNT_MAX;

const INDEX_MEMBERS = new Set(['name', 'columnNames', 'type']);
const TREE_COLUMN_TYPES: ReadonlySet<ColumnType> = new Set<ColumnType>([
  'STRING', 'BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP',
]);

/** What an index is checked against: the container's columns, type and key, never its indexes. */
export interface IndexTarget {
  name: string;
  type: ContainerType;
  columns: readonly ColumnSchema[];
  /** Column position by normalised name. */
  columnIndexByKey: ReadonlyMap<string, number>;
}

export function indexFromDefinition(
  index: unknown,
  position: number,
  target: IndexTarget,
  limits: BlockSizeLimits,
): IndexSchema {
  const where = `index ${position} of ${quote(target.name)}`;
  const object = definitionObject(index, where, INDEX_MEMBERS);
  const nameGiven = definitionMember(object, 'name');
  const name = nameGiven === undefined ? '' : validateIndexName(nameGiven, limits, target.name);
  const type = indexTypeParse(definitionEnumText(object, 'type', where), where);
  const columnIndexes = indexColumnIndexes(definitionArray(object, 'columnNames', where), where,
    target);
  if (type === 'TREE') indexTreeCheck(columnIndexes, where, target);
  else indexSpatialCheck(columnIndexes, where, target);
  return { name, columnIndexes, type };
}

/**
 * Which indexes a dropIndex means: `{ name }`, `{ columnNames, type? }` or all three; every member
 * given must match (the name case-insensitively; without a type, any type). Columns that do not
 * exist are COLUMN_NOT_FOUND, as in createIndex.
 */
export function indexSelectorFromDefinition(
  selector: unknown,
  target: IndexTarget,
): (index: IndexSchema) => boolean {
  const where = `dropIndex on ${quote(target.name)}`;
  const object = definitionObject(selector, where, INDEX_MEMBERS);
  const nameGiven = definitionMember(object, 'name');
  if (nameGiven !== undefined && typeof nameGiven !== 'string') {
    throw schemaInvalid(`${where}: name must be a string`);
  }
  const typeText = definitionEnumText(object, 'type', where);
  const type = typeText === undefined ? undefined : indexTypeParse(typeText, where);
  const columnNames = definitionArray(object, 'columnNames', where);
  const columnIndexes = columnNames === undefined ? undefined
    : indexColumnIndexes(columnNames, where, target);
  if (nameGiven === undefined && columnIndexes === undefined) {
    throw schemaInvalid(`${where}: name an index, or give its columnNames`);
  }
  const nameKey = nameGiven === undefined ? undefined : normalizeName(nameGiven);
  return (index) => (nameKey === undefined || normalizeName(index.name) === nameKey) &&
    (type === undefined || index.type === type) &&
    (columnIndexes === undefined || (columnIndexes.length === index.columnIndexes.length &&
      columnIndexes.every((c, i) => c === index.columnIndexes[i])));
}

/** Refuses a second index of the same name, or of the same type and columns. */
export function indexesDistinctCheck(indexes: readonly IndexSchema[], containerName: string): void {
  const names = new Set<string>();
  const shapes = new Set<string>();
  for (const index of indexes) {
    const nameKey = normalizeName(index.name);
    if (nameKey.length > 0 && names.has(nameKey)) {
      throw schemaInvalid(`index ${quote(index.name)} of ${quote(containerName)} exists twice`);
    }
    names.add(nameKey);
    const shape = `${index.type}:${index.columnIndexes.join(',')}`;
    if (shapes.has(shape)) {
      throw schemaInvalid(`${quote(containerName)} has two ${index.type} indexes on columns ` +
        `[${index.columnIndexes.join(', ')}]`);
    }
    shapes.add(shape);
  }
}

function indexTypeParse(text: string | undefined, where: string): IndexType {
  if (text === 'TREE' || text === 'SPATIAL') return text;
  if (text === 'HASH') {
    throw new StorageError('NOT_SUPPORTED',
      'HASH index is not supported since 5.0; use a TREE index');
  }
  throw schemaInvalid(`${where}: type must be TREE or SPATIAL, got ${quote(String(text))}`);
}

function indexColumnIndexes(
  columnNames: readonly unknown[] | undefined,
  where: string,
  target: IndexTarget,
): number[] {
  if (columnNames === undefined || columnNames.length === 0) {
    throw schemaInvalid(`${where}: columnNames must list at least one column`);
  }
  if (columnNames.length > INDEX_COLUMN_COUNT_MAX) {
    throw schemaInvalid(`${where}: ${columnNames.length} columns, more than ` +
      `${INDEX_COLUMN_COUNT_MAX}`);
  }
  const columnIndexes: number[] = [];
  for (const columnName of columnNames) {
    if (typeof columnName !== 'string') {
      throw schemaInvalid(`${where}: columnNames must be strings`);
    }
    const columnIndex = target.columnIndexByKey.get(normalizeName(columnName));
    if (columnIndex === undefined) {
      throw new StorageError('COLUMN_NOT_FOUND',
        `${where}: column ${quote(columnName)} does not exist`);
    }
    if (columnIndexes.includes(columnIndex)) {
      throw schemaInvalid(`${where}: column ${quote(columnName)} is listed twice`);
    }
    columnIndexes.push(columnIndex);
  }
  return columnIndexes;
}

function indexTreeCheck(columnIndexes: readonly number[], where: string, target: IndexTarget) {
  for (const columnIndex of columnIndexes) {
    const column = target.columns[columnIndex];
    assert(column !== undefined);
    if (column.array || !TREE_COLUMN_TYPES.has(column.type)) {
      throw schemaInvalid(`${where}: a TREE index cannot cover ${column.type}` +
        `${column.array ? ' array' : ''} column ${quote(column.name)}`);
    }
    if (target.type === 'TIME_SERIES' && columnIndex === 0) {
      throw schemaInvalid(`${where}: the time series key ${quote(column.name)} is indexed ` +
        'already and cannot be part of an index');
    }
  }
}

function indexSpatialCheck(columnIndexes: readonly number[], where: string, target: IndexTarget) {
  if (target.type !== 'COLLECTION') {
    throw schemaInvalid(`${where}: SPATIAL indexes are for collections only`);
  }
  const column = target.columns[columnIndexes[0] ?? -1];
  if (columnIndexes.length !== 1 || column === undefined) {
    throw schemaInvalid(`${where}: a SPATIAL index covers exactly one GEOMETRY column`);
  }
  if (column.type !== 'GEOMETRY' || column.array) {
    throw schemaInvalid(`${where}: a SPATIAL index cannot cover ${column.type} column ` +
      quote(column.name));
  }
}
