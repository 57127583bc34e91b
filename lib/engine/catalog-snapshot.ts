// The catalog of a partition as of a checkpoint: which containers exist, with their schemas, and the
// next container id. Written once per checkpoint generation, durable before that generation's cplog
// END, so the newest complete checkpoint always has its catalog. Recovery creates the containers from
// it, restores their rows from the data files, then replays the xlog tail.
//
//   data/<pId>/<pId>_<generation>.catalog, little-endian:
//   | magic u32 "SCAT" | formatVersion u16 | 0 u16 | crc32c u32 of the JSON bytes | lengthBytes u32 |
//   | JSON UTF-8: {"partitionId", "generation", "checkpointLsn" (decimal text), "nextContainerId",
//   |              "containers": [{"id", "schema"}]} |
// Bump CATALOG_SNAPSHOT_FORMAT_VERSION to change it.
// (The design keeps the catalog in blocks; until catalog blocks exist this small file stands in.)

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import type { ContainerId, Generation, Lsn, PartitionId } from '../base/ids.ts';
import { crc32c } from '../encoding/crc32c.ts';
import { writeFileDurable, type FileSystem } from '../io/file-system.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';

export const CATALOG_SNAPSHOT_FORMAT_VERSION = 1;
const MAGIC = 0x54414353; // "SCAT" little-endian
const HEADER_BYTES = 16;
/** A catalog larger than this is damage, not a reason to allocate. */
const CATALOG_SNAPSHOT_BYTES_MAX = 512 * 1024 * 1024;

export interface CatalogSnapshot {
  partitionId: PartitionId;
  generation: Generation;
  checkpointLsn: Lsn;
  nextContainerId: number;
  containers: Array<{ id: ContainerId; schema: ContainerSchema }>;
}

export function catalogSnapshotPath(dataRoot: string, pId: PartitionId, gen: Generation): string {
  return join(dataRoot, String(pId), `${pId}_${gen}.catalog`);
}

export async function writeCatalogSnapshot(
  fileSystem: FileSystem,
  dataRoot: string,
  snapshot: CatalogSnapshot,
): Promise<void> {
  const json = new TextEncoder().encode(JSON.stringify({
    ...snapshot, checkpointLsn: snapshot.checkpointLsn.toString(),
  }));
  const bytes = new Uint8Array(HEADER_BYTES + json.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint16(4, CATALOG_SNAPSHOT_FORMAT_VERSION, true);
  view.setUint32(8, crc32c(json), true);
  view.setUint32(12, json.length, true);
  bytes.set(json, HEADER_BYTES);
  // A new generation's name: nothing to replace, and its checksum tells a torn file.
  const path = catalogSnapshotPath(dataRoot, snapshot.partitionId, snapshot.generation);
  await writeFileDurable(fileSystem, path, bytes, { atomic: false });
}

export function readCatalogSnapshot(
  fileSystem: FileSystem,
  dataRoot: string,
  where: { partitionId: PartitionId; generation: Generation },
): CatalogSnapshot {
  const path = catalogSnapshotPath(dataRoot, where.partitionId, where.generation);
  const fail = (problem: string, cause?: unknown) =>
    new StorageError('CORRUPTION', `${path}: ${problem}`, { cause });
  if (!fileSystem.exists(path)) throw fail('missing: the checkpoint has no catalog');
  const file = fileSystem.open(path, 'read');
  let bytes: Uint8Array;
  try {
    const sizeBytes = file.sizeBytes();
    if (sizeBytes < HEADER_BYTES || sizeBytes > CATALOG_SNAPSHOT_BYTES_MAX) {
      throw fail(`${sizeBytes} bytes`);
    }
    bytes = new Uint8Array(sizeBytes);
    file.read(bytes, 0);
  } finally {
    file.close();
  }
  const view = new DataView(bytes.buffer);
  if (view.getUint32(0, true) !== MAGIC) throw fail('bad magic');
  const version = view.getUint16(4, true);
  if (version > CATALOG_SNAPSHOT_FORMAT_VERSION) {
    throw new StorageError('NOT_SUPPORTED', `${path}: catalog format ${version} is newer than this server`);
  }
  const lengthBytes = view.getUint32(12, true);
  if (HEADER_BYTES + lengthBytes !== bytes.length) throw fail('length does not match the file');
  const json = bytes.subarray(HEADER_BYTES);
  if (crc32c(json) !== view.getUint32(8, true)) throw fail('checksum mismatch');
  try {
    const parsed = JSON.parse(new TextDecoder().decode(json)) as CatalogSnapshot & {
      checkpointLsn: string;
    };
    const snapshot = { ...parsed, checkpointLsn: BigInt(parsed.checkpointLsn) as Lsn };
    if (snapshot.partitionId !== where.partitionId || snapshot.generation !== where.generation) {
      throw new Error('names another partition or generation');
    }
    return snapshot;
  } catch (cause) {
    throw fail(cause instanceof Error ? cause.message : 'not valid JSON', cause);
  }
}

/** Removes catalog files of generations before `keepFrom`. */
export function removeCatalogSnapshotsBefore(
  fileSystem: FileSystem,
  dataRoot: string,
  where: { partitionId: PartitionId; keepFrom: Generation },
): void {
  const directory = join(dataRoot, String(where.partitionId));
  for (const name of fileSystem.list(directory)) {
    const match = /^(\d+)_(\d+)\.catalog$/.exec(name);
    if (match === null || Number(match[1]) !== where.partitionId) continue;
    if (Number(match[2]) < where.keepFrom) fileSystem.remove(join(directory, name));
  }
}
