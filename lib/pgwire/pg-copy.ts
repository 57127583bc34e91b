// COPY over the PostgreSQL protocol, both ways, with bounded memory.
//
// COPY FROM STDIN: CopyData is cut into records as it arrives (pg-copy-text.ts); each record
// becomes a row of the table's schema, and every PG_COPY_BATCH_ROW_COUNT rows (or
// PG_COPY_BATCH_CHARS_MAX characters of input) go to the engine as one MULTI_PUT, which is one
// auto-commit statement of that container. In text format into a table of the column types
// pg-copy-text-wire.ts reads, lines are cut as bytes and read straight into the MULTI_PUT's row
// encoding; a line it does not take is a record of the general path, with the same outcome. The connection reads the next CopyData only after
// the current one is handled (pg-connection.ts), so a COPY holds one CopyData message, at most
// one unfinished record (PG_COPY_RECORD_CHARS_MAX), the batch being filled and the one the engine
// is writing.
//
// Atomicity: GridDB has no transaction over several statements, so a COPY is not atomic. A
// batch is applied whole or not at all; the batches before a failure (a bad line, CopyFail, an
// engine error, a lost connection) stay written, the failing batch and everything after it are
// not. The error's DETAIL says how many rows were written.
//
// In binary format (pg-copy-binary.ts) the same holds with tuples for records: a tuple's number
// is its `line` in errors, and the unfinished tuple is bounded like a record.
//
// COPY TO STDOUT: the query's rows page by page (PG_PAGE_ROW_COUNT), one CopyData per row as
// PostgreSQL sends them, flushed after each page; cancel and the statement timeout are checked
// between pages.

import { isStorageError } from '../base/errors.ts';
import type { Row } from '../schema/column-type.ts';
import { containerSchemaOf, type ContainerInfo } from '../protocol/wire-schema.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { PgCopyOptions, PgCopyStatement } from './pg-copy-statement.ts';
import {
  copyFields, copyFormatError, copyHeader, copyLine, copyValueReader, PgCopyRecordSplitter, type PgCopyRecord,
  type PgCopyValueReader,
} from './pg-copy-text.ts';
import {
  copyBinaryReader, PgCopyBinaryTuples, writeCopyBinaryHeader, writeCopyBinaryTrailer, writeCopyBinaryTuple,
  type PgBinaryTuple, type PgCopyBinaryReader,
} from './pg-copy-binary.ts';
import { PgError, pgError, pgErrorFieldsOf } from './pg-errors.ts';
import { PgCopyLineSplitter, PgCopyTextWireBatch } from './pg-copy-text-wire.ts';
import { RowBatch } from '../protocol/wire-rows.ts';
import type { PgBackendWriter } from './pg-frames.ts';
import type { PgColumn, PgRowSource, PgSqlBackend } from './pg-sql-backend.ts';

/** Rows per MULTI_PUT of a COPY FROM. */
export const PG_COPY_BATCH_ROW_COUNT = 5000;
/** Input characters per MULTI_PUT: wide rows make smaller batches. */
export const PG_COPY_BATCH_CHARS_MAX = 4 * 1024 * 1024;
/** The longest record (line, or CSV record over lines) a COPY FROM takes. */
export const PG_COPY_RECORD_CHARS_MAX = 16 * 1024 * 1024;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

export class PgCopyIn {
  /** Rows the engine has applied. */
  rowCount = 0;
  private readonly splitter: PgCopyRecordSplitter;
  /** FORMAT binary: the tuple reader and each field's reader, by the field's place in a tuple. */
  private binary: { tuples: PgCopyBinaryTuples; readers: PgCopyBinaryReader[] } | undefined;
  private readonly schema: ContainerSchema;
  /** The schema index each field of a record goes to. */
  private readonly targets: number[];
  private readonly validate: (row: Row) => Row;
  /** Each field's reader, by the field's place in a record. */
  private readonly readers: PgCopyValueReader[];
  private batch: Row[] = [];
  /**
   * Text format into a table whose columns pg-copy-text-wire.ts reads: lines cut as bytes, and the
   * batch built in the row encoding (the general path's rows appended to it in line order).
   */
  private wire: { lines: PgCopyLineSplitter; batch: PgCopyTextWireBatch; line: number; ended: boolean } | undefined;
  /** The batch the engine is writing; settles (never rejects) when it is done. */
  private inFlight: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;
  private batchChars = 0;
  private batchFirstLine = 1;
  private headerPending: boolean;

  private constructor(private readonly backend: PgSqlBackend, private readonly connectionId: number,
    private readonly info: ContainerInfo, columns: string[] | undefined, private readonly options: PgCopyOptions) {
    this.splitter = new PgCopyRecordSplitter(options);
    this.schema = containerSchemaOf(info);
    this.headerPending = options.header;
    this.validate = backend.rowValidator(info);
    const wireBatch = PgCopyTextWireBatch.for(this.schema, options, columns !== undefined);
    if (wireBatch !== undefined) this.wire = { lines: new PgCopyLineSplitter(), batch: wireBatch, line: 0, ended: false };
    if (columns === undefined) {
      this.targets = this.schema.columns.map((_c, i) => i);
      this.readers = PgCopyIn.readersOf(this.schema, this.targets);
      return;
    }
    this.targets = columns.map((name) => {
      const index = this.schema.columns.findIndex((column) => column.name.toLowerCase() === name.toLowerCase());
      if (index < 0) throw new PgError(pgError('42703', `column "${name}" of relation "${info.name}" does not exist`));
      return index;
    });
    if (new Set(this.targets).size !== this.targets.length) {
      throw new PgError(pgError('42701', 'COPY names a column twice'));
    }
    this.readers = PgCopyIn.readersOf(this.schema, this.targets);
  }

  private startBinary(): void {
    this.binary = { tuples: new PgCopyBinaryTuples(this.targets.length),
      readers: this.targets.map((index) => copyBinaryReader(this.schema.columns[index]!)) };
  }

  private static readersOf(schema: ContainerSchema, targets: readonly number[]): PgCopyValueReader[] {
    return targets.map((index) => copyValueReader(schema.columns[index]!));
  }

  static async open(backend: PgSqlBackend, connectionId: number,
    statement: Extract<PgCopyStatement, { direction: 'in' }>): Promise<PgCopyIn> {
    const info = await backend.containerInfo(connectionId, statement.table);
    if (info === undefined) throw new PgError(pgError('42P01', `relation "${statement.table}" does not exist`));
    const copy = new PgCopyIn(backend, connectionId, info, statement.columns, statement.options);
    if (statement.options.format === 'binary') copy.startBinary();
    const arrays = copy.targets.filter((index) => copy.schema.columns[index]!.array);
    if (arrays.length > 0) {
      throw new PgError(pgError('0A000', `COPY FROM into array column "${copy.schema.columns[arrays[0]!]!.name}" is not supported`));
    }
    return copy;
  }

  get columnCount(): number {
    return this.targets.length;
  }

  async data(bytes: Buffer): Promise<void> {
    try {
      if (this.binary !== undefined) {
        const tuples: PgBinaryTuple[] = [];
        this.binary.tuples.push(bytes, tuples);
        if (this.binary.tuples.pendingLength > PG_COPY_RECORD_CHARS_MAX) {
          throw new PgError(pgError('54000', `a COPY tuple is longer than ${PG_COPY_RECORD_CHARS_MAX} bytes`));
        }
        await this.takeTuples(tuples);
        return;
      }
      if (this.wire !== undefined) {
        const lines = this.wire.lines.push(bytes);
        if (this.wire.lines.pendingByteCount > PG_COPY_RECORD_CHARS_MAX &&
          this.wire.lines.pendingText().length > PG_COPY_RECORD_CHARS_MAX) {
          throw new PgError(pgError('54000', `a COPY record is longer than ${PG_COPY_RECORD_CHARS_MAX} characters`));
        }
        await this.takeLines(lines.bytes, lines.starts, lines.ends);
        return;
      }
      const records: PgCopyRecord[] = [];
      this.splitter.push(bytes, records);
      if (this.splitter.pendingLength > PG_COPY_RECORD_CHARS_MAX) {
        throw new PgError(pgError('54000', `a COPY record is longer than ${PG_COPY_RECORD_CHARS_MAX} characters`));
      }
      await this.take(records);
    } catch (error) {
      throw await this.ended(error);
    }
  }

  /** CopyDone: the last record and batch; resolves with the rows written. */
  async done(): Promise<number> {
    try {
      if (this.binary !== undefined) {
        this.binary.tuples.end();
      } else if (this.wire !== undefined) {
        const last = this.wire.lines.end();
        if (last !== undefined) await this.takeLines(last.bytes, [last.start], [last.end]);
      } else {
        const records: PgCopyRecord[] = [];
        this.splitter.end(records);
        await this.take(records);
      }
      await this.write();
      await this.settle();
      if (this.failure !== undefined) throw this.failure.error;
    } catch (error) {
      throw await this.ended(error);
    }
    return this.rowCount;
  }

  /** Waits for the batch in flight, so that rowCount is final (a failed batch is kept in `failure`). */
  async settle(): Promise<void> {
    await this.inFlight;
  }

  /** The error that ends the COPY, once the batch in flight has settled; an engine failure first. */
  private async ended(error: unknown): Promise<unknown> {
    await this.settle();
    return this.withWritten(this.failure?.error ?? error);
  }

  /** The DETAIL of an error that ends the COPY: what stays written. */
  writtenDetail(): string {
    return `${this.rowCount} rows of this COPY were written before the error and stay written ` +
      '(each batch is its own auto-commit statement); no later row was written';
  }

  /** The error with the table in its CONTEXT and what stays written in its DETAIL. */
  withWritten(error: unknown): unknown {
    if (!(error instanceof PgError) && !isStorageError(error)) return error;
    const fields = { ...pgErrorFieldsOf(error) };
    if (fields.where?.startsWith('COPY, ') === true) fields.where = `COPY ${this.info.name}, ${fields.where.slice(6)}`;
    return new PgError({ ...fields, detail: fields.detail === undefined ? this.writtenDetail()
      : `${fields.detail}; ${this.writtenDetail()}` });
  }

  private async take(records: PgCopyRecord[]): Promise<void> {
    for (const record of records) {
      if (this.headerPending) {
        this.headerPending = false;
        continue;
      }
      this.add(record);
      if (this.batch.length >= PG_COPY_BATCH_ROW_COUNT || this.batchChars >= PG_COPY_BATCH_CHARS_MAX) {
        await this.write();
      }
    }
  }

  /** Lines k of `bytes`, [starts[k], ends[k]), in order: each a row here or a record of the general path. */
  private async takeLines(bytes: Buffer, starts: readonly number[], ends: readonly number[]): Promise<void> {
    const wire = this.wire!;
    for (let k = 0; k < starts.length; k++) {
      if (wire.ended) return;
      wire.line++;
      const start = starts[k]!;
      const end = ends[k]!;
      if (end - start === 2 && bytes[start] === BACKSLASH && bytes[start + 1] === DOT) { // \. : the old end-of-data marker
        wire.ended = true;
        return;
      }
      if (this.headerPending) {
        this.headerPending = false;
        continue;
      }
      if (wire.batch.tryLine(bytes, start, end)) {
        if (wire.batch.count === 1) this.batchFirstLine = wire.line;
        this.batchChars += end - start;
      } else {
        this.add({ line: wire.line, text: bytes.toString('utf8', start, end) });
      }
      if (this.batchRowCount >= PG_COPY_BATCH_ROW_COUNT || this.batchChars >= PG_COPY_BATCH_CHARS_MAX) {
        await this.write();
      }
    }
  }

  private get batchRowCount(): number {
    return this.wire === undefined ? this.batch.length : this.wire.batch.count;
  }

  private async takeTuples(tuples: PgBinaryTuple[]): Promise<void> {
    const readers = this.binary!.readers;
    const columns = this.schema.columns;
    for (const { tuple, fields, byteCount } of tuples) {
      const row: Row = new Array<Row[number]>(columns.length).fill(null);
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!;
        if (field !== null) row[this.targets[i]!] = readers[i]!(field, tuple);
      }
      this.push(row, tuple, byteCount);
      if (this.batch.length >= PG_COPY_BATCH_ROW_COUNT || this.batchChars >= PG_COPY_BATCH_CHARS_MAX) {
        await this.write();
      }
    }
  }

  private add(record: PgCopyRecord): void {
    const fields = copyFields(record, this.options);
    const columns = this.schema.columns;
    if (fields.length > this.targets.length) {
      throw copyFormatError(record.line, 'extra data after last expected column');
    }
    if (fields.length < this.targets.length) {
      const missing = columns[this.targets[fields.length]!]!.name;
      throw copyFormatError(record.line, `missing data for column "${missing}"`, missing);
    }
    const row: Row = new Array<Row[number]>(columns.length).fill(null);
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      if (field !== null) row[this.targets[i]!] = this.readers[i]!(field, record.line);
    }
    this.push(row, record.line, record.text.length);
  }

  /** A row read from line (or tuple) `line` of `size` input characters (bytes), checked, into the batch. */
  private push(row: Row, line: number, size: number): void {
    let valid: Row;
    try {
      valid = this.validate(row);
    } catch (error) {
      if (!isStorageError(error)) throw error;
      throw new PgError({ ...pgErrorFieldsOf(error), where: `COPY ${this.info.name}, line ${line}` });
    }
    if (this.batchRowCount === 0) this.batchFirstLine = line;
    if (this.wire === undefined) this.batch.push(valid);
    else this.wire.batch.appendRow(valid);
    this.batchChars += size;
  }

  /**
   * Sends the batch once the one before it is written: the engine (in its thread) writes one batch
   * while this thread reads the next, and at most two batches are held.
   */
  private async write(): Promise<void> {
    if (this.batchRowCount === 0) return;
    let rows: RowBatch;
    if (this.wire === undefined) {
      rows = RowBatch.of(this.schema, this.batch);
      this.batch = [];
    } else {
      const { count, bytes } = this.wire.batch.take();
      rows = RowBatch.encoded(count, bytes);
    }
    const firstLine = this.batchFirstLine;
    this.batchChars = 0;
    await this.settle();
    if (this.failure !== undefined) throw this.failure.error;
    // The rejection is kept, never left unhandled; data() and done() raise it.
    this.inFlight = this.backend.putRows(this.connectionId, this.info, rows).then(() => {
      this.rowCount += rows.count;
    }, (error: unknown) => {
      this.failure = { error: isStorageError(error)
        ? new PgError({ ...pgErrorFieldsOf(error),
          where: `COPY ${this.info.name}, the batch of ${rows.count} rows from line ${firstLine}` })
        : error };
    });
  }
}

/** CopyInResponse / CopyOutResponse: text (0) or binary (1) format for the whole and every column. */
export function writeCopyResponse(out: PgBackendWriter, type: 'G' | 'H', columnCount: number, format: 0 | 1 = 0): void {
  out.message(type, (writer) => {
    writer.byte(format).int16(columnCount);
    for (let i = 0; i < columnCount; i++) writer.int16(format);
  });
}

/** The SELECT a `COPY table [(columns)] TO STDOUT` reads. */
export function copyOutQuery(statement: Extract<PgCopyStatement, { direction: 'out' }>): string {
  if (statement.query !== undefined) return statement.query;
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const columns = statement.columns === undefined ? '*' : statement.columns.map(quote).join(', ');
  return `SELECT ${columns} FROM ${quote(statement.table)}`;
}

export interface PgCopyOutHost {
  readonly out: PgBackendWriter;
  flush(): Promise<void>;
  /** Throws 57014 when the statement was cancelled or timed out. */
  checkInterrupted(): Promise<void>;
}

/** Sends the rows as CopyOutResponse, CopyData… and CopyDone; resolves with the row count. */
export async function copyOut(host: PgCopyOutHost, columns: readonly PgColumn[], source: PgRowSource,
  options: PgCopyOptions, pageRowCount: number): Promise<number> {
  const { out } = host;
  const binary = options.format === 'binary';
  writeCopyResponse(out, 'H', columns.length, binary ? 1 : 0);
  if (binary) writeCopyBinaryHeader(out);
  if (options.header) out.begin('d').text(copyHeader(columns.map((column) => column.name), options)).end();
  const types = columns.map((column) => column.type);
  let rowCount = 0;
  try {
    for (;;) {
      const page = await source.next(pageRowCount);
      if (binary) for (const row of page.rows) writeCopyBinaryTuple(out, types, row);
      else for (const row of page.rows) out.begin('d').text(copyLine(types, row, options)).end();
      rowCount += page.rows.length;
      await host.flush();
      if (page.done) break;
      await host.checkInterrupted();
    }
  } catch (error) {
    await source.close();
    throw error;
  }
  if (binary) writeCopyBinaryTrailer(out);
  out.message('c');
  return rowCount;
}
