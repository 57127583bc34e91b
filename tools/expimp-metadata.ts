// The metadata files of an export directory (spec/surface.md §7.6): `gs_export.json` (what was
// exported, and where each container's metadata is) and `<db>.<container>_properties.json` (a
// container's schema and the name of its row file), written from a container's info and read back
// as the definition to create it with. Reading checks the JSON shape member by member, naming the
// file; the engine's own validation (validateContainerDefinition) does the rest.

import type { ContainerInfo } from '../lib/protocol/wire-schema.ts';
import type { ColumnSchema, ContainerDefinition } from '../lib/schema/container-schema.ts';
import { COLUMN_TYPES } from '../lib/schema/column-type.ts';

/** GridDB's version the files say they come from (ignored on import, as GridDB does). */
export const EXPORT_FORMAT_VERSION = '5.8.0';
export const EXPORT_EXECUTION_FILE = 'gs_export.json';
export const DATABASE_PUBLIC = 'public';
/** Encoded container names longer than this are cut and numbered, as gs_export does. */
const FILE_STEM_LENGTH_MAX = 140;

export interface ColumnMetadata {
  columnName: string;
  type: string;
  notNull: boolean;
}

export interface ContainerMetadata {
  version: string;
  database: string;
  container: string;
  containerType: 'COLLECTION' | 'TIME_SERIES';
  containerFileType: 'csv';
  containerFile: string;
  dataAffinity?: string;
  partitionNo: number;
  columnSet: ColumnMetadata[];
  rowKeySet: string[];
  indexSet: Array<{ columnNames: string[]; type: string; indexName: string }>;
}

export interface ExportEntry {
  database: string;
  name: string;
  metafile: string;
  filterCondition?: string;
}

export interface ExportExecution {
  version: string;
  startTime: string;
  endTime: string;
  address: string;
  user: string;
  containerCount: number;
  rowFileType: 'csv';
  parallel: number;
  container: ExportEntry[];
}

export class MetadataProblem extends Error {}

/** The stem of a container's files: `public.<URL-encoded name>`, cut to 140 characters + `_n`. */
export function fileStemOf(database: string, name: string, sequence: number): string {
  const stem = `${encodeURIComponent(database)}.${encodeURIComponent(name)}`;
  return stem.length <= FILE_STEM_LENGTH_MAX ? stem : `${stem.slice(0, FILE_STEM_LENGTH_MAX)}_${sequence}`;
}

/** `INTEGER`, `TIMESTAMP(9)`, `BOOLEAN[]`: a column type as the metadata spells it. */
export function typeTextOf(column: ColumnSchema): string {
  const base = column.type === 'BOOL' ? 'BOOLEAN' : column.type;
  const digits = column.timePrecision === 'MICROSECOND' ? '(6)'
    : column.timePrecision === 'NANOSECOND' ? '(9)' : '';
  return `${base}${digits}${column.array ? '[]' : ''}`;
}

export function metadataOf(info: ContainerInfo, containerFile: string, database = DATABASE_PUBLIC): ContainerMetadata {
  const metadata: ContainerMetadata = {
    version: EXPORT_FORMAT_VERSION,
    database,
    container: info.name,
    containerType: info.type,
    containerFileType: 'csv',
    containerFile,
    partitionNo: info.partitionId,
    columnSet: info.columns.map((column) =>
      ({ columnName: column.name, type: typeTextOf(column), notNull: column.notNull })),
    rowKeySet: info.columns.slice(0, info.rowKeyColumnCount).map((column) => column.name),
    indexSet: info.indexes.map((index) => ({
      columnNames: index.columnIndexes.map((i) => info.columns[i]!.name),
      type: index.type, indexName: index.name,
    })),
  };
  if (info.dataAffinity !== undefined) metadata.dataAffinity = info.dataAffinity;
  return metadata;
}

/** A parsed `_properties.json` as the definition to create the container with. */
export function definitionOfMetadata(json: unknown, file: string): {
  definition: ContainerDefinition; containerFile: string;
} {
  const fail = (what: string): never => {
    throw new MetadataProblem(`${file}: ${what}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('expected a JSON object');
  const object = json as Record<string, unknown>;
  const name = object['container'];
  if (typeof name !== 'string' || name === '') fail('"container" must be a container name');
  const containerFile = object['containerFile'];
  if (typeof containerFile !== 'string' || containerFile === '') fail('"containerFile" must be a file name');
  if (object['containerFileType'] !== undefined && object['containerFileType'] !== 'csv') {
    fail(`containerFileType ${JSON.stringify(object['containerFileType'])}: only csv row files are read`);
  }
  const typeText = String(object['containerType']).toUpperCase().replace('TIMESERIES', 'TIME_SERIES');
  if (typeText !== 'COLLECTION' && typeText !== 'TIME_SERIES') fail('"containerType" is COLLECTION or TIME_SERIES');
  const columnSet = object['columnSet'];
  if (!Array.isArray(columnSet)) fail('"columnSet" must be an array');
  const columns = (columnSet as unknown[]).map((column, i) => columnOfMetadata(column, `${file}: columnSet[${i}]`));
  const definition: ContainerDefinition = {
    name: name as string, type: typeText as ContainerDefinition['type'], columns,
    rowKey: rowKeyOf(object, columns, fail),
    indexes: indexesOf(object['indexSet'], fail),
  };
  if (typeof object['dataAffinity'] === 'string') definition.dataAffinity = object['dataAffinity'];
  return { definition, containerFile: containerFile as string };
}

function columnOfMetadata(json: unknown, where: string): ContainerDefinition['columns'][number] {
  const object = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const name = object['columnName'];
  const typeText = object['type'];
  if (typeof name !== 'string' || typeof typeText !== 'string') {
    throw new MetadataProblem(`${where}: needs "columnName" and "type"`);
  }
  const match = /^([A-Za-z]+)(?:\((\d)\))?(\[\])?$/.exec(typeText);
  const upper = match?.[1]?.toUpperCase().replace(/^BOOLEAN$/, 'BOOL');
  if (match === null || !(COLUMN_TYPES as readonly string[]).includes(upper ?? '')) {
    throw new MetadataProblem(`${where}: unknown type ${JSON.stringify(typeText)}`);
  }
  const column: ContainerDefinition['columns'][number] = {
    name, type: upper!, array: match[3] !== undefined, notNull: object['notNull'] === true,
  };
  if (match[2] !== undefined) {
    const precision = { 3: 'MILLISECOND', 6: 'MICROSECOND', 9: 'NANOSECOND' }[match[2]];
    if (precision === undefined || upper !== 'TIMESTAMP') {
      throw new MetadataProblem(`${where}: unknown type ${JSON.stringify(typeText)}`);
    }
    column.timePrecision = precision;
  }
  return column;
}

function rowKeyOf(
  object: Record<string, unknown>,
  columns: ContainerDefinition['columns'],
  fail: (what: string) => never,
): number {
  const keySet = object['rowKeySet'];
  if (keySet === undefined) return object['rowKeyAssigned'] === true ? 1 : 0;
  if (object['rowKeyAssigned'] !== undefined) fail('"rowKeyAssigned" and "rowKeySet" exclude each other');
  if (!Array.isArray(keySet)) fail('"rowKeySet" must be an array of column names');
  (keySet as unknown[]).forEach((key, i) => {
    if (typeof key !== 'string' || key.toLowerCase() !== columns[i]?.name.toLowerCase()) {
      fail(`"rowKeySet" names the leading columns in order (${i}: ${JSON.stringify(key)})`);
    }
  });
  return (keySet as unknown[]).length;
}

function indexesOf(json: unknown, fail: (what: string) => never): NonNullable<ContainerDefinition['indexes']> {
  if (json === undefined) return [];
  if (!Array.isArray(json)) fail('"indexSet" must be an array');
  return (json as unknown[]).map((entry, i) => {
    const object = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const columnNames = object['columnNames'] ??
      (object['columnName'] === undefined ? undefined : [object['columnName']]);
    if (!Array.isArray(columnNames) || !columnNames.every((column) => typeof column === 'string')) {
      fail(`indexSet[${i}] needs "columnNames"`);
    }
    const index: { name?: string; columnNames: string[]; type: string } = {
      columnNames: columnNames as string[],
      type: String(object['type'] ?? object['indexType'] ?? 'TREE').toUpperCase(),
    };
    if (typeof object['indexName'] === 'string') index.name = object['indexName'];
    return index;
  });
}
