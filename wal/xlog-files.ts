// Where xlog files live: `<root>/<pId>/<pId>_<generation>.xlog`, root being the transaction log
// directory (GS_HOME/txnlog by default). Generations start at 1 and grow by checkpoint; a
// partition's log is its files in ascending generation order. Names are decimal without leading
// zeros, so a name maps to exactly one (partition, generation) and back.

import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import type { Generation, PartitionId } from '../lib/base/ids.ts';
import type { FileSystem } from '../lib/io/file-system.ts';

export const XLOG_FILE_EXTENSION = '.xlog';

const XLOG_FILE_NAME_PATTERN = /^(0|[1-9]\d*)_([1-9]\d*)\.xlog$/;

export function xlogPartitionDirectory(root: string, partitionId: PartitionId): string {
  assertPartitionId(partitionId);
  return join(root, String(partitionId));
}

/** `<pId>_<generation>.xlog` */
export function xlogFileName(partitionId: PartitionId, generation: Generation): string {
  assertPartitionId(partitionId);
  assertGeneration(generation);
  return `${partitionId}_${generation}${XLOG_FILE_EXTENSION}`;
}

export function xlogFilePath(
  root: string,
  partitionId: PartitionId,
  generation: Generation,
): string {
  return join(xlogPartitionDirectory(root, partitionId), xlogFileName(partitionId, generation));
}

/** The partition and generation a file name stands for; undefined for any other name. */
export function parseXlogFileName(
  name: string,
): { partitionId: PartitionId; generation: Generation } | undefined {
  const match = XLOG_FILE_NAME_PATTERN.exec(name);
  if (match === null) return undefined;
  const partitionId = Number(match[1]);
  const generation = Number(match[2]);
  if (!Number.isSafeInteger(partitionId) || !Number.isSafeInteger(generation)) return undefined;
  if (partitionId > 0xffff_ffff || generation > 0xffff_ffff) return undefined; // u32 in the header
  return { partitionId: partitionId as PartitionId, generation: generation as Generation };
}

/**
 * The generations of a partition's xlog files, ascending; [] if its directory does not exist. Files
 * of other partitions and other names in the directory are ignored.
 */
export function listXlogGenerations(
  fileSystem: FileSystem,
  root: string,
  partitionId: PartitionId,
): Generation[] {
  const generations: Generation[] = [];
  for (const name of fileSystem.list(xlogPartitionDirectory(root, partitionId))) {
    const parsed = parseXlogFileName(name);
    if (parsed === undefined || parsed.partitionId !== partitionId) continue;
    generations.push(parsed.generation);
  }
  // The directory lists names sorted as text, which puts 10 before 9.
  return generations.sort((a, b) => a - b);
}

function assertPartitionId(partitionId: PartitionId): void {
  assert(Number.isInteger(partitionId));
  assert(partitionId >= 0 && partitionId <= 0xffff_ffff);
}

function assertGeneration(generation: Generation): void {
  assert(Number.isInteger(generation));
  assert(generation >= 1 && generation <= 0xffff_ffff);
}
