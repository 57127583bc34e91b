// xlog-truncate: the repair step for a corrupt xlog (docs/durability.md, "Repairing a corrupt log"). It ends a
// partition's log at a given file and offset, the place a CORRUPTION message names: the bytes of
// that file from the offset on are saved to the file --save names, every later generation's file is
// moved beside it (`<save>.<pId>_<generation>.xlog`), then the file is cut and the cut made durable.
// Nothing is deleted. The records after the cut are lost to the node: that is the point of it,
// and why the tool never runs on its own.
//
//   node --import tsx tools/xlog-truncate.ts (--home <GS_HOME> | --txnlog <dir>) --partition <pId>
//        --generation <g> --offset <bytes> --save <file>
//
// With --home it takes the home's lock (lib/io/home-lock.ts) for the whole cut, as a node does, so
// it refuses while a node runs on that home (and a node cannot start while it cuts): the node owns
// its log. Without --home (a bare --txnlog directory) it still refuses when conf/store.pid beside
// it names a live node. After the cut it scans the log again and says where it ends now.
// Exit codes: 0 cut (and the log reads to its end), 1 I/O error, 2 bad usage or refused, 3 the log
// is still corrupt after the cut (another damage: run it again at the place named).

import { basename, resolve } from 'node:path';
import { isStorageError } from '../lib/base/errors.ts';
import { assert } from '../lib/base/assert.ts';
import { generation, type Generation, type PartitionId } from '../lib/base/ids.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import { homeLocker, type HomeLock } from '../lib/io/home-lock.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { listXlogGenerations, xlogFileName, xlogFilePath, xlogPartitionDirectory } from
  '../wal/xlog-files.ts';
import { scanXlog } from '../wal/xlog-reader.ts';
import {
  consoleOutput, parseWholeNumber, parseXlogToolArgs, type ToolOutput,
} from './data-tool-args.ts';
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageLine, type CommandHelp,
} from './command-help.ts';
import { processAlive, readNodePid } from './store-node-process.ts';

const HELP: CommandHelp = {
  name: 'xlog-truncate',
  usage: ['(--home <GS_HOME> | --txnlog <dir>) --partition' +
    ' <pId> --generation <g> --offset <bytes> --save <file>'],
  summary: 'Ends a partition\'s xlog at a file and offset (the place a CORRUPTION message ' +
    'names), saving\nthe bytes cut to --save. Refuses while a node runs on the home.',
  options: [
    ['--home <GS_HOME>', 'the node\'s home: its txnlog directory (takes the home\'s lock)'],
    ['--txnlog <dir>', 'the transaction log directory'],
    ['--partition <pId>', 'the partition (required)'],
    ['--generation <g>', 'the xlog file\'s generation (required)'],
    ['--offset <bytes>', 'where to cut it (required)'],
    ['--save <file>', 'where the bytes cut go; must not exist (required)'],
  ],
  exitCodes: [
    [0, 'cut, and the log reads to its end'], [1, 'I/O error'],
    [EXIT_USAGE, 'bad usage, or refused'], [3, 'the log is still corrupt after the cut'],
  ],
  example: 'xlog-truncate --home /tmp/store-home --partition 0 --generation 1 --offset 4096 ' +
    '--save /tmp/cut.bin',
};
const USAGE = usageLine(HELP);
/** Bytes copied per read while saving the cut. */
const COPY_CHUNK_BYTES = 1024 * 1024;

interface TruncateRequest {
  home: string | undefined;
  root: string;
  partitionId: PartitionId;
  generation: Generation;
  offsetBytes: number;
  savePath: string;
}

/** Runs the tool on `argv` (without node and the script); returns the exit code. */
export async function main(argv: string[], output: ToolOutput = consoleOutput): Promise<number> {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    output.out(answer);
    return EXIT_HELP;
  }
  const request = parseRequest(argv, output);
  if (request === undefined) return 2;
  let lock: HomeLock | undefined;
  if (request.home !== undefined) {
    const pid = readNodePid(request.home);
    if (pid !== undefined && processAlive(pid)) {
      output.err(`xlog-truncate: the node of ${request.home} is running (pid ${pid}); stop it first`);
      return 2;
    }
    try {
      lock = homeLocker.lock(resolve(request.home), { nowMs: Date.now() });
    } catch (error) {
      output.err(`xlog-truncate: ${error instanceof Error ? error.message : String(error)}; ` +
        'stop the node first');
      return 2;
    }
  }
  try {
    return await truncateLocked(request, output);
  } finally {
    lock?.release();
  }
}

async function truncateLocked(request: TruncateRequest, output: ToolOutput): Promise<number> {
  const fileSystem = new NodeFileSystem();
  const path = xlogFilePath(request.root, request.partitionId, request.generation);
  if (!fileSystem.exists(path)) {
    output.err(`xlog-truncate: ${path} does not exist`);
    return 2;
  }
  try {
    const sizeBytes = fileSizeBytes(fileSystem, path);
    if (request.offsetBytes > sizeBytes) {
      output.err(`xlog-truncate: --offset ${request.offsetBytes} is past the end of ${path} ` +
        `(${sizeBytes} bytes)`);
      return 2;
    }
    if (fileSystem.exists(request.savePath)) {
      output.err(`xlog-truncate: ${request.savePath} exists; name a new file with --save`);
      return 2;
    }
    await cut(fileSystem, request, { path, sizeBytes }, output);
  } catch (error) {
    output.err(`xlog-truncate: ${error instanceof Error ? error.message : String(error)}`);
    return isStorageError(error, 'IO') ? 1 : 2;
  }
  try {
    const scan = scanXlog(fileSystem, { root: request.root, partitionId: request.partitionId });
    output.out(`the log of partition ${request.partitionId} now ends at LSN ${scan.lastLsn} ` +
      `(generation ${scan.lastGeneration}, ${scan.tailOffsetBytes} bytes)`);
    return 0;
  } catch (error) {
    output.err(`xlog-truncate: the log is still not readable: ${
      error instanceof Error ? error.message : String(error)}`);
    return isStorageError(error, 'CORRUPTION') ? 3 : 1;
  }
}

/** Saves the bytes from the offset on, moves later generations aside, then cuts durably. */
async function cut(
  fileSystem: FileSystem,
  request: TruncateRequest,
  file: { path: string; sizeBytes: number },
  output: ToolOutput,
): Promise<void> {
  const save = fileSystem.open(request.savePath, 'create');
  const source = fileSystem.open(file.path, 'readWrite');
  try {
    const chunk = new Uint8Array(COPY_CHUNK_BYTES);
    for (let at = request.offsetBytes; at < file.sizeBytes; at += COPY_CHUNK_BYTES) {
      const readBytes = source.read(chunk.subarray(0, Math.min(COPY_CHUNK_BYTES,
        file.sizeBytes - at)), at);
      save.write(chunk.subarray(0, readBytes), at - request.offsetBytes);
    }
    await save.datasync();
    output.out(`saved ${file.sizeBytes - request.offsetBytes} bytes of ${file.path} from offset ` +
      `${request.offsetBytes} to ${request.savePath}`);
    const directory = xlogPartitionDirectory(request.root, request.partitionId);
    const later = listXlogGenerations(fileSystem, request.root, request.partitionId)
      .filter((g) => g > request.generation);
    for (const g of later) {
      const movedPath = `${request.savePath}.${xlogFileName(request.partitionId, g)}`;
      fileSystem.rename(xlogFilePath(request.root, request.partitionId, g), movedPath);
      output.out(`moved the later file ${xlogFileName(request.partitionId, g)} to ${movedPath}`);
    }
    source.truncate(request.offsetBytes);
    await source.datasync();
    await fileSystem.syncDirectory(directory);
    output.out(`cut ${file.path} at offset ${request.offsetBytes}`);
  } finally {
    source.close();
    save.close();
  }
}

function fileSizeBytes(fileSystem: FileSystem, path: string): number {
  const handle = fileSystem.open(path, 'read');
  try {
    return handle.sizeBytes();
  } finally {
    handle.close();
  }
}

function parseRequest(argv: string[], output: ToolOutput): TruncateRequest | undefined {
  let fileGeneration: number | undefined;
  let offsetBytes: number | undefined;
  const parsed = parseXlogToolArgs({ name: 'xlog-truncate', usage: USAGE, output }, argv, {
    generation: { type: 'string' }, offset: { type: 'string' }, save: { type: 'string' },
  }, (values, problems) => {
    fileGeneration = parseWholeNumber(values['generation'] as string | undefined);
    if (fileGeneration === undefined || fileGeneration < 1 || fileGeneration > 0xffff_ffff) {
      problems.push('--generation must be an integer from 1 (the <g> of <pId>_<g>.xlog)');
    }
    offsetBytes = parseWholeNumber(values['offset'] as string | undefined);
    if (offsetBytes === undefined) problems.push('--offset must be a byte offset (0 or more)');
    const save = values['save'] as string | undefined;
    if (save === undefined || save === '') problems.push('--save must name a file');
  });
  if (parsed === undefined) return undefined;
  assert(fileGeneration !== undefined && offsetBytes !== undefined);
  return {
    home: parsed.target.home,
    root: parsed.target.root,
    partitionId: parsed.target.partitionId,
    generation: generation(fileGeneration),
    offsetBytes,
    savePath: parsed.values['save'] as string,
  };
}

// Run as a script, or as the `xlog-truncate` command (tools/bin/launch.mjs imports this file).
if (basename(process.argv[1] ?? '').replace(/\.(m?js|ts)$/, '') === 'xlog-truncate') {
  process.exitCode = await main(process.argv.slice(2));
}
