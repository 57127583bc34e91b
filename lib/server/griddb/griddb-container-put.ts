// PUT_CONTAINER (107) and DROP_CONTAINER (144) bodies (after the statement id), from the C
// client's GSGridStoreTag::putContainer / dropContainer, RowMapper::exportSchema and
// exportContainerProperties (str = i32 UTF-8 size + bytes, key = griddb-container-key.ts):
//
//   PUT_CONTAINER  | optional request | key | containerType i8 | modifiable i8 |
//                  | columnCount i32 | column × count | keyCount i16 | keyColumn i16 × keyCount |
//                  | dataAffinity str ("" for none) |
//                  | (TIME_SERIES only) tsPropertiesPresent i8 | (if 1) rowExpirationTime i32 |
//                  |   unit i8 | divisionCount i32 | compressionWindow i32 | unit i8 |
//                  |   compressionMethod i8 | compressionCount i32 | entries |
//     column       | name str | type i8 | flags i8 |   (griddb-container-properties.ts: codes)
//   reply          | schemaVersion i32 | containerId i64 | key | columnCount i32 | column × count |
//                  | keyCount i16 | keyColumn i16 × keyCount |
//   DROP_CONTAINER | optional request | key | containerType u8 (0xff: either) |   reply empty
//
// The definition goes to the engine as store's own (CONTAINER_PUT), so GridDB's rules hold as
// store keeps them: an existing container with the same schema is returned as it is, another
// schema is refused unless modifiable (then the columns added at the end are added). Time-series
// expiry and compression options were removed in GridDB 5.0 and store has none: a time series
// that asks for them is refused with DS_DS_SCHEMA_INVALID. Row key columns must be the leading
// columns, as GridDB requires.

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import type { ContainerDefinition, ContainerType } from '../../schema/container-schema.ts';
import type { ContainerInfo } from '../../protocol/wire-schema.ts';
import { griddbContainerKeyRead, griddbContainerKeyWrite } from './griddb-container-key.ts';
import {
  GRIDDB_COLUMN_FLAG_ARRAY, GRIDDB_COLUMN_FLAG_NOT_NULL, GRIDDB_COLUMN_TYPE_CODES,
  GRIDDB_CONTAINER_TYPE_CODES, GRIDDB_TYPE_MICRO_TIMESTAMP, GRIDDB_TYPE_NANO_TIMESTAMP,
  griddbSchemaWrite,
} from './griddb-container-properties.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode, griddbStringRead } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';

/** More columns than this is malformed here (store's own limit is lower and says so). */
const COLUMN_COUNT_MAX = 10_000;
export const CONTAINER_TYPE_ANY = 0xff;
const COLUMN_FLAGS_KNOWN = GRIDDB_COLUMN_FLAG_ARRAY | GRIDDB_COLUMN_FLAG_NOT_NULL;
const TYPE_NAMES_BY_CODE = new Map<number, string>(
  Object.entries(GRIDDB_COLUMN_TYPE_CODES).map(([name, code]) => [code, name]));
export const CONTAINER_TYPES_BY_CODE = new Map<number, ContainerType>(
  Object.entries(GRIDDB_CONTAINER_TYPE_CODES).map(([name, code]) => [code, name as ContainerType]));

export interface ContainerPutRequest {
  definition: ContainerDefinition;
  modifiable: boolean;
}

export function containerPutDecode(body: Uint8Array): ContainerPutRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbOptionalRequestSkip(reader);
    const name = griddbContainerKeyRead(reader);
    const typeCode = reader.u8();
    const type = CONTAINER_TYPES_BY_CODE.get(typeCode);
    if (type === undefined) {
      throw new GriddbError(GriddbErrorCode.DS_DS_SCHEMA_INVALID,
        `container type ${typeCode} is not COLLECTION (0) or TIME_SERIES (1)`);
    }
    const modifiable = reader.u8() !== 0;
    const { columns, keyCount } = griddbSchemaRead(reader);
    const dataAffinity = griddbStringRead(reader, 'data affinity');
    if (type === 'TIME_SERIES' && reader.u8() !== 0) {
      throw new GriddbError(GriddbErrorCode.DS_DS_SCHEMA_INVALID,
        'time-series properties (row expiry, compression) are not supported: GridDB 5.0 ' +
        'removed them and store has none');
    }
    if (reader.remainingBytes !== 0) {
      throw new GriddbFrameError(`${reader.remainingBytes} bytes after the container definition`);
    }
    const definition: ContainerDefinition = { name, type, columns, rowKey: keyCount };
    if (dataAffinity !== '') definition.dataAffinity = dataAffinity;
    return { definition, modifiable };
  });
}

/**
 * A schema as RowMapper::exportSchema writes it (PUT_CONTAINER, PUT_MULTIPLE_CONTAINER_ROWS):
 * | columnCount i32 | column × count | keyCount i16 | keyColumn i16 × keyCount |.
 */
export function griddbSchemaRead(reader: ByteReader):
  { columns: ContainerDefinition['columns']; keyCount: number } {
  const columnCount = reader.i32();
  if (columnCount < 0 || columnCount > COLUMN_COUNT_MAX) {
    throw new GriddbFrameError(`column count ${columnCount} is outside 0..${COLUMN_COUNT_MAX}`);
  }
  const columns: ContainerDefinition['columns'] = [];
  for (let i = 0; i < columnCount; i++) {
    const columnName = griddbStringRead(reader, `column ${i} name`);
    const code = reader.i8();
    const flags = reader.u8();
    if ((flags & ~COLUMN_FLAGS_KNOWN) !== 0) {
      throw new GriddbFrameError(`column "${columnName}" flags 0x${flags.toString(16)} ` +
        `are not GridDB's`);
    }
    const column: ContainerDefinition['columns'][number] = {
      name: columnName, type: columnTypeOf(code, columnName),
      array: (flags & GRIDDB_COLUMN_FLAG_ARRAY) !== 0,
      notNull: (flags & GRIDDB_COLUMN_FLAG_NOT_NULL) !== 0,
    };
    if (code === GRIDDB_TYPE_MICRO_TIMESTAMP) column.timePrecision = 'MICROSECOND';
    if (code === GRIDDB_TYPE_NANO_TIMESTAMP) column.timePrecision = 'NANOSECOND';
    columns.push(column);
  }
  const keyCount = reader.i16();
  if (keyCount < 0 || keyCount > columnCount) {
    throw new GriddbFrameError(`row key count ${keyCount} is outside 0..${columnCount}`);
  }
  for (let i = 0; i < keyCount; i++) {
    const column = reader.i16();
    if (column !== i) {
      throw new GriddbError(GriddbErrorCode.DS_DS_SCHEMA_INVALID,
        `row key column ${column} is not column ${i}: key columns lead the schema`);
    }
  }
  return { columns, keyCount };
}

function columnTypeOf(code: number, columnName: string): string {
  if (code === GRIDDB_TYPE_MICRO_TIMESTAMP || code === GRIDDB_TYPE_NANO_TIMESTAMP) {
    return 'TIMESTAMP';
  }
  const type = TYPE_NAMES_BY_CODE.get(code);
  if (type === undefined) {
    throw new GriddbError(GriddbErrorCode.DS_DS_SCHEMA_INVALID,
      `column "${columnName}" has type ${code}, not one of GridDB's`);
  }
  return type;
}

export function containerPutReplyWrite(writer: ByteWriter, info: ContainerInfo): void {
  writer.i32(info.schemaVersion);
  writer.i64(BigInt(info.containerId));
  griddbContainerKeyWrite(writer, info.name);
  griddbSchemaWrite(writer, info, false);
}

/** A body of the optional request, a container key and a container type: DROP_CONTAINER's and GET_CONTAINER's. */
export interface ContainerKeyTypeRequest {
  name: string;
  /** Undefined: either kind (0xff). */
  type: ContainerType | undefined;
}

export type ContainerDropRequest = ContainerKeyTypeRequest;

export function containerDropDecode(body: Uint8Array): ContainerDropRequest {
  return containerKeyTypeDecode(body, 'DROP_CONTAINER');
}

/** The optional request, the container key, its type (0, 1 or 0xff for either), nothing after. */
export function containerKeyTypeDecode(body: Uint8Array, statement: string): ContainerKeyTypeRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbOptionalRequestSkip(reader);
    const name = griddbContainerKeyRead(reader);
    const code = reader.u8();
    const type = code === CONTAINER_TYPE_ANY ? undefined : CONTAINER_TYPES_BY_CODE.get(code);
    if (code !== CONTAINER_TYPE_ANY && type === undefined) {
      throw new GriddbFrameError(`container type ${code} is not 0, 1 or 0xff`);
    }
    if (reader.remainingBytes !== 0) {
      throw new GriddbFrameError(`${reader.remainingBytes} bytes after ${statement}'s container type`);
    }
    return { name, type };
  });
}
