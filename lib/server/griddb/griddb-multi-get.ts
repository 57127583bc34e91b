// GridDB's GET_MULTIPLE_CONTAINER_ROWS (148: gsGetMultipleContainerRows, the containers of one
// partition in one statement), run as store's MULTI_GET in auto-commit. Body after the statement
// id (the C client's GSGridStoreTag::MultiGetRequest::makeRequest and multiGet):
//
//   | sessionUUID 16 | optional request | predicateCount i32 | predicate… |
//   | entryCount i32 | (optional request | container key | predicateIndex i32)… |
//     predicate  | keyType i8 (-1: composite) | kind i8 |
//                | kind 0 RANGE:    (specified i8 | key, if specified) × 2 (start, finish) |
//                | kind 1 DISTINCT: count i32 | key × count |
//     key        | as GET_ROW's (griddb-rows.ts griddbKeyRead) |
//   reply  | schemaCount i32 | (containerType i8 | schema (griddbSchemaWrite))… |
//          | entryCount i32 | (container key | schemaIndex i32 | rowCount i64 | rows)… |
//
// Rows are in GridDB's row encoding, a collection's with row id 0 (as GET_ROW's). Each entry gets
// its own schema entry. A composite key predicate (GSRowKeyPredicate of gsCreateRowKeyPredicate-
// General) lays its key out apart (RowMapper::exportKeySchemaComposite, encodeKeyGeneral with
// its size and count), its keys as rows of the key columns (griddb-rows.ts):
//
//     composite  | keyType i8 = -1 | kind i8 | columnCount i32 | keyType i8 × columnCount |
//                | kind 0 RANGE: specified i8 × 2 (start, finish) |
//                | size i32 | keyCount i32 | keyCount rows of the key columns |
//
// A range's keys are its specified bounds, start first. A predicate of another key column count
// than the container's is TXN_CONTAINER_SCHEMA_UNMATCH.

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { CONTAINER_INFO } from '../../protocol/messages-container.ts';
import { MULTI_GET, type RowPredicate } from '../../protocol/messages-row.ts';
import { KeyBatch } from '../../protocol/wire-rows.ts';
import { AUTO_COMMIT_SESSION_ID, type SchemaRef } from '../../protocol/wire-refs.ts';
import type { KeyValue, Row } from '../../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../schema/container-schema.ts';
import { keyValidator } from '../../schema/row-validate.ts';
import { griddbContainerKeyRead, griddbContainerKeyWrite } from './griddb-container-key.ts';
import {
  GRIDDB_COLUMN_TYPE_CODES, GRIDDB_TYPE_MICRO_TIMESTAMP, GRIDDB_TYPE_NANO_TIMESTAMP,
  griddbSchemaWrite,
} from './griddb-container-properties.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { GRIDDB_MULTI_ENTRIES_MAX } from './griddb-multi-query.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import { checked, type RowStatementContext } from './griddb-row-statements.ts';
import { griddbKeyRead, griddbRowsRead, griddbRowsWrite } from './griddb-rows.ts';
import { GRIDDB_UUID_BYTES } from './griddb-sessions.ts';

const PREDICATE_RANGE = 0;
const PREDICATE_DISTINCT = 1;
const KEY_TYPE_COMPOSITE = -1;
/** Columns a composite key predicate may name (a container has fewer). */
const COMPOSITE_KEY_COLUMNS_MAX = 1024;

/** The key column a predicate's key type code reads as (the key types GridDB allows). */
const KEY_COLUMNS = new Map<number, ColumnSchema>([
  [GRIDDB_COLUMN_TYPE_CODES.STRING, { name: 'key', type: 'STRING', array: false, notNull: true }],
  [GRIDDB_COLUMN_TYPE_CODES.INTEGER, { name: 'key', type: 'INTEGER', array: false, notNull: true }],
  [GRIDDB_COLUMN_TYPE_CODES.LONG, { name: 'key', type: 'LONG', array: false, notNull: true }],
  [GRIDDB_COLUMN_TYPE_CODES.TIMESTAMP,
    { name: 'key', type: 'TIMESTAMP', array: false, notNull: true }],
  [GRIDDB_TYPE_MICRO_TIMESTAMP, { name: 'key', type: 'TIMESTAMP', array: false, notNull: true,
    timePrecision: 'MICROSECOND' }],
  [GRIDDB_TYPE_NANO_TIMESTAMP, { name: 'key', type: 'TIMESTAMP', array: false, notNull: true,
    timePrecision: 'NANOSECOND' }],
]);

/** A predicate as sent; composite: its key's column count (a key is then a KeyValue[]). */
type SentPredicate =
  | { kind: 'distinct'; keys: SentKey[]; composite?: number }
  | { kind: 'range'; start: SentKey | undefined; finish: SentKey | undefined;
    composite?: number };
type SentKey = KeyValue | KeyValue[];

export function multiGetDecode(body: Uint8Array):
  { predicates: SentPredicate[]; entries: Array<{ name: string; predicate: number }> } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    const predicates: SentPredicate[] = [];
    const predicateCount = countRead(reader, 'predicate');
    for (let i = 0; i < predicateCount; i++) {
      const keyType = reader.i8();
      if (keyType === KEY_TYPE_COMPOSITE) {
        predicates.push(compositePredicateRead(reader));
        continue;
      }
      const column = KEY_COLUMNS.get(keyType);
      if (column === undefined) throw new GriddbFrameError(`key type ${keyType} is not a key's`);
      const kind = reader.i8();
      if (kind === PREDICATE_RANGE) {
        const bound = () => (reader.i8() !== 0 ? griddbKeyRead(reader, column) : undefined);
        const start = bound();
        predicates.push({ kind: 'range', start, finish: bound() });
      } else if (kind === PREDICATE_DISTINCT) {
        const count = countRead(reader, 'key');
        const keys: KeyValue[] = [];
        for (let k = 0; k < count; k++) keys.push(griddbKeyRead(reader, column));
        predicates.push({ kind: 'distinct', keys });
      } else {
        throw new GriddbFrameError(`predicate kind ${kind} is not RANGE (0) or DISTINCT (1)`);
      }
    }
    const entries: Array<{ name: string; predicate: number }> = [];
    const entryCount = countRead(reader, 'container');
    for (let i = 0; i < entryCount; i++) {
      griddbOptionalRequestSkip(reader);
      const name = griddbContainerKeyRead(reader);
      const predicate = reader.i32();
      if (predicate < 0 || predicate >= predicates.length) {
        throw new GriddbFrameError(`predicate ${predicate} is outside 0..${predicates.length - 1}`);
      }
      entries.push({ name, predicate });
    }
    reader.expectEnd();
    return { predicates, entries };
  });
}

/** A composite key predicate, after its key type -1 (drawn at the top). */
function compositePredicateRead(reader: ByteReader): SentPredicate {
  const kind = reader.i8();
  if (kind !== PREDICATE_RANGE && kind !== PREDICATE_DISTINCT) {
    throw new GriddbFrameError(`predicate kind ${kind} is not RANGE (0) or DISTINCT (1)`);
  }
  const columnCount = reader.i32();
  if (columnCount < 2 || columnCount > COMPOSITE_KEY_COLUMNS_MAX) {
    throw new GriddbFrameError(`composite key of ${columnCount} columns is outside ` +
      `2..${COMPOSITE_KEY_COLUMNS_MAX}`);
  }
  const columns: ColumnSchema[] = [];
  for (let c = 0; c < columnCount; c++) {
    const keyType = reader.i8();
    const column = KEY_COLUMNS.get(keyType);
    if (column === undefined) throw new GriddbFrameError(`key type ${keyType} is not a key's`);
    columns.push({ ...column, name: `key${c}` });
  }
  const specified = kind === PREDICATE_RANGE ? [reader.i8() !== 0, reader.i8() !== 0] : [];
  const size = reader.i32();
  if (size < 4 || size > reader.remainingBytes) {
    throw new GriddbFrameError(`composite keys of ${size} bytes run past the body`);
  }
  const keysReader = new ByteReader(reader.bytes(size));
  const keyCount = countRead(keysReader, 'key');
  const expected = specified.filter(Boolean).length;
  if (kind === PREDICATE_RANGE && keyCount !== expected) {
    throw new GriddbFrameError(`a range of ${expected} bounds has ${keyCount} keys`);
  }
  const keys = griddbRowsRead(keysReader.bytes(keysReader.remainingBytes), columns, keyCount)
    .map((row) => row as KeyValue[]);
  if (kind === PREDICATE_DISTINCT) return { kind: 'distinct', keys, composite: columnCount };
  const start = specified[0] === true ? keys[0] : undefined;
  const finish = specified[1] === true ? keys[keyCount - 1] : undefined;
  return { kind: 'range', start, finish, composite: columnCount };
}

function countRead(reader: ByteReader, what: string): number {
  const count = reader.i32();
  if (count < 0 || count > GRIDDB_MULTI_ENTRIES_MAX) {
    throw new GriddbFrameError(`${what} count ${count} is outside 0..${GRIDDB_MULTI_ENTRIES_MAX}`);
  }
  return count;
}

/** GET_MULTIPLE_CONTAINER_ROWS. */
export async function multiGetRun(context: RowStatementContext, body: Uint8Array):
  Promise<(writer: ByteWriter) => void> {
  const { predicates, entries } = multiGetDecode(body);
  const found: Array<{ schema: ContainerSchema; ref: SchemaRef; predicate: RowPredicate }> = [];
  for (const entry of entries) {
    const info = await context.engine.call(CONTAINER_INFO,
      { partitionId: context.partitionOf(entry.name), name: entry.name });
    if (info === undefined) {
      throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_NOT_FOUND,
        `container "${entry.name}" does not exist`);
    }
    context.names.remember(info.partitionId, info.containerId, info.name);
    const schema: ContainerSchema = { name: info.name, type: info.type, columns: info.columns,
      rowKeyColumnCount: info.rowKeyColumnCount, indexes: info.indexes,
      schemaVersion: info.schemaVersion };
    const sent = predicates[entry.predicate]!;
    const keyColumnCount = sent.composite ?? 1;
    if (schema.rowKeyColumnCount !== keyColumnCount) {
      const has = schema.rowKeyColumnCount === 0 ? 'no row key'
        : `a row key of ${schema.rowKeyColumnCount} columns`;
      throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_SCHEMA_UNMATCH, `container ` +
        `"${schema.name}" has ${has}: a predicate on a key of ${keyColumnCount} cannot select ` +
        'its rows');
    }
    const key = (value: SentKey | undefined): KeyBatch => KeyBatch.of(schema,
      value === undefined ? [] : [checked(() => keyValidator(schema)(value))]);
    const predicate: RowPredicate = sent.kind === 'distinct'
      ? { kind: 'keys', keys: KeyBatch.of(schema,
        sent.keys.map((value) => checked(() => keyValidator(schema)(value)))) }
      : { kind: 'range', start: key(sent.start), finish: key(sent.finish), limit: 0 };
    found.push({ schema, predicate, ref: { partitionId: info.partitionId, name: info.name,
      containerId: info.containerId, schemaVersion: info.schemaVersion } });
  }
  const batches = found.length === 0 ? [] : await context.engine.call(MULTI_GET, {
    sessionId: AUTO_COMMIT_SESSION_ID,
    entries: found.map(({ ref, predicate }) => ({ ref, predicate })),
  });
  const rows: Row[][] = batches.map((batch, i) => batch.decode(found[i]!.schema));
  return (writer) => {
    writer.i32(found.length);
    for (const { schema } of found) griddbSchemaWrite(writer, schema);
    writer.i32(found.length);
    found.forEach(({ schema }, i) => {
      griddbContainerKeyWrite(writer, schema.name);
      writer.i32(i);
      writer.i64(BigInt(rows[i]!.length));
      griddbRowsWrite(writer, schema.columns, rows[i]!,
        schema.type === 'COLLECTION' ? rows[i]!.map(() => 0n) : undefined);
    });
  };
}
