// GET_CONTAINER_PROPERTIES (140): what a GridDB client learns of a container before it writes or
// reads rows (gsGetContainerInfo, gsGetContainerGeneral, gsPutContainerGeneral). From the C
// client's GSGridStoreTag::getContainerInfo and its import*Property readers:
//
//   request | statementId i64 | optional request | container key | count i32 | kind i8 × count |
//   reply   | exists i8 | (if exists) count i32 | count × (kind i8 | size i32 | property) |
//
// The client asks for kinds 0..6 but ATTRIBUTE (5) and checks that the reply has as many blocks
// as it asked, each exactly `size` bytes. An absent container is SUCCESS with exists = 0, as in
// GridDB. The properties (str = i32 UTF-8 size + bytes; key = griddb-container-key.ts):
//
//   ID (0)          | schemaVersion i32 | containerId i64 | key |
//   SCHEMA (1)      | containerType i8 (0 COLLECTION, 1 TIME_SERIES) | columnCount i32 |
//                   | column × count | keyCount i16 | keyColumn i16 × keyCount |
//                   | dataAffinity str ("" for none) |
//                   | tsPropertiesPresent i8 = 0, for a TIME_SERIES |
//     column        | name str | type i8 | flags i8 (0x01 array, 0x04 NOT NULL) |
//                     type: 0 STRING 1 BOOL 2 BYTE 3 SHORT 4 INTEGER 5 LONG 6 FLOAT 7 DOUBLE
//                     8 TIMESTAMP 9 GEOMETRY 10 BLOB 11 TIMESTAMP(6) 12 TIMESTAMP(9)
//   INDEX (2)       | count i32 | (column i32 | type i8: 0 TREE 1 HASH 2 SPATIAL) × count |
//                     (single-column indexes only, as GridDB lists them)
//   EVENT_NOTIFICATION (3), TRIGGER (4) | count i32 = 0 |      (store has neither)
//   ATTRIBUTE (5)   | attribute i32 = 0 (a single container, not table-partitioned) |
//   INDEX_DETAIL (6)| count i32 | (size i32 | name str | columnCount i32 | column i32 × n |
//                   |  type i8) × count |
//
// Store keeps no time-series expiry or compression options (GridDB 5.0 removed them), so a time
// series says it has no time-series properties: the client then reports the defaults.

import { ByteReader } from '../../encoding/byte-reader.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import type { ColumnSchema, IndexType } from '../../schema/container-schema.ts';
import type { ContainerInfo } from '../../protocol/wire-schema.ts';
import { griddbContainerKeyRead, griddbContainerKeyWrite } from './griddb-container-key.ts';
import { GriddbFrameError, griddbDecode, griddbStringWrite } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';

export const GriddbContainerProperty = {
  ID: 0,
  SCHEMA: 1,
  INDEX: 2,
  EVENT_NOTIFICATION: 3,
  TRIGGER: 4,
  ATTRIBUTE: 5,
  INDEX_DETAIL: 6,
} as const;
const PROPERTY_KIND_COUNT = 7;

export const GRIDDB_CONTAINER_TYPE_CODES = { COLLECTION: 0, TIME_SERIES: 1 } as const;
/** GridDB's column type codes (client.h RowMapper::ElementType), by store type. */
export const GRIDDB_COLUMN_TYPE_CODES = {
  STRING: 0, BOOL: 1, BYTE: 2, SHORT: 3, INTEGER: 4, LONG: 5, FLOAT: 6, DOUBLE: 7,
  TIMESTAMP: 8, GEOMETRY: 9, BLOB: 10,
} as const;
export const GRIDDB_TYPE_MICRO_TIMESTAMP = 11;
export const GRIDDB_TYPE_NANO_TIMESTAMP = 12;
export const GRIDDB_COLUMN_FLAG_ARRAY = 0x01;
export const GRIDDB_COLUMN_FLAG_NOT_NULL = 0x04;
const INDEX_TYPE_CODES: Record<IndexType, number> = { TREE: 0, SPATIAL: 2 };
const CONTAINER_ATTRIBUTE_SINGLE = 0;
const TIME_SERIES_PROPERTIES_ABSENT = 0;

export interface ContainerPropertiesRequest {
  name: string;
  kinds: number[];
}

export function containerPropertiesDecode(body: Uint8Array): ContainerPropertiesRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbOptionalRequestSkip(reader);
    const name = griddbContainerKeyRead(reader);
    const count = reader.i32();
    if (count < 0 || count > PROPERTY_KIND_COUNT || count !== reader.remainingBytes) {
      throw new GriddbFrameError(`property count ${count} is outside 0..${PROPERTY_KIND_COUNT} ` +
        `or not the ${reader.remainingBytes} bytes left`);
    }
    const kinds: number[] = [];
    for (let i = 0; i < count; i++) {
      const kind = reader.i8();
      if (kind < 0 || kind >= PROPERTY_KIND_COUNT || kinds.includes(kind)) {
        throw new GriddbFrameError(`property kind ${kind} is unknown or repeated`);
      }
      kinds.push(kind);
    }
    return { name, kinds };
  });
}

/** Writes the reply drawn above for `info` (undefined: the container does not exist). */
export function containerPropertiesReplyWrite(writer: ByteWriter, kinds: readonly number[],
  info: ContainerInfo | undefined): void {
  writer.i8(info === undefined ? 0 : 1);
  if (info === undefined) return;
  writer.i32(kinds.length);
  for (const kind of kinds) {
    writer.i8(kind);
    const sizeAt = writer.lengthBytes;
    writer.i32(0);
    propertyWrite(writer, kind, info);
    writer.dataView.setInt32(sizeAt, writer.lengthBytes - sizeAt - 4, true);
  }
}

function propertyWrite(writer: ByteWriter, kind: number, info: ContainerInfo): void {
  switch (kind) {
    case GriddbContainerProperty.ID:
      writer.i32(info.schemaVersion);
      writer.i64(BigInt(info.containerId));
      griddbContainerKeyWrite(writer, info.name);
      return;
    case GriddbContainerProperty.SCHEMA:
      griddbSchemaWrite(writer, info);
      griddbStringWrite(writer, info.dataAffinity ?? '');
      if (info.type === 'TIME_SERIES') writer.i8(TIME_SERIES_PROPERTIES_ABSENT);
      return;
    case GriddbContainerProperty.INDEX: {
      const single = info.indexes.filter((index) => index.columnIndexes.length === 1);
      writer.i32(single.length);
      for (const index of single) {
        writer.i32(index.columnIndexes[0]!);
        writer.i8(INDEX_TYPE_CODES[index.type]);
      }
      return;
    }
    case GriddbContainerProperty.EVENT_NOTIFICATION:
    case GriddbContainerProperty.TRIGGER:
      writer.i32(0);
      return;
    case GriddbContainerProperty.ATTRIBUTE:
      writer.i32(CONTAINER_ATTRIBUTE_SINGLE);
      return;
    case GriddbContainerProperty.INDEX_DETAIL:
      writer.i32(info.indexes.length);
      for (const index of info.indexes) {
        const sizeAt = writer.lengthBytes;
        writer.i32(0);
        griddbStringWrite(writer, index.name);
        writer.i32(index.columnIndexes.length);
        for (const column of index.columnIndexes) writer.i32(column);
        writer.i8(INDEX_TYPE_CODES[index.type]);
        writer.dataView.setInt32(sizeAt, writer.lengthBytes - sizeAt - 4, true);
      }
      return;
    default:
      throw new GriddbFrameError(`property kind ${kind} is unknown`);
  }
}

/**
 * The columns and row key of a schema, as the SCHEMA property (with the container type first) and
 * PUT_CONTAINER's reply (without) carry them.
 */
export function griddbSchemaWrite(writer: ByteWriter,
  info: Pick<ContainerInfo, 'type' | 'columns' | 'rowKeyColumnCount'>,
  withContainerType = true): void {
  if (withContainerType) writer.i8(GRIDDB_CONTAINER_TYPE_CODES[info.type]);
  writer.i32(info.columns.length);
  for (const column of info.columns) {
    griddbStringWrite(writer, column.name);
    writer.i8(griddbColumnTypeCode(column));
    writer.i8((column.array ? GRIDDB_COLUMN_FLAG_ARRAY : 0) |
      (column.notNull ? GRIDDB_COLUMN_FLAG_NOT_NULL : 0));
  }
  writer.i16(info.rowKeyColumnCount);
  for (let i = 0; i < info.rowKeyColumnCount; i++) writer.i16(i);
}

export function griddbColumnTypeCode(column: ColumnSchema): number {
  if (column.type === 'TIMESTAMP' && column.timePrecision === 'MICROSECOND') {
    return GRIDDB_TYPE_MICRO_TIMESTAMP;
  }
  if (column.type === 'TIMESTAMP' && column.timePrecision === 'NANOSECOND') {
    return GRIDDB_TYPE_NANO_TIMESTAMP;
  }
  return GRIDDB_COLUMN_TYPE_CODES[column.type];
}

/** For tests: a reply body as the client would lay it out. */
export function containerPropertiesReplyEncode(kinds: readonly number[],
  info: ContainerInfo | undefined): Uint8Array {
  const writer = new ByteWriter(256);
  containerPropertiesReplyWrite(writer, kinds, info);
  return writer.finish();
}
