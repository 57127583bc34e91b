// Applying records to a partition's catalog and block images. Commit and replay share these functions,
// so the state after a crash and replay is, by construction, the state the commits produced.

import { StorageError } from '../base/errors.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import { XlogRecordType } from '../../wal/xlog-format.ts';
import type { Catalog, ContainerEntry } from './catalog.ts';
import { decodeCommit, decodeDrop, decodeSchemaRecord } from './xlog-payload.ts';

export function applyCommit(entry: ContainerEntry, changes: { puts: Row[]; removes: RowKey[] }): void {
  // Puts and removes of one commit never share a key (transaction.ts), so their order is free.
  if (changes.removes.length > 0) entry.rows.remove(changes.removes);
  if (changes.puts.length > 0) entry.rows.put(changes.puts);
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
    default:
      throw new StorageError('CORRUPTION', `xlog record of unknown type ${type}`);
  }
}
