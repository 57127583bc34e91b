// Payloads of the engine's xlog records. The xlog is the source of truth: replaying these records in
// LSN order from an empty partition rebuilds its catalog and rows exactly.
//
//   COMMIT            | containerId u32 | schemaVersion u32 | putCount varuint | removeCount varuint |
//                     | puts: putCount rows (row-codec.ts)  | removes: removeCount keys (row-codec.ts) |
//   CREATE_CONTAINER  | containerId u32 | schema: varuint length + UTF-8 JSON of ContainerSchema |
//   DROP_CONTAINER    | containerId u32 |
//   ALTER_CONTAINER   | containerId u32 | schema: varuint length + UTF-8 JSON of the new ContainerSchema |
//   CREATE_INDEX      | containerId u32 | index |
//   DROP_INDEX        | containerId u32 | indexCount varuint | index… |
//     index           | name string (varuint length + UTF-8; '' unnamed) | type u8 (0 TREE, 1 SPATIAL) |
//                     | columnCount varuint | columnIndex varuint… |
//
// An index record names the index whole, so replay finds exactly the one it adds or drops; it
// changes the catalog's definitions only (index structures are derived from the rows).
//
// A commit holds one transaction on one container (ACID is per container). Its puts and removes are
// disjoint by key (the write set keeps the last change of each row), except that an auto-commit
// multi-put may repeat a key: rows apply in order, so the last one wins, at commit and at replay alike.
// Change a layout only together with XLOG_PAYLOAD_VERSION.

import { StorageError } from '../base/errors.ts';
import { containerId, type ContainerId } from '../base/ids.ts';
import { ByteReader } from '../encoding/byte-reader.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import { rowCodec } from '../encoding/row-codec.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema, IndexSchema } from '../schema/container-schema.ts';
import { ROW_KEY_COLUMN_COUNT_MAX } from '../base/limits.ts';
import { normalizeName } from '../schema/names.ts';
import { XlogRecordType } from '../../wal/xlog-format.ts';

export const XLOG_PAYLOAD_VERSION = 1;

export interface CommitPayload {
  containerId: ContainerId;
  schemaVersion: number;
  puts: Row[];
  removes: RowKey[];
}

export function encodeCommit(writer: ByteWriter, schema: ContainerSchema, commit: CommitPayload) {
  writer.reset();
  writer.u32(commit.containerId);
  writer.u32(commit.schemaVersion);
  writer.varuint(commit.puts.length);
  writer.varuint(commit.removes.length);
  const codec = rowCodec(schema, 'storage');
  codec.writeRows(writer, commit.puts);
  // A collection without a row key has no keys to write (and never removes by key).
  if (commit.removes.length > 0) codec.writeKeys(writer, commit.removes);
  return writer.finish();
}

/** Reads the container id first, so the caller can find the schema to decode the rest with. */
export function commitContainerId(payload: Uint8Array): ContainerId {
  return containerId(new ByteReader(payload).u32());
}

export function decodeCommit(payload: Uint8Array, schemaOf: (id: ContainerId) => ContainerSchema | undefined) {
  const reader = new ByteReader(payload);
  const id = containerId(reader.u32());
  const schemaVersion = reader.u32();
  const putCount = reader.varuint();
  const removeCount = reader.varuint();
  const schema = schemaOf(id);
  if (schema === undefined) {
    throw new StorageError('CORRUPTION', `xlog commit for unknown container id ${id}`);
  }
  if (schema.schemaVersion !== schemaVersion) {
    throw new StorageError('CORRUPTION',
      `xlog commit for container ${id} has schema version ${schemaVersion}, ` +
        `the catalog has ${schema.schemaVersion}`);
  }
  const codec = rowCodec(schema, 'storage');
  const puts = codec.readRows(reader, putCount);
  const removes = removeCount > 0 ? codec.readKeys(reader, removeCount) : [];
  reader.expectEnd();
  return { containerId: id, schemaVersion, puts, removes } satisfies CommitPayload;
}

export function encodeSchemaRecord(writer: ByteWriter, id: ContainerId, schema: ContainerSchema) {
  writer.reset();
  writer.u32(id);
  writer.string(JSON.stringify(schema));
  return writer.finish();
}

export function decodeSchemaRecord(payload: Uint8Array): { containerId: ContainerId; schema: ContainerSchema } {
  const reader = new ByteReader(payload);
  const id = containerId(reader.u32());
  const text = reader.string();
  reader.expectEnd();
  let schema: ContainerSchema;
  try {
    schema = JSON.parse(text) as ContainerSchema;
  } catch (cause) {
    throw new StorageError('CORRUPTION', `xlog schema record for container ${id} is not JSON`, { cause });
  }
  return { containerId: id, schema };
}

export function encodeDrop(writer: ByteWriter, id: ContainerId) {
  writer.reset();
  writer.u32(id);
  return writer.finish();
}

export function decodeDrop(payload: Uint8Array): ContainerId {
  const reader = new ByteReader(payload);
  const id = containerId(reader.u32());
  reader.expectEnd();
  return id;
}

const INDEX_TYPES: readonly IndexSchema['type'][] = ['TREE', 'SPATIAL'];

function indexWrite(writer: ByteWriter, index: IndexSchema): void {
  writer.string(index.name);
  writer.u8(INDEX_TYPES.indexOf(index.type));
  writer.varuint(index.columnIndexes.length);
  for (const columnIndex of index.columnIndexes) writer.varuint(columnIndex);
}

function indexRead(reader: ByteReader): IndexSchema {
  const name = reader.string();
  const typeNumber = reader.u8();
  const type = INDEX_TYPES[typeNumber];
  if (type === undefined) throw new StorageError('CORRUPTION', `xlog index of type ${typeNumber}`);
  const columnCount = reader.varuint();
  if (columnCount === 0 || columnCount > ROW_KEY_COLUMN_COUNT_MAX) {
    throw new StorageError('CORRUPTION', `xlog index of ${columnCount} columns`);
  }
  const columnIndexes = Array.from({ length: columnCount }, () => reader.varuint());
  return { name, type, columnIndexes };
}

export function encodeCreateIndex(writer: ByteWriter, id: ContainerId, index: IndexSchema) {
  writer.reset();
  writer.u32(id);
  indexWrite(writer, index);
  return writer.finish();
}

export function decodeCreateIndex(payload: Uint8Array): { containerId: ContainerId; index: IndexSchema } {
  const reader = new ByteReader(payload);
  const id = containerId(reader.u32());
  const index = indexRead(reader);
  reader.expectEnd();
  return { containerId: id, index };
}

export function encodeDropIndexes(writer: ByteWriter, id: ContainerId, indexes: readonly IndexSchema[]) {
  writer.reset();
  writer.u32(id);
  writer.varuint(indexes.length);
  for (const index of indexes) indexWrite(writer, index);
  return writer.finish();
}

export function decodeDropIndexes(payload: Uint8Array): { containerId: ContainerId; indexes: IndexSchema[] } {
  const reader = new ByteReader(payload);
  const id = containerId(reader.u32());
  const count = reader.varuint();
  if (count === 0 || count > payload.length) {
    throw new StorageError('CORRUPTION', `xlog drops ${count} indexes`);
  }
  const indexes = Array.from({ length: count }, () => indexRead(reader));
  reader.expectEnd();
  return { containerId: id, indexes };
}

/** The same index: name (case-insensitively), type and columns. */
export function indexSchemasMatch(a: IndexSchema, b: IndexSchema): boolean {
  return a.type === b.type && normalizeName(a.name) === normalizeName(b.name) &&
    a.columnIndexes.length === b.columnIndexes.length &&
    a.columnIndexes.every((c, i) => c === b.columnIndexes[i]);
}

function describeIndex(index: IndexSchema): string {
  return `${index.type}${JSON.stringify(index.name)}(${index.columnIndexes.join(',')})`;
}

/** One line about a record, for tools/xlog-dump. Decodes what needs no schema. */
export function describeXlogPayload(type: number, payload: Uint8Array): string {
  switch (type) {
    case XlogRecordType.COMMIT: {
      const reader = new ByteReader(payload);
      const id = reader.u32();
      const schemaVersion = reader.u32();
      return `container=${id} schemaVersion=${schemaVersion} puts=${reader.varuint()} ` +
        `removes=${reader.varuint()}`;
    }
    case XlogRecordType.CREATE_CONTAINER:
    case XlogRecordType.ALTER_CONTAINER: {
      const { containerId: id, schema } = decodeSchemaRecord(payload);
      const columns = schema.columns.map((c) => `${c.name}:${c.type}${c.array ? '[]' : ''}`).join(',');
      return `container=${id} name=${JSON.stringify(schema.name)} type=${schema.type} ` +
        `key=${schema.rowKeyColumnCount} columns=${columns}`;
    }
    case XlogRecordType.DROP_CONTAINER:
      return `container=${decodeDrop(payload)}`;
    case XlogRecordType.CREATE_INDEX: {
      const { containerId: id, index } = decodeCreateIndex(payload);
      return `container=${id} index=${describeIndex(index)}`;
    }
    case XlogRecordType.DROP_INDEX: {
      const { containerId: id, indexes } = decodeDropIndexes(payload);
      return `container=${id} indexes=${indexes.map(describeIndex).join(',')}`;
    }
    default:
      return '';
  }
}
