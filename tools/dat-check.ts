// dat-check: reads every live block of a partition's data files — the blocks the last complete
// checkpoints reference — and verifies each one's checksum (and that it decompresses). Read-only,
// so it may run beside a node on its home (it takes no lock): it opens the data files only once
// each exists (DataFiles.open would create a missing one, which a later start with a smaller
// dbFileSplitCount would refuse), and refuses with exit code 2 otherwise.
//
//   node --import tsx tools/dat-check.ts (--data <dir> | --home <GS_HOME>) --partition <pId>
//        [--interval N] [--split-count N]
//
// Exit codes: 0 every block is good, 1 I/O error, 2 bad usage or missing directory,
// 3 at least one block is corrupt (each is listed).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isStorageError } from '../lib/base/errors.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { loadBlockMap } from '../compaction/block-map.ts';
import { dataPartitionDirectory } from '../compaction/cplog-files.ts';
import { DataFiles } from '../compaction/data-file.ts';
import { dataFileDirectories, dataFileName } from '../compaction/data-file-layout.ts';
import {
  consoleOutput, parseDataToolArgs, type DataToolTarget, type ToolOutput,
} from './data-tool-args.ts';
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageLine, type CommandHelp,
} from './command-help.ts';

const HELP: CommandHelp = {
  name: 'dat-check',
  usage: ['(--data <dir> | --home <GS_HOME>) --partition <pId> [--interval N] [--split-count N]'],
  summary: 'Reads every live block of a partition\'s data files and verifies its checksum. ' +
    'Read-only; may run\nbeside a node.',
  options: [
    ['--data <dir>', 'the data directory'],
    ['--home <GS_HOME>', 'the node\'s home: its data directory'],
    ['--partition <pId>', 'the partition (required)'],
    ['--interval N', 'partialCheckpointInterval to rebuild block maps with, 1-1024 (default 5)'],
    ['--split-count N', 'dbFileSplitCount of the node, 1-128 (default 1)'],
  ],
  exitCodes: [
    [0, 'every block is good'], [1, 'I/O error'],
    [EXIT_USAGE, 'bad usage or a missing directory'], [3, 'at least one block is corrupt'],
  ],
  example: 'dat-check --home /tmp/store-home --partition 0',
};
const USAGE = usageLine(HELP);

interface Request extends DataToolTarget {
  splitCount: number;
}

export async function main(argv: string[], output: ToolOutput = consoleOutput): Promise<number> {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    output.out(answer);
    return EXIT_HELP;
  }
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
    const layout = { dataRoot, partitionId: pId, splitCount: request.splitCount };
    const missing = dataFileDirectories(layout)
      .map((directory, n) => join(directory, dataFileName(pId, n)))
      .filter((path) => !fileSystem.exists(path));
    if (missing.length > 0) {
      output.err(`dat-check: no data file ${missing.join(', ')} (is --split-count right?)`);
      return 2;
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
      `${map.blockMap.size - badCount} good, ${badCount} bad ` +
      `(checkpoint LSN ${map.checkpointLsn})`);
    return badCount > 0 ? 3 : 0;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    output.err(`dat-check: ${error.code}: ${error.message}`);
    return error.code === 'CORRUPTION' || error.code === 'NOT_SUPPORTED' ? 3 : 1;
  }
}

function parseRequest(argv: string[], output: ToolOutput): Request | undefined {
  let splitCount = 0;
  const parsed = parseDataToolArgs({ name: 'dat-check', usage: USAGE, output }, argv,
    { 'split-count': { type: 'string' } },
    (values, problems) => {
      const text = (values['split-count'] as string | undefined) ?? '1';
      splitCount = /^\d{1,3}$/.test(text) ? Number(text) : 0;
      if (splitCount < 1 || splitCount > 128) problems.push('--split-count must be from 1 to 128');
    });
  return parsed === undefined ? undefined : { ...parsed.target, splitCount };
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = await main(process.argv.slice(2));
}
