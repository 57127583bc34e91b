// cplog-dump: prints a partition's checkpoint logs — each generation's header, its BLOCK and FREE
// entries, and whether it is complete — then the block map recovery would build from them.
// Read-only.
//
//   node --import tsx tools/cplog-dump.ts (--data <dir> | --home <GS_HOME>) --partition <pId>
//        [--interval N] [--entries] [--json]
//
// Exit codes: 0 done, 1 I/O error, 2 bad usage or missing directory, 3 corruption.

import { pathToFileURL } from 'node:url';
import { isStorageError } from '../lib/base/errors.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { loadBlockMap } from '../compaction/block-map.ts';
import {
  cplogFilePath, dataPartitionDirectory, listCplogGenerations,
} from '../compaction/cplog-files.ts';
import { readCplog } from '../compaction/cplog-reader.ts';
import {
  consoleOutput, parseDataToolArgs, type DataToolTarget, type ToolOutput,
} from './data-tool-args.ts';
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageLine, type CommandHelp,
} from './command-help.ts';

const HELP: CommandHelp = {
  name: 'cplog-dump',
  usage: ['(--data <dir> | --home <GS_HOME>) --partition' +
    ' <pId> [--interval N] [--entries] [--json]'],
  summary: 'Prints a partition\'s checkpoint logs and the block map recovery would build from ' +
    'them. Read-only.',
  options: [
    ['--data <dir>', 'the data directory'],
    ['--home <GS_HOME>', 'the node\'s home: its data directory'],
    ['--partition <pId>', 'the partition (required)'],
    ['--interval N', 'partialCheckpointInterval to rebuild block maps with, 1-1024 (default 5)'],
    ['--entries', 'print every BLOCK and FREE entry (default off)'],
    ['--json', 'JSON output (default: text)'],
  ],
  exitCodes: [
    [0, 'done'], [1, 'I/O error'], [EXIT_USAGE, 'bad usage or a missing directory'],
    [3, 'corruption'],
  ],
  example: 'cplog-dump --home /tmp/store-home --partition 0',
};
const USAGE = usageLine(HELP);

interface Request extends DataToolTarget {
  entries: boolean;
  json: boolean;
}

export function main(argv: string[], output: ToolOutput = consoleOutput): number {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    output.out(answer);
    return EXIT_HELP;
  }
  const request = parseRequest(argv, output);
  if (request === undefined) return 2;
  const fileSystem = new NodeFileSystem();
  if (!fileSystem.exists(dataPartitionDirectory(request.dataRoot, request.partitionId))) {
    output.err(`cplog-dump: partition ${request.partitionId} has no directory in ` +
      request.dataRoot);
    return 2;
  }
  try {
    const { dataRoot, partitionId: pId } = request;
    for (const generation of listCplogGenerations(fileSystem, dataRoot, pId)) {
      const cplog = readCplog(fileSystem, cplogFilePath(dataRoot, pId, generation));
      const summary = {
        generation, complete: cplog.complete, entries: cplog.entryCount, sizeBytes: cplog.sizeBytes,
        checkpointLsn: cplog.header === undefined ? undefined : String(cplog.header.checkpointLsn),
        incompleteReason: cplog.incompleteReason,
      };
      output.out(request.json ? JSON.stringify(summary) : formatLine('cplog', summary));
      if (!request.entries) continue;
      for (const entry of cplog.entries) {
        output.out(request.json ? JSON.stringify(entry) : formatLine('  entry', { ...entry }));
      }
    }
    const map = loadBlockMap(fileSystem, {
      dataRoot: request.dataRoot, partitionId: request.partitionId,
      partialCheckpointInterval: request.interval,
    });
    const summary = {
      liveBlocks: map.blockMap.size, checkpointLsn: String(map.checkpointLsn),
      generations: map.generations.join(',') || '-',
      incomplete: map.incompleteGenerations.map((g) => g.generation).join(',') || '-',
    };
    output.out(request.json
      ? JSON.stringify({ blockMap: summary })
      : formatLine('block map', summary));
    return 0;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    output.err(`cplog-dump: ${error.code}: ${error.message}`);
    return error.code === 'CORRUPTION' || error.code === 'NOT_SUPPORTED' ? 3 : 1;
  }
}

function formatLine(label: string, fields: Record<string, unknown>): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const quoted = typeof value === 'string' && value.includes(' ');
      return `${key}=${quoted ? JSON.stringify(value) : String(value)}`;
    });
  return `${label}: ${parts.join(' ')}`;
}

function parseRequest(argv: string[], output: ToolOutput): Request | undefined {
  const parsed = parseDataToolArgs({ name: 'cplog-dump', usage: USAGE, output }, argv,
    { entries: { type: 'boolean' }, json: { type: 'boolean' } });
  if (parsed === undefined) return undefined;
  const { target, values } = parsed;
  return { ...target, entries: values['entries'] === true, json: values['json'] === true };
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = main(process.argv.slice(2));
}
