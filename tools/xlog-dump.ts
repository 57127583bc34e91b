// xlog-dump: prints a partition's xlog records, one line each, and a summary. Read-only: it never
// truncates a torn tail, so it is safe to run on the log of a node that is down. Records of the
// commit journal that continue the xlog (logWriteMode 0 commits whose xlog tail was not yet
// synced when the node stopped; recovery appends them) follow, marked `source=journal`.
//
//   node --import tsx tools/xlog-dump.ts --txnlog <dir> --partition <pId>
//        [--from-lsn N] [--limit N] [--json] [--hex]
//   node --import tsx tools/xlog-dump.ts --home <GS_HOME> --partition <pId> ...   (<home>/txnlog)
//
// Exit codes: 0 read to the end (a torn tail is reported, not an error), 1 I/O error, 2 bad usage
// (options, missing directory, no such partition), 3 corruption (after printing what was readable).

import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isStorageError } from '../lib/base/errors.ts';
import { assert } from '../lib/base/assert.ts';
import type { Lsn, PartitionId } from '../lib/base/ids.ts';
import { describeXlogPayload } from '../lib/engine/xlog-payload.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { journalFilePath } from '../wal/journal-files.ts';
import { continuingRecords, readGroupJournals } from '../wal/journal-recovery.ts';
import { xlogPartitionDirectory } from '../wal/xlog-files.ts';
import { xlogRecordTypeName } from '../wal/xlog-format.ts';
import { scanXlog, type XlogRecordView, type XlogScanResult } from '../wal/xlog-reader.ts';
import {
  consoleOutput, parseWholeNumber, parseXlogToolArgs, type ToolOutput,
} from './data-tool-args.ts';
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageLine, type CommandHelp,
} from './command-help.ts';

/** Payload bytes shown by --hex. */
const HEX_PREVIEW_BYTES_MAX = 32;

const HELP: CommandHelp = {
  name: 'xlog-dump',
  usage: ['(--txnlog <dir> | --home <GS_HOME>) --partition' +
    ' <pId> [--from-lsn N] [--limit N] [--json] [--hex]'],
  summary: 'Prints a partition\'s xlog records, one line each, and a summary. Read-only.',
  options: [
    ['--txnlog <dir>', 'the transaction log directory'],
    ['--home <GS_HOME>', 'the node\'s home: its txnlog directory'],
    ['--partition <pId>', 'the partition (required)'],
    ['--from-lsn N', 'print records from this LSN on (default 0)'],
    ['--limit N', 'print this many records at most (default: all)'],
    ['--json', 'one JSON object a line (default: text)'],
    ['--hex', 'add the first 32 payload bytes in hex (default off)'],
  ],
  exitCodes: [
    [0, 'read to the end (a torn tail is reported, not an error)'], [1, 'I/O error'],
    [EXIT_USAGE, 'bad usage, a missing directory or no such partition'],
    [3, 'corruption (after printing what was readable)'],
  ],
  example: 'xlog-dump --home /tmp/store-home --partition 0 --limit 10',
};
const USAGE = usageLine(HELP);

interface DumpRequest {
  root: string;
  partitionId: PartitionId;
  fromLsn: bigint;
  /** Records to print at most; the scan still reads to the end for the summary. */
  limit: number;
  json: boolean;
  hex: boolean;
}

/** Runs the tool on `argv` (without node and the script); returns the exit code. */
export function main(argv: string[], output: ToolOutput = consoleOutput): number {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    output.out(answer);
    return EXIT_HELP;
  }
  const request = parseRequest(argv, output);
  if (request === undefined) return 2;
  const fileSystem = new NodeFileSystem();
  if (!fileSystem.exists(request.root)) {
    output.err(`xlog-dump: transaction log directory ${request.root} does not exist`);
    return 2;
  }
  if (!fileSystem.exists(xlogPartitionDirectory(request.root, request.partitionId))) {
    output.err(`xlog-dump: partition ${request.partitionId} has no xlog directory in ` +
      request.root);
    return 2;
  }
  let printedCount = 0;
  try {
    const scan = scanXlog(fileSystem, {
      root: request.root,
      partitionId: request.partitionId,
      onRecord: (record) => {
        if (record.lsn < request.fromLsn || printedCount >= request.limit) return;
        output.out(formatRecord(record, request));
        printedCount += 1;
      },
    });
    const journaled = journalContinuation(fileSystem, request.root, request.partitionId,
      scan.lastLsn);
    for (const record of journaled) {
      if (record.lsn < request.fromLsn || printedCount >= request.limit) continue;
      output.out(formatRecord(record, request));
      printedCount += 1;
    }
    output.out(formatSummary(scan, printedCount, journaled.length, request.json));
    return 0;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    output.err(`xlog-dump: ${error.code}: ${error.message}`);
    return error.code === 'CORRUPTION' || error.code === 'NOT_SUPPORTED' ? 3 : 1;
  }
}

function parseRequest(argv: string[], output: ToolOutput): DumpRequest | undefined {
  let fromLsn: bigint | undefined;
  let limit: number | undefined;
  const parsed = parseXlogToolArgs({ name: 'xlog-dump', usage: USAGE, output }, argv, {
    'from-lsn': { type: 'string' }, limit: { type: 'string' },
    json: { type: 'boolean' }, hex: { type: 'boolean' },
  }, (values, problems) => {
    const fromLsnText = (values['from-lsn'] as string | undefined) ?? '0';
    fromLsn = /^\d{1,20}$/.test(fromLsnText) ? BigInt(fromLsnText) : undefined;
    if (fromLsn === undefined) problems.push('--from-lsn must be a non-negative integer');
    const limitText = values['limit'] as string | undefined;
    limit = limitText === undefined ? Number.MAX_SAFE_INTEGER : parseWholeNumber(limitText);
    if (limit === undefined || limit < 1) problems.push('--limit must be a positive integer');
  });
  if (parsed === undefined) return undefined;
  assert(fromLsn !== undefined && limit !== undefined);
  return {
    root: parsed.target.root,
    partitionId: parsed.target.partitionId,
    fromLsn,
    limit,
    json: parsed.values['json'] === true,
    hex: parsed.values['hex'] === true,
  };
}

/** A record as printed: from an xlog file, or from a journal file (`journal` names it). */
type DumpedRecord = Pick<XlogRecordView, 'lsn' | 'type' | 'payload'> &
  ({ generation: number; offsetBytes: number } | { journal: string });

/** The journal's records of the partition that continue its xlog after `lastLsn`, without a gap. */
function journalContinuation(
  fileSystem: NodeFileSystem,
  root: string,
  partitionId: PartitionId,
  lastLsn: bigint,
): DumpedRecord[] {
  const journals = readGroupJournals(fileSystem, root,
    { startPartitionId: partitionId, partitionCount: 1 });
  const names = journals.files.map((file) => basename(journalFilePath(root, file))).join(',');
  return continuingRecords(journals.records.get(partitionId) ?? [], lastLsn as Lsn)
    .map((record) => ({ ...record, journal: names }));
}

function formatRecord(record: DumpedRecord, request: DumpRequest): string {
  const typeName = xlogRecordTypeName(record.type);
  const hex = request.hex ? hexPreview(record.payload) : undefined;
  const detail = describePayload(record);
  const where = 'journal' in record
    ? { source: 'journal', journal: record.journal }
    : { generation: record.generation, offsetBytes: record.offsetBytes };
  if (request.json) {
    return JSON.stringify({
      ...where, lsn: String(record.lsn),
      type: typeName, payloadBytes: record.payload.length, detail,
      ...(hex === undefined ? {} : { payloadHex: hex }),
    });
  }
  const place = 'journal' in record ? `source=journal journal=${record.journal}`
    : `generation=${record.generation} offset=${record.offsetBytes}`;
  const line = `${place} lsn=${record.lsn} ` +
    `type=${typeName} payloadBytes=${record.payload.length}${detail === '' ? '' : ` ${detail}`}`;
  return hex === undefined ? line : `${line} hex=${hex}`;
}

/** What the engine's payload says (container, row counts, schema); never fails the dump. */
function describePayload(record: DumpedRecord): string {
  try {
    return describeXlogPayload(record.type, record.payload);
  } catch (error) {
    return `undecodable payload (${error instanceof Error ? error.message : String(error)})`;
  }
}

function hexPreview(payload: Uint8Array): string {
  const shown = Buffer.from(payload.buffer, payload.byteOffset,
    Math.min(payload.length, HEX_PREVIEW_BYTES_MAX)).toString('hex');
  return payload.length > HEX_PREVIEW_BYTES_MAX ? `${shown}...` : shown;
}

function formatSummary(
  scan: XlogScanResult,
  printedCount: number,
  journalRecordCount: number,
  json: boolean,
): string {
  const summary = {
    records: scan.recordCount, printed: printedCount, baseLsn: String(scan.baseLsn),
    lastLsn: String(scan.lastLsn), lastGeneration: scan.lastGeneration,
    tailOffsetBytes: scan.tailOffsetBytes, tornBytes: scan.tornBytes,
    journalRecords: journalRecordCount,
  };
  if (json) return JSON.stringify({ summary });
  return `summary: ${Object.entries(summary).map(([key, value]) => `${key}=${value}`).join(' ')}`;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = main(process.argv.slice(2));
}
