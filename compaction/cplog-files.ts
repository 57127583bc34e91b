// Where a partition's checkpoint files live: `<dataRoot>/<pId>/<pId>_<generation>.cplog`, dataRoot
// being the data directory (GS_HOME/data by default), beside the partition's data files unless
// dbFilePathList moves those. Generations start at 1, as the xlog's, and a cplog and an xlog of one
// generation belong together. Names are decimal without leading zeros, so a name maps to exactly
// one (partition, generation) and back.

import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import type { Generation, PartitionId } from '../lib/base/ids.ts';
import type { FileSystem } from '../lib/io/file-system.ts';

export const CPLOG_FILE_EXTENSION = '.cplog';

const CPLOG_FILE_NAME_PATTERN = /^(0|[1-9]\d*)_([1-9]\d*)\.cplog$/;
const U32_MAX = 0xffff_ffff;

/** `<dataRoot>/<pId>`: the partition's cplogs, and its data files unless dbFilePathList is set. */
export function dataPartitionDirectory(dataRoot: string, partitionId: PartitionId): string {
  assert(Number.isInteger(partitionId));
  assert(partitionId >= 0 && partitionId <= U32_MAX);
  return join(dataRoot, String(partitionId));
}

/** `<pId>_<generation>.cplog` */
export function cplogFileName(partitionId: PartitionId, generation: Generation): string {
  assert(Number.isInteger(generation));
  assert(generation >= 1 && generation <= U32_MAX);
  return `${partitionId}_${generation}${CPLOG_FILE_EXTENSION}`;
}

export function cplogFilePath(
  dataRoot: string,
  partitionId: PartitionId,
  generation: Generation,
): string {
  const directory = dataPartitionDirectory(dataRoot, partitionId);
  return join(directory, cplogFileName(partitionId, generation));
}

/** The partition and generation a file name stands for; undefined for any other name. */
export function parseCplogFileName(
  name: string,
): { partitionId: PartitionId; generation: Generation } | undefined {
  const match = CPLOG_FILE_NAME_PATTERN.exec(name);
  if (match === null) return undefined;
  const partitionId = Number(match[1]);
  const generation = Number(match[2]);
  if (partitionId > U32_MAX || generation > U32_MAX) return undefined; // u32 in the HEADER
  return { partitionId: partitionId as PartitionId, generation: generation as Generation };
}

/**
 * The generations of a partition's cplog files, ascending, complete or not; [] if its directory
 * does not exist. Other partitions' files and other names are ignored.
 */
export function listCplogGenerations(
  fileSystem: FileSystem,
  dataRoot: string,
  partitionId: PartitionId,
): Generation[] {
  const generations: Generation[] = [];
  for (const name of fileSystem.list(dataPartitionDirectory(dataRoot, partitionId))) {
    const parsed = parseCplogFileName(name);
    if (parsed === undefined || parsed.partitionId !== partitionId) continue;
    generations.push(parsed.generation);
  }
  // The directory lists names sorted as text, which puts 10 before 9.
  return generations.sort((a, b) => a - b);
}
