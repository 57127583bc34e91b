// Container → partition, computed the same way by client and server (spec/internals.md §1.1):
// zlib CRC-32 of the lower-cased name, or of its affinity part after '@', modulo partitionNum;
// a numeric affinity part is used as the number itself. A container key of a database other
// than public (database-names.ts) hashes as its name: GridDB hashes the name only.

import { crc32 } from 'node:zlib';
import { assert } from '../base/assert.ts';
import { partitionId, type PartitionId } from '../base/ids.ts';
import { containerBaseName } from './database-names.ts';

export function containerPartitionId(containerName: string, partitionNum: number): PartitionId {
  assert(Number.isInteger(partitionNum) && partitionNum >= 1);
  containerName = containerBaseName(containerName);
  const at = containerName.lastIndexOf('@');
  const hashed = at >= 0 ? containerName.slice(at + 1) : containerName;
  if (at >= 0 && /^\d+$/.test(hashed)) return partitionId(Number(BigInt(hashed) % BigInt(partitionNum)));
  return partitionId(crc32(hashed.toLowerCase()) % partitionNum);
}

/** Partition groups are contiguous ranges, as GridDB's PartitionGroupConfig. */
export function partitionGroupOf(pId: number, options: { partitionNum: number; concurrency: number }) {
  const base = Math.floor(options.partitionNum / options.concurrency);
  const mod = options.partitionNum % options.concurrency;
  // Group g starts at base*g + min(mod, g); the first `mod` groups have one extra partition.
  const boundary = (base + 1) * mod;
  return pId < boundary ? Math.floor(pId / (base + 1)) : mod + Math.floor((pId - boundary) / base);
}

export function partitionGroupRange(groupIndex: number, options: { partitionNum: number; concurrency: number }) {
  const base = Math.floor(options.partitionNum / options.concurrency);
  const mod = options.partitionNum % options.concurrency;
  const start = base * groupIndex + Math.min(mod, groupIndex);
  const count = base + (groupIndex < mod ? 1 : 0);
  return { startPartitionId: start, partitionCount: count };
}
