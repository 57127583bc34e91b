// Container schemas on the wire: the info a node sends for a container, and the columns of a query
// result. A client encodes rows with the schema it was sent, so a schema read here is checked as
// strictly as the row codec needs it (at least one column, key columns among them, index columns
// that exist, time precisions only on TIMESTAMP columns).
//
//   column     | name string | type u8 | flags u8 | timePrecision u8 |
//                type: index in COLUMN_TYPES; flags: bit 0 array, bit 1 NOT NULL, the rest 0;
//                timePrecision: 0 none, 1 MILLISECOND, 2 MICROSECOND, 3 NANOSECOND (TIMESTAMP only)
//   index      | name string | type u8 (0 TREE, 1 SPATIAL) | columnCount varuint |
//              | column varuint… |
//   info       | name string | type u8 (0 COLLECTION, 1 TIME_SERIES) | rowKeyColumnCount varuint |
//              | hasAffinity u8 | dataAffinity string, if hasAffinity |
//              | columnCount varuint | column… | indexCount varuint | index… |
//              | schemaVersion varuint | partitionId varuint | containerId varuint |
//              | rowCount varuint | blockCount varuint |

import {
  ARRAY_ELEMENT_TYPES, COLUMN_TYPES, TIME_PRECISIONS, type TimePrecision,
} from '../schema/column-type.ts';
import type {
  ColumnSchema, ContainerSchema, ContainerType, IndexSchema, IndexType,
} from '../schema/container-schema.ts';
import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { protocolError } from './frame.ts';
import { boolRead, boolWrite, enumRead, enumWrite, listRead, listWrite } from './message-codec.ts';

const CONTAINER_TYPES: readonly ContainerType[] = ['COLLECTION', 'TIME_SERIES'];
const INDEX_TYPES: readonly IndexType[] = ['TREE', 'SPATIAL'];
const FLAG_ARRAY = 1;
const FLAG_NOT_NULL = 2;
/** Smallest encodings, for counts checked against the bytes left. */
const COLUMN_BYTES_MIN = 4;
const INDEX_BYTES_MIN = 3;

/** A container as a node describes it (the engine's ContainerInfo, without the engine). */
export interface ContainerInfo {
  name: string;
  type: ContainerType;
  columns: ColumnSchema[];
  rowKeyColumnCount: number;
  dataAffinity: string | undefined;
  indexes: IndexSchema[];
  schemaVersion: number;
  partitionId: number;
  containerId: number;
  rowCount: number;
  blockCount: number;
}

export function columnWrite(writer: ByteWriter, column: ColumnSchema): void {
  writer.string(column.name);
  enumWrite(writer, COLUMN_TYPES, column.type);
  writer.u8((column.array ? FLAG_ARRAY : 0) | (column.notNull ? FLAG_NOT_NULL : 0));
  const precision = column.timePrecision;
  writer.u8(precision === undefined ? 0 : TIME_PRECISIONS.indexOf(precision) + 1);
}

export function columnRead(reader: ByteReader): ColumnSchema {
  const name = reader.string();
  const type = enumRead(reader, COLUMN_TYPES, 'column type');
  const flags = reader.u8();
  if ((flags & ~(FLAG_ARRAY | FLAG_NOT_NULL)) !== 0) {
    throw protocolError(`column ${JSON.stringify(name)}: unknown flags 0x${flags.toString(16)}`);
  }
  const precisionByte = reader.u8();
  const column: ColumnSchema = {
    name, type, array: (flags & FLAG_ARRAY) !== 0, notNull: (flags & FLAG_NOT_NULL) !== 0,
  };
  if (column.array && !ARRAY_ELEMENT_TYPES.includes(type)) {
    throw protocolError(`column ${JSON.stringify(name)}: ${type} arrays do not exist`);
  }
  if (precisionByte === 0) return column;
  const timePrecision: TimePrecision | undefined = TIME_PRECISIONS[precisionByte - 1];
  if (timePrecision === undefined || type !== 'TIMESTAMP' ||
    (column.array && timePrecision !== 'MILLISECOND')) {
    throw protocolError(`column ${JSON.stringify(name)}: time precision ${precisionByte} ` +
      `does not fit a ${type} column`);
  }
  column.timePrecision = timePrecision;
  return column;
}

export function columnsWrite(writer: ByteWriter, columns: readonly ColumnSchema[]): void {
  listWrite(writer, columns, (column) => columnWrite(writer, column));
}

/** At least one column: a schema without any cannot describe a row. */
export function columnsRead(reader: ByteReader): ColumnSchema[] {
  const columns = listRead(reader, COLUMN_BYTES_MIN, 'columns', () => columnRead(reader));
  if (columns.length === 0) throw protocolError('a schema without columns');
  return columns;
}

export function containerInfoWrite(writer: ByteWriter, info: ContainerInfo): void {
  writer.string(info.name);
  enumWrite(writer, CONTAINER_TYPES, info.type);
  writer.varuint(info.rowKeyColumnCount);
  boolWrite(writer, info.dataAffinity !== undefined);
  if (info.dataAffinity !== undefined) writer.string(info.dataAffinity);
  columnsWrite(writer, info.columns);
  listWrite(writer, info.indexes, (index) => {
    writer.string(index.name);
    enumWrite(writer, INDEX_TYPES, index.type);
    listWrite(writer, index.columnIndexes, (column) => writer.varuint(column));
  });
  writer.varuint(info.schemaVersion);
  writer.varuint(info.partitionId);
  writer.varuint(info.containerId);
  writer.varuint(info.rowCount);
  writer.varuint(info.blockCount);
}

export function containerInfoRead(reader: ByteReader): ContainerInfo {
  const name = reader.string();
  const type = enumRead(reader, CONTAINER_TYPES, 'container type');
  const rowKeyColumnCount = reader.varuint();
  const dataAffinity = boolRead(reader) ? reader.string() : undefined;
  const columns = columnsRead(reader);
  if (rowKeyColumnCount > columns.length) {
    throw protocolError(`container ${JSON.stringify(name)}: ${rowKeyColumnCount} key columns ` +
      `of ${columns.length}`);
  }
  const indexes = listRead(reader, INDEX_BYTES_MIN, 'indexes', () => {
    const indexName = reader.string();
    const indexType = enumRead(reader, INDEX_TYPES, 'index type');
    const columnIndexes = listRead(reader, 1, 'index columns', () => reader.varuint());
    if (columnIndexes.some((column) => column >= columns.length)) {
      throw protocolError(`index ${JSON.stringify(indexName)} names a column that does not exist`);
    }
    return { name: indexName, type: indexType, columnIndexes };
  });
  return {
    name, type, columns, rowKeyColumnCount, dataAffinity, indexes,
    schemaVersion: reader.varuint(),
    partitionId: reader.varuint(),
    containerId: reader.varuint(),
    rowCount: reader.varuint(),
    blockCount: reader.varuint(),
  };
}

/** The schema rows of `info` are encoded with. */
export function containerSchemaOf(info: ContainerInfo): ContainerSchema {
  const schema: ContainerSchema = {
    name: info.name, type: info.type, columns: info.columns,
    rowKeyColumnCount: info.rowKeyColumnCount, indexes: info.indexes,
    schemaVersion: info.schemaVersion,
  };
  if (info.dataAffinity !== undefined) schema.dataAffinity = info.dataAffinity;
  return schema;
}

/** Result schemas made, per columns array: the same object for the same columns, so the row
 * codec the server makes of it (row-codec.ts caches by schema object) is made once, not per query. */
const resultSchemas = new WeakMap<ColumnSchema[], ContainerSchema>();

/** The schema of a query result: its columns, no key, nothing NOT NULL unless declared. */
export function resultSchemaOf(columns: ColumnSchema[]): ContainerSchema {
  let schema = resultSchemas.get(columns);
  if (schema === undefined) {
    schema = {
      name: '(query result)', type: 'COLLECTION', columns, rowKeyColumnCount: 0, indexes: [],
      schemaVersion: 0,
    };
    resultSchemas.set(columns, schema);
  }
  return schema;
}
