// GridDB's PUT_MULTIPLE_CONTAINER_ROWS (149: gsPutMultipleContainerRows, the containers of one
// partition in one statement, after CREATE_MULTIPLE_SESSIONS by name gave their ids:
// griddb-multi-query.ts), run as store's MULTI_PUT. Body after the statement id (the C client's
// GSGridStoreTag::MultiPutStatement::makeMainRequest):
//
//   | sessionUUID 16 | optional request | schemaCount i32 |
//   | (containerType i8 | schema (griddb-container-put.ts griddbSchemaRead))… |
//   | containerCount i32 | (statementId i64 | containerId i64 | sessionId i64 | sessionMode i8 |
//   |   transactionMode i8 | optional request | schemaIndex i32 | listBytes i32 |
//   |   rowCount i64 | rows (griddb-rows.ts), listBytes in all)… |
//   reply empty
//
// The rows are read with the container's own columns; a schema that is not the container's
// (names, types, arrays, key) is TXN_CONTAINER_SCHEMA_UNMATCH. Rows of fixed-size columns are
// transcoded byte to byte (griddb-rows-transcode.ts), the others decoded and checked, as for
// PUT_MULTIPLE_ROWS (griddbRowBatchOf). Each container's rows are one
// auto-commit put, in request order, stopping at the first failure: GridDB's multi-put is not
// atomic across containers either (store's MULTI_PUT, messages-row.ts).

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { MULTI_PUT } from '../../protocol/messages-row.ts';
import type { RowBatch } from '../../protocol/wire-rows.ts';
import type { ContainerDefinition } from '../../schema/container-schema.ts';
import { griddbSchemaRead } from './griddb-container-put.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { GRIDDB_MULTI_ENTRIES_MAX } from './griddb-multi-query.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import {
  containerOf, griddbContainerIdRead, griddbRowBatchOf, type RowStatementContext,
} from './griddb-row-statements.ts';
import { GRIDDB_UUID_BYTES } from './griddb-sessions.ts';

interface SentSchema {
  columns: ContainerDefinition['columns'];
  keyCount: number;
}

interface MultiPutEntry {
  containerId: number;
  schemaIndex: number;
  rowCount: number;
  rows: Uint8Array;
}

function countRead(reader: ByteReader, what: string): number {
  const count = reader.i32();
  if (count < 0 || count > GRIDDB_MULTI_ENTRIES_MAX) {
    throw new GriddbFrameError(`${what} count ${count} is outside 0..${GRIDDB_MULTI_ENTRIES_MAX}`);
  }
  return count;
}

export function multiPutDecode(body: Uint8Array):
  { schemas: SentSchema[]; entries: MultiPutEntry[] } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    const schemas: SentSchema[] = [];
    const schemaCount = countRead(reader, 'schema');
    for (let i = 0; i < schemaCount; i++) {
      reader.i8(); // container type: the container's own is used
      schemas.push(griddbSchemaRead(reader));
    }
    const entries: MultiPutEntry[] = [];
    const entryCount = countRead(reader, 'container');
    for (let i = 0; i < entryCount; i++) {
      reader.i64(); // statement id: the client sends 1 for every container
      const containerId = griddbContainerIdRead(reader);
      reader.i64(); // session id: each container's rows are an auto-commit put
      reader.i8();
      reader.i8();
      griddbOptionalRequestSkip(reader);
      const schemaIndex = reader.i32();
      if (schemaIndex < 0 || schemaIndex >= schemas.length) {
        throw new GriddbFrameError(`schema ${schemaIndex} is outside 0..${schemas.length - 1}`);
      }
      const listBytes = reader.i32();
      if (listBytes < 8 || listBytes > reader.remainingBytes) {
        throw new GriddbFrameError(`row list of ${listBytes} bytes does not fit the body`);
      }
      const list = new ByteReader(reader.bytes(listBytes));
      const rowCount = list.i64();
      if (rowCount < 0n || rowCount > BigInt(listBytes)) {
        throw new GriddbFrameError(`row count ${rowCount} is outside 0..${listBytes}`);
      }
      entries.push({ containerId, schemaIndex, rowCount: Number(rowCount),
        rows: list.bytes(list.remainingBytes) });
    }
    reader.expectEnd();
    return { schemas, entries };
  });
}

/** PUT_MULTIPLE_CONTAINER_ROWS. */
export async function multiPutRun(context: RowStatementContext, body: Uint8Array):
  Promise<(writer: ByteWriter) => void> {
  const { schemas, entries } = multiPutDecode(body);
  const puts: Array<{ ref: { partitionId: number; name: string; containerId: number;
    schemaVersion: number }; rows: RowBatch }> = [];
  for (const entry of entries) {
    const { schema, ref } = await containerOf(context, { containerId: entry.containerId });
    const sent = schemas[entry.schemaIndex]!;
    const same = sent.keyCount === schema.rowKeyColumnCount &&
      sent.columns.length === schema.columns.length &&
      sent.columns.every((column, i) => {
        const own = schema.columns[i]!;
        return column.name.toLowerCase() === own.name.toLowerCase() &&
          column.type === own.type && column.array === own.array &&
          (column.timePrecision ?? 'MILLISECOND') === (own.timePrecision ?? 'MILLISECOND');
      });
    if (!same) {
      throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_SCHEMA_UNMATCH,
        `the rows for container "${schema.name}" are of another schema than its own`);
    }
    // Each container's rows in a buffer of their own (all go in one request): no scratch.
    if (entry.rowCount > 0) {
      puts.push({ ref, rows: griddbRowBatchOf(schema, entry.rows, entry.rowCount) });
    }
  }
  if (puts.length > 0) {
    await context.engine.call(MULTI_PUT,
      { statement: context.sessions.statement(undefined, 0), entries: puts });
  }
  return () => undefined;
}
