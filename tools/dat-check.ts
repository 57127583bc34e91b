// dat-check: reads every live block of a partition's data files — the blocks the last complete
// checkpoints reference — and verifies each one's checksum (and that it decompresses). Read-only.
//
//   node --import tsx tools/dat-check.ts (--data <dir> | --home <GS_HOME>) --partition <pId>
//        [--interval N] [--split-count N]
//
// Exit codes: 0 every block is good, 1 I/O error, 2 bad usage or missing directory,
// 3 at least one block is corrupt (each is listed).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isStorageError } from '../lib/base/errors.ts';
import { partitionId, type PartitionId } from '../lib/base/ids.ts';
import { PARTITION_NUM_MAX } from '../lib/base/limits.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { loadBlockMap } from '../compaction/block-map.ts';
import { dataPartitionDirectory } from '../compaction/cplog-files.ts';
import { DataFiles } from '../compaction/data-file.ts';

const USAGE = 'usage: dat-check (--data <dir> | --home <GS_HOME>) --partition <pId> ' +
  '[--interval N] [--split-count N]';

export interface CheckOutput {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: CheckOutput = { out: (l) => console.log(l), err: (l) => console.error(l) };

interface Request {
  dataRoot: string;
  partitionId: PartitionId;
  interval: number;
  splitCount: number;
}

export async function main(argv: string[], output: CheckOutput = consoleOutput): Promise<number> {
  const request = parseRequest(argv, output);
  if (request === undefined) return 2;
  const fileSystem = new NodeFileSystem();
  const { dataRoot, partitionId: pId } = request;
  if (!fileSystem.exists(dataPartitionDirectory(dataRoot, pId))) {
    output.err(`dat-check: partition ${pId} has no directory in ${dataRoot}`);
    return 2;
  }
  try {
    const map = loadBlockMap(fileSystem, {
      dataRoot, partitionId: pId, partialCheckpointInterval: request.interval,
    });
    if (map.blockSizeBytes === undefined) {
      output.out(`dat-check: partition ${pId} has no complete checkpoint; nothing to check`);
      return 0;
    }
    const files = await DataFiles.open({
      fileSystem, dataRoot, partitionId: pId, blockSizeBytes: map.blockSizeBytes,
      splitCount: request.splitCount,
    });
    let badCount = 0;
    try {
      for (const entry of map.blockMap.values()) {
        try {
          files.readSlot(entry.slot, entry);
        } catch (error) {
          if (!isStorageError(error, 'CORRUPTION')) throw error;
          badCount++;
          output.out(`bad block ${entry.blockId} slot ${entry.slot}: ${error.message}`);
        }
      }
    } finally {
      files.close();
    }
    output.out(`dat-check: partition ${pId}: ${map.blockMap.size} live blocks, ` +
      `${map.blockMap.size - badCount} good, ${badCount} bad (checkpoint LSN ${map.checkpointLsn})`);
    return badCount > 0 ? 3 : 0;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    output.err(`dat-check: ${error.code}: ${error.message}`);
    return error.code === 'CORRUPTION' || error.code === 'NOT_SUPPORTED' ? 3 : 1;
  }
}

function parseRequest(argv: string[], output: CheckOutput): Request | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' }, home: { type: 'string' }, partition: { type: 'string' },
        interval: { type: 'string' }, 'split-count': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    output.err(`dat-check: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return undefined;
  }
  const problems: string[] = [];
  if ((values.data === undefined) === (values.home === undefined)) {
    problems.push('give exactly one of --data and --home');
  }
  const partition = /^\d{1,5}$/.test(values.partition ?? '') ? Number(values.partition) : undefined;
  if (partition === undefined || partition >= PARTITION_NUM_MAX) {
    problems.push(`--partition must be an integer from 0 to ${PARTITION_NUM_MAX - 1}`);
  }
  const interval = /^\d{1,4}$/.test(values.interval ?? '5') ? Number(values.interval ?? '5') : 0;
  if (interval < 1 || interval > 1024) problems.push('--interval must be an integer from 1 to 1024');
  const splitText = values['split-count'] ?? '1';
  const splitCount = /^\d{1,3}$/.test(splitText) ? Number(splitText) : 0;
  if (splitCount < 1 || splitCount > 128) problems.push('--split-count must be from 1 to 128');
  if (problems.length > 0 || partition === undefined) {
    output.err(`dat-check: ${problems.join('; ')}\n${USAGE}`);
    return undefined;
  }
  return {
    dataRoot: values.data ?? join(values.home ?? '', 'data'), partitionId: partitionId(partition),
    interval, splitCount,
  };
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = await main(process.argv.slice(2));
}
