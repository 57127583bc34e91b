// `--csv FILE` of gs_export and gs_import: one container's rows out to, or in from, a plain CSV
// file with a header row of column names (expimp-csv-plain.ts). Out, rows stream a page at a
// time. In, the container must exist (CSV has no schema); the header names its columns in any
// order (case-insensitive; a column not named is NULL), the file is read through once and every
// record checked before anything is written, then read again and written in batches (expimp-batch-writer.ts).

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { isStorageError } from '../lib/base/errors.ts';
import type { ClientStore } from '../lib/client/store-factory.ts';
import { containerSchemaOf } from '../lib/protocol/wire-schema.ts';
import { limitsOf } from '../lib/client/client-schema.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import { rowValidator } from '../lib/schema/row-validate.ts';
import { BatchWriter } from './expimp-batch-writer.ts';
import type { Progress } from './expimp-common.ts';
import { csvRecord, csvValue, CsvProblem, readCsvRecords } from './expimp-csv-plain.ts';
import { ImportProblem } from './expimp-row-reader.ts';
import { ValueProblem } from './expimp-values.ts';

const FETCH_ROWS_PER_PAGE = 10_000;

/** Writes the container's rows (of `tql`) to `path`; returns the row count. */
export async function exportCsv(store: ClientStore, job: {
  name: string; path: string; tql: string | undefined; progress: Progress;
}): Promise<number> {
  const container = await store.getContainer(job.name);
  if (container === undefined) throw new Error(`D00C0F: Container "${job.name}" does not exist.`);
  const columns = container.info.columns;
  const out = createWriteStream(job.path);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let rowCount = 0;
  try {
    out.write(columns.map((column) => column.name).join(',') + '\n');
    job.progress.start(job.name, container.info.rowCount);
    const rows = await container.query(job.tql ?? 'select *').setFetchOption('SIZE', FETCH_ROWS_PER_PAGE).fetch();
    for await (const row of rows) {
      if (!out.write(csvRecord(columns, row))) await Promise.race([once(out, 'drain'), failed]);
      rowCount++;
      if (rowCount % 1000 === 0) job.progress.update(job.name, rowCount);
    }
    job.progress.update(job.name, rowCount);
    job.progress.stop();
  } finally {
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  }
  return rowCount;
}

/** Reads `path` into the existing container; nothing is written when a record is bad. */
export async function importCsv(store: ClientStore, job: {
  name: string; path: string; progress: Progress; interrupted: () => boolean;
}): Promise<number> {
  const container = await store.getContainer(job.name);
  if (container === undefined) {
    throw new Error(`D00C0F: Container "${job.name}" does not exist (create it before a CSV import).`);
  }
  const schema = containerSchemaOf(container.info);
  const validateRow = rowValidator(schema, limitsOf(store.pool.node!.storeBlockSizeBytes));
  let rowCount = 0;
  for await (const _ of csvRows(job.path, schema.columns, validateRow)) rowCount++;
  job.progress.start(job.name, rowCount);
  const writes = new BatchWriter((rows) => container.multiPut(rows));
  try {
    for await (const { lineNumber, row } of csvRows(job.path, schema.columns, (input) => input as Row)) {
      if (!writes.add(row)) continue;
      await writes.flush();
      job.progress.update(job.name, writes.acknowledgedCount);
      if (job.interrupted()) {
        await writes.settle();
        throw new Error(`interrupted: ${writes.acknowledgedCount} of ${rowCount} rows written ` +
          `(${basename(job.path)} up to line ${lineNumber}); run again to finish`);
      }
    }
    await writes.flush();
    await writes.settle();
  } finally {
    job.progress.stop();
  }
  return writes.acknowledgedCount;
}

async function* csvRows(
  path: string,
  columns: readonly ColumnSchema[],
  validateRow: (row: unknown) => Row,
): AsyncGenerator<{ lineNumber: number; row: Row }> {
  const file = basename(path);
  let positions: number[] | undefined;
  try {
    for await (const { lineNumber, fields } of readCsvRecords(path)) {
      if (positions === undefined) {
        positions = headerPositions(columns, fields, file);
        continue;
      }
      yield { lineNumber, row: csvRow(columns, { positions, fields, validateRow, file, lineNumber }) };
    }
  } catch (error) {
    if (error instanceof CsvProblem) throw new ImportProblem(file, error.lineNumber, 1, error.message);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ImportProblem(file, 0, 0, 'no such file');
    throw error;
  }
  if (positions === undefined) throw new ImportProblem(file, 1, 1, 'no header row');
}

/** For each column, the field that holds it (-1: not in the file, NULL). */
function headerPositions(columns: readonly ColumnSchema[], header: Array<string | null>, file: string): number[] {
  const positions = columns.map(() => -1);
  header.forEach((name, i) => {
    const index = columns.findIndex((column) => column.name.toLowerCase() === (name ?? '').toLowerCase());
    if (index < 0) throw new ImportProblem(file, 1, i + 1, `no column ${JSON.stringify(name)} in the container`);
    if (positions[index] !== -1) throw new ImportProblem(file, 1, i + 1, `column ${JSON.stringify(name)} twice`);
    positions[index] = i;
  });
  return positions;
}

function csvRow(columns: readonly ColumnSchema[], at: {
  positions: number[]; fields: Array<string | null>; validateRow: (row: unknown) => Row;
  file: string; lineNumber: number;
}): Row {
  if (at.fields.length !== at.positions.filter((position) => position >= 0).length) {
    throw new ImportProblem(at.file, at.lineNumber, 1, `${at.fields.length} fields, the header has ` +
      `${at.positions.filter((position) => position >= 0).length}`);
  }
  const row: Row = columns.map((column, i) => {
    const position = at.positions[i]!;
    try {
      return position < 0 ? null : csvValue(column, at.fields[position] ?? null);
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      throw new ImportProblem(at.file, at.lineNumber, position + 1, `column ${JSON.stringify(column.name)}: ${error.message}`);
    }
  });
  try {
    return at.validateRow(row);
  } catch (error) {
    if (!isStorageError(error)) throw error;
    const index = columns.findIndex((column) => error.message.includes(`"${column.name}"`));
    throw new ImportProblem(at.file, at.lineNumber, index < 0 ? 1 : (at.positions[index] ?? 0) + 1, error.message);
  }
}
