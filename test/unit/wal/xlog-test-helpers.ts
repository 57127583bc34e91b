// Helpers for the wal tests: build xlog files byte by byte (to plant damage the writer never makes)
// and collect a scan's records into plain objects.

import { generation, lsn, partitionId, type Generation, type Lsn, type PartitionId } from
  '../../../lib/base/ids.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';
import { xlogFilePath, xlogPartitionDirectory } from '../../../wal/xlog-files.ts';
import {
  encodeXlogFileHeaderRecord, encodeXlogRecord, XLOG_FORMAT_VERSION, xlogRecordSizeBytes,
  type XlogFileHeader, type XlogRecord,
} from '../../../wal/xlog-format.ts';
import { scanXlog, type XlogScanOptions, type XlogScanResult } from '../../../wal/xlog-reader.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

export const ROOT = '/txnlog';
export const P3 = partitionId(3);
export const BLOCK_SIZE_BYTES = 64 * 1024;
export const G1 = generation(1);
export const G2 = generation(2);
export const G3 = generation(3);

/** A SimFileSystem with a durable, empty transaction log directory. */
export async function newSimLog(seed = 1): Promise<SimFileSystem> {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(ROOT);
  await fileSystem.syncDirectory('/');
  return fileSystem;
}

export function commitRecord(lsnNumber: number, payload: Uint8Array): XlogRecord {
  return { lsn: lsn(BigInt(lsnNumber)), type: 2, payload };
}

/** Bytes of a whole file: a FILE_HEADER (overridable, to plant a bad one) and the records. */
export function xlogFileBytes(options: {
  partitionId?: PartitionId;
  generation: Generation;
  previousLsn: Lsn;
  records: XlogRecord[];
  fileHeader?: Partial<XlogFileHeader>;
}): { bytes: Uint8Array; recordOffsets: number[] } {
  const header = encodeXlogFileHeaderRecord({
    formatVersion: XLOG_FORMAT_VERSION, partitionId: options.partitionId ?? P3,
    generation: options.generation, blockSizeBytes: BLOCK_SIZE_BYTES, ...options.fileHeader,
  }, options.previousLsn);
  const sizeBytes = options.records.reduce((sum, r) => sum + xlogRecordSizeBytes(r.payload.length),
    header.length);
  const bytes = new Uint8Array(sizeBytes);
  bytes.set(header);
  const recordOffsets: number[] = [];
  let offsetBytes = header.length;
  for (const record of options.records) {
    recordOffsets.push(offsetBytes);
    offsetBytes = encodeXlogRecord(bytes, offsetBytes, record);
  }
  return { bytes, recordOffsets };
}

export function writeFile(fileSystem: FileSystem, path: string, bytes: Uint8Array): void {
  const slash = path.lastIndexOf('/');
  fileSystem.mkdirp(path.slice(0, slash));
  const handle = fileSystem.open(path, 'create');
  handle.truncate(0);
  handle.write(bytes, 0);
  handle.close();
}

export function writeXlogFile(
  fileSystem: FileSystem,
  bytes: Uint8Array,
  fileGeneration: Generation,
  pId: PartitionId = P3,
): string {
  fileSystem.mkdirp(xlogPartitionDirectory(ROOT, pId));
  const path = xlogFilePath(ROOT, pId, fileGeneration);
  writeFile(fileSystem, path, bytes);
  return path;
}

export interface CollectedRecord {
  lsn: bigint;
  type: number;
  payload: number[];
  generation: number;
  offsetBytes: number;
}

/** Scans and copies every record out of the callback. */
export function collectXlog(
  fileSystem: FileSystem,
  options: Partial<XlogScanOptions> = {},
): { records: CollectedRecord[]; result: XlogScanResult } {
  const records: CollectedRecord[] = [];
  const result = scanXlog(fileSystem, {
    root: ROOT, partitionId: P3, ...options,
    onRecord: (record) => {
      records.push({
        lsn: record.lsn, type: record.type, payload: [...record.payload],
        generation: record.generation, offsetBytes: record.offsetBytes,
      });
    },
  });
  return { records, result };
}

export function bytesOf(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}

/** `count` xlog writers on a fresh generation 1, partitions 0 .. count - 1. */
export async function xlogWriters(fileSystem: FileSystem, count: number): Promise<XlogWriter[]> {
  const created: XlogWriter[] = [];
  for (let index = 0; index < count; index++) {
    created.push(await XlogWriter.create({
      fileSystem, root: ROOT, partitionId: partitionId(index), blockSizeBytes: BLOCK_SIZE_BYTES,
      generation: G1, lastLsn: lsn(0n),
    }));
  }
  return created;
}
