// GET_CONTAINER (105): how a GridDB client opens an existing container for a static binding
// (gsGetCollection, gsGetTimeSeries: the C client's GSGridStoreTag::getContainer). With protocol
// v15 the client sends one statement for both kinds (getContainerStatement: "unified"), the
// kind in the body. Bodies after the statement id (str = i32 UTF-8 size + bytes, key =
// griddb-container-key.ts):
//
//   request | optional request | key | containerType u8 (0 COLLECTION, 1 TIME_SERIES, 0xff either) |
//   reply   | exists i8 | (if exists) schemaVersion i32 | containerId i64 | key |
//           |   columnCount i32 | column × count | keyCount i16 | keyColumn i16 × keyCount |
//
// The reply after `exists` is PUT_CONTAINER's (griddb-container-put.ts), as GridDB's server
// writes both from one schema message (DataStoreV4::createSchemaMessage). GridDB appends the
// container's options and attribute after the key columns; the client reads the schema through
// its binding and stops there (RowMapper::Cache::resolve with the reply stream), so the node
// sends what PUT_CONTAINER sends. An absent container is SUCCESS with exists = 0 (the
// application gets NULL); a container of the other kind is refused with
// DS_DS_CONTAINER_TYPE_INVALID, as GridDB's getBaseContainer refuses it. The binding's check
// against the schema (column names, types, order, key) is the client's own: a binding that
// differs fails in the client with GS_ERROR_CC_ILLEGAL_SCHEMA, as against GridDB.

import type { ByteWriter } from '../../encoding/byte-writer.ts';
import type { ContainerType } from '../../schema/container-schema.ts';
import type { ContainerInfo } from '../../protocol/wire-schema.ts';
import {
  containerKeyTypeDecode, containerPutReplyWrite, type ContainerKeyTypeRequest,
} from './griddb-container-put.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';

export type ContainerGetRequest = ContainerKeyTypeRequest;

export function containerGetDecode(body: Uint8Array): ContainerGetRequest {
  return containerKeyTypeDecode(body, 'GET_CONTAINER');
}

/** GridDB's refusal of a container of another kind than the request's `type`. */
export function containerGetTypeCheck(type: ContainerType | undefined,
  info: ContainerInfo | undefined): void {
  if (info !== undefined && type !== undefined && info.type !== type) {
    throw new GriddbError(GriddbErrorCode.DS_DS_CONTAINER_TYPE_INVALID,
      `container "${info.name}" is a ${info.type}, not a ${type}`);
  }
}

/** Writes the reply drawn above for `info` (undefined: the container does not exist). */
export function containerGetReplyWrite(writer: ByteWriter, info: ContainerInfo | undefined): void {
  writer.i8(info === undefined ? 0 : 1);
  if (info !== undefined) containerPutReplyWrite(writer, info);
}
