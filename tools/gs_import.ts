// gs_import -u USER/PASS (--all | --db DB | -c NAME… | --containerregex REGEX…) [-d DIR]
// [--append | --replace] [--force] [--schemaCheckSkip] [--acl] [--prefixdb DB] [--progress ROWS];
// gs_import -l [-d DIR]: containers from a gs_export directory (spec/surface.md §7.5–7.6) back into
// the node.
//
// Each container is all or nothing as far as a file can make it so: its row file is read through
// once and every line checked (cells, types, the engine's row validation, external files) before
// anything is created, dropped or written; a bad file names its line and column and leaves the
// container as it was. The second read writes the rows in batches of COMMIT_ROW_COUNT rows or
// BATCH_BYTES_MAX bytes (expimp-batch-writer.ts), each an auto-commit statement, so memory is a few
// batches whatever the size; the next container's first read runs meanwhile (it only reads, so
// the node writes while this parses), and up to CONTAINER_WRITES_IN_FLIGHT_MAX containers are
// written at once, reported in order. A file of fixed-size columns is scanned whole into encoded
// batches instead (expimp-row-scan.ts), which are sent as they are. A row file of KEPT_FILE_BYTES_MAX or less, with
// KEPT_CELLS_MAX cells or fewer, is read once: the first read keeps its checked rows and the second
// writes those (parsing 8.6 M numbers again was a third of the TSBS day's import). An
// interrupt (SIGINT/SIGTERM) stops after the batch in flight and prints exactly which rows were
// written; running again with --append finishes the job for keyed containers (rows are upserted).

import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClientStore } from '../lib/client/store-factory.ts';
import { limitsOf } from '../lib/client/client-schema.ts';
import type { ContainerDefinition, ContainerSchema } from '../lib/schema/container-schema.ts';
import type { Row } from '../lib/schema/column-type.ts';
import { rowValidator } from '../lib/schema/row-validate.ts';
import { schemasEqual, validateContainerDefinition } from '../lib/schema/schema-validate.ts';
import { containerSchemaOf } from '../lib/protocol/wire-schema.ts';
import type { CommandHelp } from './command-help.ts';
import {
  CONNECTION_OPTIONS, SELECTION_OPTIONS, CommandLog, DatabaseStores, connectStore, maskedArgs, Progress,
  type ConnectionValues,
} from './expimp-common.ts';
import { aclOptionsCheck, homeAccessCatalog, importAcl, readAclFile } from './expimp-acl.ts';
import { importView, readViewFile } from './expimp-views.ts';
import { importCsv } from './expimp-csv-mode.ts';
import {
  definitionOfMetadata, EXPORT_EXECUTION_FILE, type ExportEntry,
} from './expimp-metadata.ts';
import { readRowFile, type RowAt } from './expimp-row-reader.ts';
import { BATCH_BYTES_MAX, BatchWriter, COMMIT_ROW_COUNT } from './expimp-batch-writer.ts';
import { rowScanTakes, scanRowFile, type ScannedFile } from './expimp-row-scan.ts';
import {
  CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCommandArgs, parseCredentials, requireEnvironment, runCommand,
} from './operating-command.ts';

const NAME = 'gs_import';

const HELP: CommandHelp = {
  name: NAME,
  usage: [
    '-u USER/PASS (--all | --db DB | -c NAME... | --containerregex REGEX...) [-d DIR] ' +
      '[--append | --replace] [--force] [--schemaCheckSkip] [--acl] [--prefixdb DB] [--progress ROWS] [-s HOST:PORT]',
    '-l [-d DIR]',
    '-u USER/PASS -c NAME --csv FILE [-s HOST:PORT]',
  ],
  summary: 'Imports containers from a gs_export directory. A container that exists needs --append ' +
    '(rows upserted\nby key) or --replace (dropped and created again). A bad row file names its ' +
    'line and column\nand writes nothing for that container.',
  options: [
    ['-u, --user USER/PASS', 'the user and password (required)'],
    ['-s, --server HOST:PORT', 'the node\'s transaction service (default 127.0.0.1:10001)'],
    ['--cluster NAME', 'the cluster name (default: GS_HOME/conf/gs_cluster.json, else myCluster)'],
    ['--all', 'every container of the export'],
    ['--db DB', 'every container of the databases given'],
    ['-c, --container NAME', 'this container (repeatable)'],
    ['--containerregex REGEX', 'containers whose whole name matches (repeatable)'],
    ['-d, --directory DIR', 'the export directory (default: the current directory)'],
    ['--append', 'add to an existing container (same schema unless --schemaCheckSkip)'],
    ['--replace', 'drop an existing container and create it again'],
    ['--schemaCheckSkip', 'with --append: do not compare the schemas'],
    ['--force', 'go on with the next container after an error'],
    ['--acl', 'with --all or --db: also gs_export_acl.json (checked first; missing general users are made from their SHA-256)'],
    ['--prefixdb DB', 'with -c or --containerregex: the database of the containers (default public)'],
    ['--progress ROWS', 'a progress line every ROWS rows when not on a terminal (default 100000)'],
    ['-l, --list', 'list the containers of the export and exit'],
    ['--csv FILE', 'with -c NAME: plain CSV with a header row of column names into that container'],
    ['--silent', 'no progress output'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_import -u admin/admin -s 127.0.0.1:10001 --all -d /tmp/export --replace',
};

/** The second read: the rows were checked by the first, and the client checks them as it sends. */
const ROW_CHECKED = (row: unknown) => row as Row;
/**
 * The largest row file whose checked rows the first read keeps for the second, and the most cells
 * kept: at most CONTAINER_WRITES_IN_FLIGHT_MAX + 1 containers' rows are held (those being written,
 * the next checked), some tens of MB (a scanned file's encoded rows take a tenth of its arrays).
 */
const KEPT_FILE_BYTES_MAX = 8 << 20;
const KEPT_CELLS_MAX = 1_000_000;
const MODE_LABELS = { create: '', append: ' (Append Mode)', replace: ' (Replace Mode)' } as const;
/**
 * Containers written at once: each container's writes are a few statements made durable one after
 * another (drop, create, its batches), and the node syncs the statements of several together
 * (wal/group-commit.ts). One at a time, the TSBS day's 100 containers spent most of the import's
 * wall time waiting for those syncs.
 */
const CONTAINER_WRITES_IN_FLIGHT_MAX = 4;

/** Set by SIGINT/SIGTERM: the write loop stops after the batch in flight. */
let interrupted = false;

/**
 * The one interrupt handler of both import paths (a directory and --csv): SIGINT or SIGTERM sets
 * `interrupted`, the write loop stops after the batches in flight and prints what was written.
 * Each signal is caught once, so a second one ends the command at once. Returns the uninstaller.
 */
function catchInterrupts(): () => void {
  const stop = () => {
    interrupted = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const values = parseCommandArgs(args, {
    ...CONNECTION_OPTIONS,
    ...SELECTION_OPTIONS,
    append: { type: 'boolean' },
    replace: { type: 'boolean' },
    force: { type: 'boolean' },
    schemaCheckSkip: { type: 'boolean' },
    progress: { type: 'string' },
    list: { type: 'boolean', short: 'l' },
    acl: { type: 'boolean' },
    prefixdb: { type: 'string' },
  });
  if (values.csv !== undefined) return mainCsv(values.csv, values, args);
  aclOptionsCheck(values);
  // --prefixdb names a database that must exist here (D00E0D), whatever the export holds.
  if (values.prefixdb !== undefined && values.list !== true) {
    const { store } = await connectStore(values, requireEnvironment(process.env), values.prefixdb);
    await store.close();
  }
  const directory = resolve(values.directory ?? '.');
  const entries = readExecution(directory);
  if (values.list === true) {
    console.log('DB\tName\tType\tFileName');
    for (const entry of entries) {
      const { definition, containerFile } = readMetadata(directory, entry);
      console.log(`${entry.database}\t${entry.name}\t${definition.type}\t${containerFile}`);
    }
    return EXIT_OK;
  }
  const environment = requireEnvironment(process.env);
  if (values.append === true && values.replace === true) {
    throw new CommandError('--append and --replace exclude each other.', EXIT_ARGUMENTS);
  }
  const progressRows = progressRowsOf(values.progress);
  const chosen = selectEntries(entries, values);
  // The ACL file is checked before anything is written: what it names must be possible here.
  const aclUser = parseCredentials(values.user).user;
  const acl = values.acl === true
    ? readAclFile(directory, homeAccessCatalog(environment.home, aclUser), aclUser) : undefined;
  // Views with --all or --db, as GridDB's: read (and checked) now, made after the containers.
  const views = values.all === true ? readViewFile(directory, () => true)
    : values.db !== undefined ? readViewFile(directory, (db) => values.db!.includes(db)) : [];
  const mode = values.replace === true ? 'replace' : values.append === true ? 'append' : 'create';
  const log = new CommandLog(environment, NAME);
  log.info('main', `start: ${maskedArgs(args)}`);
  const { store } = await connectStore(values, environment);
  // Each container goes into the database it was exported from (the ACL's databases first).
  const stores = new DatabaseStores(values, environment);
  const release = catchInterrupts();
  try {
    if (acl !== undefined) await importAcl(store, acl);
    const silent = values.silent === true;
    if (!silent) console.log(`Import initiated${MODE_LABELS[mode]}`);
    let successCount = 0;
    let failureCount = 0;
    // The next container's file is checked while this one's rows are written (the check only
    // reads): the node writes while the command parses. `abandon` stops a check no longer wanted.
    const abandon = { stop: false };
    const checkOf = (entry: ExportEntry) => {
      const checking = stores.of(entry.database)
        .then((databaseStore) => checkContainer(databaseStore, directory, entry, abandon));
      checking.catch(() => undefined);
      return checking;
    };
    // Up to CONTAINER_WRITES_IN_FLIGHT_MAX containers written at once (one with a progress bar on
    // a terminal: a bar shows one container), each reported in order when done.
    const writesMax = !silent && process.stderr.isTTY ? 1 : CONTAINER_WRITES_IN_FLIGHT_MAX;
    const writing: Array<{ label: string; written: Promise<number> }> = [];
    let stopped = false;
    const reported = (label: string, error: unknown) => {
      failureCount++;
      const message = (error as Error).message;
      log.error('importContainer', `${label}: ${message}`);
      console.error(`D00F01: Import of ${label} failed: ${message}`);
      if (values.force !== true || interrupted) stopped = true;
    };
    const reportFirst = async () => {
      const { label, written } = writing.shift()!;
      try {
        const rowCount = await written;
        successCount++;
        log.info('importContainer', `${label}: ${rowCount} rows`);
        if (!silent) console.log(`${label} : ${rowCount}`);
      } catch (error) {
        reported(label, error);
      }
    };
    let next = chosen.length === 0 ? undefined : checkOf(chosen[0]!);
    for (let i = 0; i < chosen.length && !stopped; i++) {
      const entry = chosen[i]!;
      const label = `${entry.database}.${entry.name}`;
      const checking = next!;
      next = undefined;
      let checked: CheckedContainer;
      try {
        checked = await checking;
      } catch (error) {
        // The containers before it are reported first: the lines stay in the export's order.
        while (writing.length > 0) await reportFirst();
        reported(label, error);
        if (!stopped) next = i + 1 < chosen.length ? checkOf(chosen[i + 1]!) : undefined;
        continue;
      }
      next = i + 1 < chosen.length ? checkOf(chosen[i + 1]!) : undefined;
      const progress = Progress.forConsole(silent, progressRows);
      const written = stores.of(entry.database)
        .then((databaseStore) => writeContainer(databaseStore, checked, { entry, mode, progress, values }))
        .finally(() => progress.stop());
      written.catch(() => undefined);
      writing.push({ label, written });
      while (writing.length >= writesMax || (writing.length > 0 && interrupted)) await reportFirst();
    }
    while (writing.length > 0) await reportFirst();
    abandon.stop = true;
    await next?.catch(() => undefined);
    for (const view of failureCount > 0 && values.force !== true ? [] : views) {
      const label = `${view.database}.${view.name}`;
      try {
        const done = await importView(await stores.of(view.database), view,
          { replace: mode === 'replace', force: values.force === true });
        log.info('importView', `${label}: ${done}`);
        if (!silent && done === 'skipped') console.log(`D0024F: The view ${label} already exists: skipped`);
      } catch (error) {
        failureCount++;
        log.error('importView', `${label}: ${(error as Error).message}`);
        console.error(`D00251: Import of the view ${label} failed: ${(error as Error).message}`);
        if (values.force !== true) break;
      }
    }
    const summary = `Success:${successCount} Failure:${failureCount}`;
    log.info('main', summary);
    if (!silent) console.log(`Import completed\n${summary}`);
    return failureCount === 0 ? EXIT_OK : EXIT_ERROR;
  } finally {
    release();
    await stores.closeAll();
    await store.close();
  }
}

/** `--csv FILE -c NAME`: plain CSV with a header row into an existing container. */
async function mainCsv(path: string, values: ConnectionValues & {
  container?: string[] | undefined; silent?: boolean | undefined; progress?: string | undefined;
}, args: string[]): Promise<number> {
  if (values.container?.length !== 1) {
    throw new CommandError('--csv FILE imports into one container: give -c NAME once.', EXIT_ARGUMENTS);
  }
  const environment = requireEnvironment(process.env);
  const log = new CommandLog(environment, NAME);
  log.info('main', `start: ${maskedArgs(args)}`);
  const { store } = await connectStore(values, environment);
  const release = catchInterrupts();
  try {
    const name = values.container[0]!;
    const progress = Progress.forConsole(values.silent === true, progressRowsOf(values.progress));
    let rowCount: number;
    try {
      rowCount = await importCsv(store, { name, path: resolve(path), progress, interrupted: () => interrupted });
    } catch (error) {
      progress.stop();
      log.error('importCsv', `public.${name}: ${(error as Error).message}`);
      console.error(`D00F01: Import of public.${name} failed: ${(error as Error).message}`);
      return EXIT_ERROR;
    }
    log.info('importCsv', `public.${name}: ${rowCount} rows from ${path}`);
    if (values.silent !== true) console.log(`public.${name} : ${rowCount}\nImport completed\nSuccess:1 Failure:0`);
    return EXIT_OK;
  } finally {
    release();
    await store.close();
  }
}

function progressRowsOf(text: string | undefined): number | undefined {
  const rows = text === undefined ? undefined : Number(text);
  if (rows !== undefined && !(Number.isSafeInteger(rows) && rows > 0)) {
    throw new CommandError('--progress takes a number of rows, at least 1.', EXIT_ARGUMENTS);
  }
  return rows;
}

interface ImportJob {
  entry: ExportEntry;
  mode: 'create' | 'append' | 'replace';
  progress: Progress;
  values: { schemaCheckSkip?: boolean | undefined };
}

interface CheckedContainer {
  definition: ContainerDefinition;
  schema: ContainerSchema;
  containerFile: string;
  rowPath: string;
  rowCount: number;
  /** The checked rows, when the file is small enough to keep them (KEPT_FILE_BYTES_MAX). */
  rows: RowAt[] | undefined;
  /** Instead of rows: the file's rows as encoded batches, when the scanner took it. */
  scanned: ScannedFile | undefined;
}

/** The first read: the metadata and every line of the row file checked; nothing written. */
async function checkContainer(
  store: ClientStore, directory: string, entry: ExportEntry, abandon: { stop: boolean },
): Promise<CheckedContainer> {
  const { definition, containerFile } = readMetadata(directory, entry);
  const limits = limitsOf(store.pool.node!.storeBlockSizeBytes);
  let schema: ContainerSchema;
  try {
    schema = validateContainerDefinition(definition, limits);
  } catch (error) {
    throw new Error(`${entry.metafile}: ${(error as Error).message}`, { cause: error });
  }
  const rowPath = join(directory, containerFile);
  const validateRow = rowValidator(schema, limits);
  const kept = keptSizeOf(rowPath) <= KEPT_FILE_BYTES_MAX;
  // Fixed-size columns (the TSBS shape): the whole file scanned to batches of encoded rows, kept
  // for the write; a file the scanner does not take is read line by line below (its problems named).
  if (kept && rowScanTakes(schema)) {
    const scanned = scanWholeFile(rowPath, schema, validateRow);
    if (scanned !== undefined) {
      return { definition, schema, containerFile, rowPath, rowCount: scanned.rowCount, rows: undefined, scanned };
    }
  }
  let rowCount = 0;
  let rows = kept ? [] as RowAt[] : undefined;
  const keptRowCountMax = Math.floor(KEPT_CELLS_MAX / schema.columns.length);
  for await (const rowAt of readRowFile(rowPath, schema.columns, validateRow)) {
    if (abandon.stop) throw new Error('abandoned');
    rowCount++;
    if (rows !== undefined) {
      if (rows.length < keptRowCountMax) rows.push(rowAt);
      else rows = undefined; // too many cells to keep: the second read parses the file again
    }
  }
  return { definition, schema, containerFile, rowPath, rowCount, rows, scanned: undefined };
}

/**
 * Where row files are read for the scan, grown to the largest (KEPT_FILE_BYTES_MAX at most): the
 * scan keeps nothing of it, and runs to its end before the next read. A new Buffer per file was
 * 192 MB of short-lived memory outside the heap for the TSBS day.
 */
let scanBuffer = Buffer.alloc(0);

/** The row file scanned whole (expimp-row-scan.ts); undefined when it cannot be read or is not taken. */
function scanWholeFile(
  rowPath: string, schema: ContainerSchema, validateRow: (row: unknown) => Row,
): ScannedFile | undefined {
  let sizeBytes = 0;
  let fd: number | undefined;
  try {
    fd = openSync(rowPath, 'r');
    const fileBytes = fstatSync(fd).size;
    if (fileBytes > KEPT_FILE_BYTES_MAX) return undefined;
    if (scanBuffer.length < fileBytes) scanBuffer = Buffer.allocUnsafe(fileBytes);
    for (let read = -1; read !== 0 && sizeBytes < fileBytes; sizeBytes += read) {
      read = readSync(fd, scanBuffer, sizeBytes, fileBytes - sizeBytes, sizeBytes);
    }
  } catch {
    return undefined; // readRowFile reports the file
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return scanRowFile(scanBuffer.subarray(0, sizeBytes), schema, validateRow, COMMIT_ROW_COUNT,
    BATCH_BYTES_MAX);
}

/** The row file's size, for the choice to keep its rows; past the bound when it cannot be known. */
function keptSizeOf(rowPath: string): number {
  try {
    return statSync(rowPath).size;
  } catch {
    return Infinity; // readRowFile reports the file
  }
}

/**
 * The second read (or the rows the first kept): the container prepared per mode, then the rows
 * written. Returns the row count.
 */
async function writeContainer(store: ClientStore, checked: CheckedContainer, job: ImportJob): Promise<number> {
  const { definition, schema, containerFile, rowPath, rowCount } = checked;
  await prepareContainer(store, {
    definition, schema, mode: job.mode, schemaCheckSkip: job.values.schemaCheckSkip === true,
  });
  const container = await store.putContainer(definition);
  // A batch at a time, up to WRITES_IN_FLIGHT_MAX batches sent and not yet acknowledged (the next
  // batch is parsed while the node writes the last). The client validates each row again as it
  // encodes it.
  const label = `${job.entry.database}.${definition.name}`;
  job.progress.start(label, rowCount);
  const writes = new BatchWriter((rows) => container.multiPut(rows));
  try {
    // Batches encoded by the scanner go as they are when the container has the schema they were
    // encoded with (not so after --append --schemaCheckSkip onto another schema: read again then).
    const scanned = checked.scanned !== undefined && schemasEqual(containerSchemaOf(container.info), schema)
      ? checked.scanned : undefined;
    if (scanned !== undefined) {
      for (const batch of scanned.batches) {
        await writes.flushMade(batch.count, () => container.multiPutEncoded(schema, batch.count, batch.bytes));
        job.progress.update(label, writes.acknowledgedCount);
        if (interrupted) {
          await writes.settle();
          job.progress.stop();
          throw new Error(`interrupted: ${writes.acknowledgedCount} of ${rowCount} rows written ` +
            `(${containerFile} up to line ${batch.lastLineNumber}); run again with --append to finish`);
        }
      }
      await writes.settle();
      return writes.acknowledgedCount;
    }
    const rows = checked.rows ?? readRowFile(rowPath, schema.columns, ROW_CHECKED);
    for await (const { lineNumber, row } of rows) {
      if (!writes.add(row)) continue;
      await writes.flush();
      job.progress.update(label, writes.acknowledgedCount);
      if (interrupted) {
        await writes.settle();
        job.progress.stop();
        throw new Error(`interrupted: ${writes.acknowledgedCount} of ${rowCount} rows written ` +
          `(${containerFile} up to line ${lineNumber}); run again with --append to finish`);
      }
    }
    await writes.flush();
    await writes.settle();
  } finally {
    job.progress.stop();
  }
  return writes.acknowledgedCount;
}

/** Per mode: refuses an existing container, checks its schema, or drops it. */
async function prepareContainer(store: ClientStore, job: {
  definition: ContainerDefinition; schema: ContainerSchema; mode: ImportJob['mode']; schemaCheckSkip: boolean;
}): Promise<void> {
  const info = await store.getContainerInfo(job.definition.name);
  if (info === undefined) return;
  if (job.mode === 'create') {
    throw new Error(`D00F02: container "${info.name}" exists; give --append or --replace`);
  }
  if (job.mode === 'replace') {
    await store.dropContainer(info.name);
    return;
  }
  if (!job.schemaCheckSkip && !schemasEqual(containerSchemaOf(info), job.schema)) {
    throw new Error(`D00F03: container "${info.name}" has another schema than the export ` +
      '(--schemaCheckSkip to append anyway)');
  }
}

function readExecution(directory: string): ExportEntry[] {
  const path = join(directory, EXPORT_EXECUTION_FILE);
  let json: { container?: unknown };
  try {
    json = JSON.parse(readFileSync(path, 'utf8')) as { container?: unknown };
  } catch (error) {
    throw new CommandError(`D00F04: ${path} cannot be read: ${(error as Error).message}`);
  }
  if (!Array.isArray(json.container)) throw new CommandError(`D00F04: ${path}: "container" must be an array`);
  return json.container.map((entry: unknown, i: number) => {
    const object = (entry ?? {}) as Partial<ExportEntry>;
    if (typeof object.name !== 'string' || typeof object.metafile !== 'string') {
      throw new CommandError(`D00F04: ${path}: container[${i}] needs "name" and "metafile"`);
    }
    return { database: object.database ?? 'public', name: object.name, metafile: object.metafile };
  });
}

function readMetadata(directory: string, entry: ExportEntry): ReturnType<typeof definitionOfMetadata> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(join(directory, entry.metafile), 'utf8'));
  } catch (error) {
    throw new Error(`${entry.metafile}: ${(error as Error).message}`);
  }
  return definitionOfMetadata(json, entry.metafile);
}

function selectEntries(entries: ExportEntry[], values: {
  all?: boolean | undefined; db?: string[] | undefined; prefixdb?: string | undefined;
  container?: string[] | undefined; containerregex?: string[] | undefined;
}): ExportEntry[] {
  const chosen = [values.all, values.db, values.container, values.containerregex]
    .filter((value) => value !== undefined).length;
  if (chosen !== 1) {
    throw new CommandError('Specify one of --all, --db, -c or --containerregex.', EXIT_ARGUMENTS);
  }
  if (values.all === true) return entries;
  if (values.db !== undefined) return entries.filter((entry) => values.db!.includes(entry.database));
  // --prefixdb: the containers of that database only.
  const ofDatabase = values.prefixdb === undefined
    ? entries : entries.filter((entry) => entry.database === values.prefixdb);
  if (values.container !== undefined) {
    return values.container.map((name) => {
      const found = ofDatabase.find((entry) => entry.name.toLowerCase() === name.toLowerCase());
      if (found === undefined) throw new CommandError(`D00F05: the export has no container "${name}".`);
      return found;
    });
  }
  const patterns = values.containerregex!.map((text) => new RegExp(`^(?:${text})$`));
  return ofDatabase.filter((entry) => patterns.some((pattern) => pattern.test(entry.name)));
}

runCommand(HELP, main);
