// Applying records to a partition's catalog and block images. Commit and replay share these functions,
// so the state after a crash and replay is, by construction, the state the commits produced.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import { XlogRecordType } from '../../wal/xlog-format.ts';
import type { Catalog, ContainerEntry } from './catalog.ts';
import {
  decodeCommit, decodeCreateIndex, decodeDrop, decodeDropIndexes, decodeSchemaRecord,
  indexSchemasMatch,
} from './xlog-payload.ts';

export function applyCommit(entry: ContainerEntry, changes: { puts: Row[]; removes: RowKey[] }): void {
  // Index entries follow the rows they were made from, so they change first, while the rows
  // replaced and removed can still be read.
  if (entry.indexes.maintained) applyCommitToIndexes(entry, changes);
  const rowIdBefore = entry.rows.nextRowId;
  // Puts and removes of one commit never share a key (transaction.ts), so their order is free.
  if (changes.removes.length > 0) entry.rows.remove(changes.removes);
  if (changes.puts.length > 0) entry.rows.put(changes.puts);
  if (entry.keys === undefined) assert(entry.rows.nextRowId === rowIdBefore + changes.puts.length);
}

function applyCommitToIndexes(
  entry: ContainerEntry,
  changes: { puts: readonly Row[]; removes: readonly RowKey[] },
): void {
  const { indexes, rows, keys } = entry;
  if (keys === undefined) {
    // A keyless collection only appends: the rows get the next rowIds, in order.
    const rowIdFirst = rows.nextRowId;
    changes.puts.forEach((row, i) => indexes.put(row, rowIdFirst + i, undefined));
    return;
  }
  for (const key of changes.removes) {
    const row = rows.get(key);
    if (row !== undefined) indexes.remove(row, key);
  }
  // An auto-commit multi-put may repeat a key: a later row replaces the earlier one of the batch.
  const putEarlier = new Map<string, Row>();
  for (const row of changes.puts) {
    const key = keys.keyOf(row);
    const keyString = keys.keyString(key);
    indexes.put(row, key, putEarlier.get(keyString) ?? rows.get(key));
    putEarlier.set(keyString, row);
  }
}

/** Applies one replayed xlog record. Returns the number of rows it changed. */
export function replayRecord(catalog: Catalog, type: number, payload: Uint8Array): number {
  switch (type) {
    case XlogRecordType.COMMIT: {
      const commit = decodeCommit(payload, (id) => catalog.get(id)?.schema);
      applyCommit(catalog.get(commit.containerId)!, commit);
      return commit.puts.length + commit.removes.length;
    }
    case XlogRecordType.CREATE_CONTAINER: {
      const { containerId, schema } = decodeSchemaRecord(payload);
      if (catalog.get(containerId) !== undefined || catalog.lookup(schema.name) !== undefined) {
        throw new StorageError('CORRUPTION', `xlog creates container ${containerId} twice`);
      }
      catalog.add(containerId, schema);
      return 0;
    }
    case XlogRecordType.DROP_CONTAINER: {
      const containerId = decodeDrop(payload);
      if (catalog.get(containerId) === undefined) {
        throw new StorageError('CORRUPTION', `xlog drops unknown container ${containerId}`);
      }
      catalog.remove(containerId);
      return 0;
    }
    case XlogRecordType.ALTER_CONTAINER: {
      const { containerId, schema } = decodeSchemaRecord(payload);
      const entry = catalog.get(containerId);
      if (entry === undefined || schema.schemaVersion !== entry.schema.schemaVersion + 1) {
        throw new StorageError('CORRUPTION', `xlog alters container ${containerId} out of order`);
      }
      catalog.alter(containerId, schema);
      return 0;
    }
    case XlogRecordType.CREATE_INDEX: {
      const { containerId, index } = decodeCreateIndex(payload);
      const entry = catalog.get(containerId);
      if (entry === undefined || index.columnIndexes.some((c) => c >= entry.schema.columns.length)) {
        throw new StorageError('CORRUPTION', `xlog indexes unknown container or column (${containerId})`);
      }
      catalog.setIndexes(containerId, [...entry.schema.indexes, index]);
      return 0;
    }
    case XlogRecordType.DROP_INDEX: {
      const { containerId, indexes } = decodeDropIndexes(payload);
      const entry = catalog.get(containerId);
      const kept = entry?.schema.indexes.filter((index) =>
        !indexes.some((dropped) => indexSchemasMatch(index, dropped)));
      if (entry === undefined || kept!.length !== entry.schema.indexes.length - indexes.length) {
        throw new StorageError('CORRUPTION', `xlog drops an index container ${containerId} lacks`);
      }
      catalog.setIndexes(containerId, kept!);
      return 0;
    }
    default:
      throw new StorageError('CORRUPTION', `xlog record of unknown type ${type}`);
  }
}
