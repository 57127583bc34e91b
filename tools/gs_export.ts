// gs_export -u USER/PASS (--all | --db DB | -c NAME… | --containerregex REGEX…) [-d DIR]
// [--filterfile FILE] [--schemaOnly] [--acl] [--prefixdb DB] [-s HOST:PORT] [--cluster NAME] [--silent]:
// containers to a directory in GridDB's export format (spec/surface.md §7.5–7.6, tools/expimp-*.ts):
// gs_export.json, one `<stem>_properties.json` and one `<stem>.csv` per container, BLOBs as files,
// and with --acl gs_export_acl.json (expimp-acl.ts). Rows are read a page at a time (the next one
// fetched meanwhile), so memory does not grow with the data. A page of columns the page printer
// knows (expimp-page-printer.ts: numbers, BOOL, STRING, TIMESTAMP(3)) goes as the bytes the node
// sent to the print thread (expimp-print-thread.ts), which prints and writes it while this thread
// fetches the next; other pages are decoded to rows and printed here a row at a time. A container
// whose export fails leaves neither its row file nor its metadata file, and is not in gs_export.json.

import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClientStore, RowSet } from '../lib/client/store-factory.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { CommandHelp } from './command-help.ts';
import {
  CONNECTION_OPTIONS, SELECTION_OPTIONS, CommandLog, DatabaseStores, connectStore, maskedArgs, Progress,
  type ConnectionValues,
} from './expimp-common.ts';
import { aclOptionsCheck, homeAccessCatalog, writeAclFile } from './expimp-acl.ts';
import { viewsOf, writeViewFile } from './expimp-views.ts';
import { exportCsv } from './expimp-csv-mode.ts';
import {
  DATABASE_PUBLIC, EXPORT_EXECUTION_FILE, EXPORT_FORMAT_VERSION, fileStemOf, metadataOf,
  type ExportEntry, type ExportExecution,
} from './expimp-metadata.ts';
import { rowFileHeader } from './expimp-row-file.ts';
import { pagePrintable } from './expimp-page-printer.ts';
import { PrintThread, type PrintedFile } from './expimp-print-thread.ts';
import { rowPrinterOf } from './expimp-row-printer.ts';
import {
  CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCommandArgs, requireEnvironment, runCommand,
} from './operating-command.ts';

const NAME = 'gs_export';
/**
 * Rows per page fetched from the node for rows decoded here (one page is formatted while the next
 * is fetched). Small pages die young: a page of 20,000 rows outlives the young generation and
 * costs a third more CPU.
 */
const FETCH_ROWS_PER_PAGE = 2_000;
/**
 * Rows per page for pages handed to the print threads as received (no rows made of them): a TSBS
 * container (8,640 rows, 0.8 MB) in the query's reply, without FETCH round trips; 0.9 MB a page
 * at most for the day's rows, at most PAGES_IN_FLIGHT_MAX + 2 a container exported at once.
 */
const FETCH_ROWS_PER_PRINTED_PAGE = 10_000;
/** Cells per page handed to the print threads (fewer rows a page for wide rows): 40 a row. */
const FETCH_CELLS_PER_PRINTED_PAGE = 400_000;
/** Characters of row lines gathered before a write to the file stream. */
const WRITE_CHUNK_CHARS_MIN = 1 << 17;
/**
 * Containers exported at once, their requests on one connection. Each waits for its getContainer,
 * its query and, at its end, for its row file to be printed and closed; the others keep the node
 * and the two print threads busy meanwhile. The TSBS day's export, alternated (load
 * 2.4-2.7): 4 at once 0.75-0.77 s, 6 0.64-0.66 s, 8 0.62-0.73 s (2 at once: 0.96-1.06 s).
 * A container holds at most PAGES_IN_FLIGHT_MAX + 2 pages (one being received, one fetched ahead).
 */
const EXPORTS_IN_FLIGHT_MAX = 6;

const HELP: CommandHelp = {
  name: NAME,
  usage: ['-u USER/PASS (--all | --db DB | -c NAME... | --containerregex REGEX...) [-d DIR] ' +
    '[--filterfile FILE] [--schemaOnly] [--acl] [--prefixdb DB] [-s HOST:PORT] [--cluster NAME] [--silent]',
    '-u USER/PASS -c NAME --csv FILE [--filterfile FILE] [-s HOST:PORT]'],
  summary: 'Exports containers (schema and rows) to a directory in GridDB\'s export format: ' +
    'gs_export.json,\n<db>.<name>_properties.json and <db>.<name>.csv per container, BLOBs as files.',
  options: [
    ['-u, --user USER/PASS', 'the user and password (required)'],
    ['-s, --server HOST:PORT', 'the node\'s transaction service (default 127.0.0.1:10001)'],
    ['--cluster NAME', 'the cluster name (default: GS_HOME/conf/gs_cluster.json, else myCluster)'],
    ['--all', 'every container'],
    ['--db DB', 'every container of the databases given'],
    ['-c, --container NAME', 'this container (repeatable)'],
    ['--containerregex REGEX', 'containers whose whole name matches (repeatable)'],
    ['-d, --directory DIR', 'where to write (default: the current directory); must hold no export'],
    ['--filterfile FILE', 'lines REGEX:TQL; a container exports the rows of the first line matching it'],
    ['--schemaOnly', 'metadata only, no rows'],
    ['--acl', 'with --all or --db: also gs_export_acl.json, the general users and database rights (none here)'],
    ['--prefixdb DB', 'with -c or --containerregex: the database of the containers (default public)'],
    ['--csv FILE', 'with -c NAME: that container\'s rows as plain CSV with a header row'],
    ['--silent', 'no progress output'],
    ['-v, --verbose', 'a line per container with its row count'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_export -u admin/admin -s 127.0.0.1:10001 --all -d /tmp/export',
};

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const values = parseCommandArgs(args, {
    ...CONNECTION_OPTIONS,
    ...SELECTION_OPTIONS,
    filterfile: { type: 'string' },
    schemaOnly: { type: 'boolean' },
    acl: { type: 'boolean' },
    prefixdb: { type: 'string' },
  });
  const environment = requireEnvironment(process.env);
  const chosen = [values.all, values.db, values.container, values.containerregex]
    .filter((value) => value !== undefined).length;
  if (chosen !== 1) {
    throw new CommandError('Specify one of --all, --db, -c or --containerregex.', EXIT_ARGUMENTS);
  }
  aclOptionsCheck(values);
  const filters = values.filterfile === undefined ? [] : readFilterFile(values.filterfile);
  if (values.csv !== undefined) return mainCsv(values.csv, { ...values, filters }, args);
  const directory = resolve(values.directory ?? '.');
  directoryCheck(directory);
  const log = new CommandLog(environment, NAME);
  log.info('main', `start: ${maskedArgs(args)}`);
  const printThread = new PrintThread();
  // The threads load their modules while this one connects and lists the containers.
  if (values.schemaOnly !== true) printThread.start();
  let store: ClientStore;
  let address: string;
  let user: string;
  try {
    ({ store, address, user } = await connectStore(values, environment));
  } catch (error) {
    await printThread.stop();
    throw error;
  }
  const stores = new DatabaseStores(values, environment);
  try {
    // --all: every database the user may log in to; --db: those; -c, --containerregex: --prefixdb's.
    const databases = values.all === true ? await databasesOf(store)
      : values.db ?? [values.prefixdb ?? DATABASE_PUBLIC];
    const targets: Array<{ database: string; store: ClientStore; name: string }> = [];
    const viewDatabases: Array<{ database: string; store: ClientStore }> = [];
    for (const database of databases) {
      let databaseStore: ClientStore;
      try {
        databaseStore = await stores.of(database);
      } catch (error) {
        // --all skips a database the user holds no privilege on, as GridDB's lists only its own.
        if (values.all === true && /authentication failed/i.test((error as Error).message)) continue;
        throw error;
      }
      viewDatabases.push({ database, store: databaseStore });
      for (const name of selectNames(await databaseStore.getContainerNames(), values)) {
        targets.push({ database, store: databaseStore, name });
      }
    }
    const names = targets.map((target) => target.name);
    const startTime = new Date().toISOString();
    if (values.silent !== true) console.log(`Export Start.\nDirectory : ${directory}`);
    const progress = Progress.forConsole(values.silent === true);
    let totalRows = 0;
    if (progress.showsTotal) {
      for (const target of targets) totalRows += (await target.store.getContainerInfo(target.name))?.rowCount ?? 0;
    }
    let doneRows = 0;
    progress.start('export', totalRows);
    const entries: Array<ExportEntry & { sequence: number }> = [];
    let failureCount = 0;
    let nextIndex = 0;
    // EXPORTS_IN_FLIGHT_MAX containers at once: some are printed while the node reads the others.
    const worker = async () => {
      while (nextIndex < names.length) {
        const sequence = nextIndex++;
        const { database, store: databaseStore, name } = targets[sequence]!;
        const filter = filters.find((entry) => entry.pattern.test(name))?.tql;
        try {
          const rowCount = await exportContainer(databaseStore, {
            database, name, sequence, directory, user, startTime, tql: filter,
            schemaOnly: values.schemaOnly === true, printThread,
            onRows: (count) => progress.update('export', (doneRows += count)),
          }, entries);
          log.info('exportContainer', `${database}.${name}: ${rowCount} rows`);
          if (values.verbose === true) console.log(`${database}.${name} : ${rowCount}`);
        } catch (error) {
          failureCount++;
          log.error('exportContainer', `${database}.${name}: ${(error as Error).message}`);
          console.error(`D00D01: Export of ${database}.${name} failed: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: EXPORTS_IN_FLIGHT_MAX }, worker));
    progress.stop();
    entries.sort((a, b) => a.sequence - b.sequence);
    const execution: ExportExecution = {
      version: EXPORT_FORMAT_VERSION, startTime, endTime: new Date().toISOString(), address, user,
      containerCount: entries.length, rowFileType: 'csv', parallel: 1,
      container: entries.map(({ sequence: _, ...entry }) => entry),
    };
    writeFileSync(join(directory, EXPORT_EXECUTION_FILE), JSON.stringify(execution, null, 2) + '\n');
    if (values.acl === true) writeAclFile(directory, homeAccessCatalog(environment.home, user), user);
    // Views go with --all and --db only, as GridDB's: their definitions, in gs_export_view.json.
    const views = values.all === true || values.db !== undefined ? await viewsOf(viewDatabases) : undefined;
    if (views !== undefined) writeViewFile(directory, views);
    const summary = `Number of target container:${names.length} ( Success:${names.length - failureCount} ` +
      `Failure:${failureCount} )`;
    log.info('main', summary);
    // Printed only when there were views, as GridDB's (commandProgressStatus).
    const viewLine = (views?.length ?? 0) === 0 ? '' : `\nThe number of target views : ${views!.length}`;
    if (values.silent !== true) console.log(`${summary}${viewLine}\nExport Completed.`);
    return failureCount === 0 ? EXIT_OK : EXIT_ERROR;
  } finally {
    await printThread.stop();
    await stores.closeAll();
    await store.close();
  }
}

/** Public, then every database of "#databases" in id order. */
async function databasesOf(store: ClientStore): Promise<string[]> {
  const rows = await (await store.sql('SELECT DATABASE_NAME FROM "#databases" ORDER BY DATABASE_ID')).toArray();
  return rows.map((row) => String(row[0]));
}

/** `--csv FILE -c NAME`: one container's rows as plain CSV with a header row. */
async function mainCsv(path: string, values: ConnectionValues & {
  container?: string[] | undefined; silent?: boolean | undefined;
  filters: Array<{ pattern: RegExp; tql: string }>;
}, args: string[]): Promise<number> {
  if (values.container?.length !== 1) {
    throw new CommandError('--csv FILE exports one container: give -c NAME once.', EXIT_ARGUMENTS);
  }
  const environment = requireEnvironment(process.env);
  const log = new CommandLog(environment, NAME);
  log.info('main', `start: ${maskedArgs(args)}`);
  const { store } = await connectStore(values, environment);
  try {
    const name = values.container[0]!;
    const tql = values.filters.find((entry) => entry.pattern.test(name))?.tql;
    const progress = Progress.forConsole(values.silent === true);
    const rowCount = await exportCsv(store, { name, path: resolve(path), tql, progress });
    log.info('exportCsv', `${DATABASE_PUBLIC}.${name}: ${rowCount} rows to ${path}`);
    if (values.silent !== true) console.log(`${DATABASE_PUBLIC}.${name} : ${rowCount}\nExport Completed.`);
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

interface ExportJob {
  database: string;
  name: string;
  sequence: number;
  directory: string;
  user: string;
  startTime: string;
  tql: string | undefined;
  schemaOnly: boolean;
  /** Rows written since the last call. */
  onRows: (count: number) => void;
  printThread: PrintThread;
}

/** One container: its metadata file, then its rows, streamed. Returns the row count. */
async function exportContainer(
  store: ClientStore,
  job: ExportJob,
  entries: Array<ExportEntry & { sequence: number }>,
): Promise<number> {
  const container = await store.getContainer(job.name);
  if (container === undefined) throw new Error('the container no longer exists');
  const stem = fileStemOf(job.database, container.name, job.sequence);
  const metafile = `${stem}_properties.json`;
  const rowFile = `${stem}.csv`;
  const info = container.info;
  writeFileSync(join(job.directory, metafile), JSON.stringify(metadataOf(info, rowFile, job.database), null, 2) + '\n');
  const header = rowFileHeader({
    startIso: job.startTime, user: job.user, metafile, containerLabel: `${job.database}.${info.name}`,
  });
  const rowPath = join(job.directory, rowFile);
  let rowIndex = 0;
  try {
    if (job.schemaOnly) {
      writeFileSync(rowPath, header);
    } else {
      const printedRows = Math.min(FETCH_ROWS_PER_PRINTED_PAGE,
        Math.floor(FETCH_CELLS_PER_PRINTED_PAGE / info.columns.length));
      const pageRows = pagePrintable(info.columns) ? Math.max(FETCH_ROWS_PER_PAGE, printedRows)
        : FETCH_ROWS_PER_PAGE;
      const query = container.query(job.tql ?? 'select *').setFetchOption('SIZE', pageRows);
      const rows = await query.fetch();
      try {
        const target = { path: rowPath, header, columns: info.columns, directory: job.directory, stem };
        rowIndex = pagePrintable(info.columns, rows.columns)
          ? await printPages(rows, job.printThread.open({ ...target, onRows: job.onRows }))
          : await printRows(rows, target, job.onRows);
      } catch (error) {
        await rows.close().catch(() => undefined);
        throw error;
      }
    }
  } catch (error) {
    // Nothing of a failed container stays to be taken for a complete one.
    rmSync(join(job.directory, metafile), { force: true });
    rmSync(rowPath, { force: true });
    throw error;
  }
  const entry: ExportEntry & { sequence: number } = {
    database: job.database, name: info.name, metafile, sequence: job.sequence,
  };
  if (job.tql !== undefined) entry.filterCondition = job.tql;
  entries.push(entry);
  return rowIndex;
}

/**
 * Every column printable from the bytes the node sent: each page goes to the print thread
 * (expimp-print-thread.ts), which prints and writes it while this thread fetches the next.
 */
async function printPages(rows: RowSet, file: PrintedFile): Promise<number> {
  let rowIndex = 0;
  try {
    for (let page = await rows.nextPageEncoded(); page !== undefined; page = await rows.nextPageEncoded()) {
      await file.pageHandedOver(page.bytes, page.count, rowIndex);
      rowIndex += page.count;
    }
  } catch (error) {
    await file.close().catch(() => undefined);
    throw error;
  }
  await file.close();
  return rowIndex;
}

/**
 * Other columns: rows decoded and printed here, a page at a time (the next one is on its way
 * meanwhile), their lines joined into chunks of WRITE_CHUNK_CHARS_MIN characters or more: one
 * stream write per chunk, not per line.
 */
async function printRows(
  rows: RowSet,
  target: { path: string; header: string; columns: readonly ColumnSchema[]; directory: string; stem: string },
  onRows: (count: number) => void,
): Promise<number> {
  const out = createWriteStream(target.path);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const printRow = rowPrinterOf(target.columns);
  const place = { directory: target.directory, stem: target.stem, rowIndex: 0 };
  let rowIndex = 0;
  try {
    out.write(target.header);
    for (let page = await rows.nextPage(); page.length > 0; page = await rows.nextPage()) {
      let chunk = '';
      for (const row of page) {
        place.rowIndex = rowIndex++;
        chunk += printRow(row, place);
        if (chunk.length >= WRITE_CHUNK_CHARS_MIN) {
          if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
          chunk = '';
        }
      }
      if (chunk !== '' && !out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
      onRows(page.length);
    }
  } finally {
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  }
  return rowIndex;
}

function selectNames(all: string[], values: {
  all?: boolean | undefined; db?: string[] | undefined;
  container?: string[] | undefined; containerregex?: string[] | undefined;
}): string[] {
  if (values.all === true || values.db !== undefined) return all;
  if (values.container !== undefined) {
    const byName = new Map(all.map((name) => [name.toLowerCase(), name]));
    return values.container.map((name) => {
      const found = byName.get(name.toLowerCase());
      if (found === undefined) throw new CommandError(`D00C0F: Container "${name}" does not exist.`);
      return found;
    });
  }
  const patterns = (values.containerregex ?? []).map((text) => regexOf(text, '--containerregex'));
  return all.filter((name) => patterns.some((pattern) => pattern.test(name)));
}

/** A whole-name match, as Java's String.matches. */
function regexOf(text: string, where: string): RegExp {
  try {
    return new RegExp(`^(?:${text})$`);
  } catch {
    throw new CommandError(`${where}: ${JSON.stringify(text)} is not a regular expression.`, EXIT_ARGUMENTS);
  }
}

/** `--filterfile`: lines `REGEX:TQL`, the TQL starting with SELECT; blank and # lines skipped. */
function readFilterFile(path: string): Array<{ pattern: RegExp; tql: string }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CommandError(`--filterfile ${path} cannot be read.`, EXIT_ARGUMENTS);
  }
  return text.split(/\r?\n/).flatMap((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return [];
    const match = /^(.*?):\s*(select\b.*)$/i.exec(line);
    if (match === null) {
      throw new CommandError(`${path}:${i + 1}: expected REGEX:SELECT ...`, EXIT_ARGUMENTS);
    }
    return [{ pattern: regexOf(match[1]!, `${path}:${i + 1}`), tql: match[2]! }];
  });
}

function directoryCheck(directory: string): void {
  if (!existsSync(directory)) {
    mkdirSync(directory, { recursive: true });
    return;
  }
  const taken = readdirSync(directory).find((file) =>
    file === EXPORT_EXECUTION_FILE || file.endsWith('_properties.json'));
  if (taken !== undefined) {
    throw new CommandError(`D00D02: The directory ${directory} already holds an export (${taken}).`,
      EXIT_ARGUMENTS);
  }
}

runCommand(HELP, main);
