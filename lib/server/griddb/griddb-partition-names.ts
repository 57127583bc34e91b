// GridDB's GET_PARTITION_CONTAINER_NAMES (143: the partition controller's
// gsGetPartitionContainerNames and gsGetPartitionContainerCount): the names of one partition's
// containers, a page at a time.
// Body after the statement id (the C client's GSPartitionControllerTag::getContainerNames):
//
//   request | optional request | start i64 | limit i64 (0: the count only) |
//   reply   | totalCount i64 | count i32 | container key (griddb-container-key.ts) × count |
//
// Store lists its containers node-wide in name order (CONTAINER_LIST); a partition's are those
// the client's hash places there (containerPartitionId), so the node pages through the list by
// GRIDDB_LIST_PAGE_NAMES and keeps the partition's from `start`. A reply holds at most
// GRIDDB_PARTITION_NAMES_MAX names; the client asks on from where it ends.

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { CONTAINER_LIST } from '../../protocol/messages-container.ts';
import { containerPartitionId } from '../../schema/partition-hash.ts';
import { griddbContainerKeyWrite } from './griddb-container-key.ts';
import type { GriddbEngine } from './griddb-engine.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';

/** Names one reply carries at most. */
export const GRIDDB_PARTITION_NAMES_MAX = 10_000;
/** Names read from store's list per request. */
const GRIDDB_LIST_PAGE_NAMES = 10_000;

export function partitionNamesDecode(body: Uint8Array): { start: number; limit: number } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbOptionalRequestSkip(reader);
    const start = reader.i64();
    const limit = reader.i64();
    reader.expectEnd();
    if (start < 0n || limit < 0n) {
      throw new GriddbFrameError(`start ${start} and limit ${limit} must not be negative`);
    }
    const bounded = (value: bigint) =>
      Number(value > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : value);
    return { start: bounded(start), limit: bounded(limit) };
  });
}

/** GET_PARTITION_CONTAINER_NAMES of partition `partitionId` of `partitionNum`. */
export async function partitionNamesRun(engine: GriddbEngine, partitionId: number,
  partitionNum: number, body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const { start, limit } = partitionNamesDecode(body);
  const wanted = Math.min(limit, GRIDDB_PARTITION_NAMES_MAX);
  const names: string[] = [];
  let total = 0;
  for (let offset = 0; ; offset += GRIDDB_LIST_PAGE_NAMES) {
    const page = await engine.call(CONTAINER_LIST, { offset, limit: GRIDDB_LIST_PAGE_NAMES });
    for (const name of page.names) {
      if (containerPartitionId(name, partitionNum) !== partitionId) continue;
      if (total >= start && names.length < wanted) names.push(name);
      total++;
    }
    if (page.names.length < GRIDDB_LIST_PAGE_NAMES || offset + page.names.length >= page.total) {
      break;
    }
  }
  return (writer) => {
    writer.i64(BigInt(total));
    writer.i32(names.length);
    for (const name of names) griddbContainerKeyWrite(writer, name);
  };
}
