// The rows of one counted query result, kept in a temporary file so that `tql`/`sql` run the
// query once (counting its rows as GridDB prints them) and get, getcsv, getnoprint and getval page
// through the same rows afterwards: memory holds one page at a time, never the whole result. The
// file lives in the OS temporary directory and is removed when the result is let go (the next
// query, tqlclose, disconnect, exit).
//
// The file is a run of pages, each as the query gave it, its rows in the wire row codec of the
// result's columns (lib/encoding/row-codec.ts; LONG, NaN, -0, BLOB, arrays kept bit for bit):
//
//   | rowCount u32 | sizeBytes u32 | rows (sizeBytes bytes) | rowCount u32 | sizeBytes u32 | ...

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import { ByteReader } from '../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../lib/encoding/byte-writer.ts';
import { rowCodec, type RowCodec } from '../../lib/encoding/row-codec.ts';
import { resultSchemaOf } from '../../lib/protocol/wire-schema.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import { SPOOL_BYTES_MAX } from './shell-limits.ts';
import { ShellError } from './shell-messages.ts';

const PAGE_HEADER_BYTES = 8;
const WRITER_CAPACITY_BYTES = 64 * 1024;

export class ResultSpool {
  private readonly codec: RowCodec;
  private readonly directory: string;
  private fd: number | undefined;
  private readonly writer = new ByteWriter(WRITER_CAPACITY_BYTES);
  private writtenBytes = 0;
  private readBytes = 0;

  constructor(readonly columns: readonly ColumnSchema[]) {
    this.codec = rowCodec(resultSchemaOf([...columns]), 'wire');
    this.directory = mkdtempSync(join(tmpdir(), 'gs_sh-result-'));
    this.fd = openSync(join(this.directory, 'rows'), 'w+');
  }

  /** Adds a page of rows at the end. */
  append(rows: readonly Row[]): void {
    assert(this.fd !== undefined);
    if (rows.length === 0) return;
    this.writer.reset();
    this.writer.u32(rows.length);
    this.writer.u32(0);
    this.codec.writeRows(this.writer, rows);
    const bytes = this.writer.finish();
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(4, bytes.length - PAGE_HEADER_BYTES, true);
    if (this.writtenBytes + bytes.length > SPOOL_BYTES_MAX) {
      throw new ShellError(`The result is larger than ${SPOOL_BYTES_MAX} bytes, the most the shell keeps ` +
        'for get: narrow the query (LIMIT, a condition), or for SQL count no rows (sqlcount FALSE).');
    }
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at, this.writtenBytes + at);
    this.writtenBytes += bytes.length;
  }

  /** The next page in the order appended; empty when all were read. */
  readPage(): Row[] {
    assert(this.fd !== undefined);
    if (this.readBytes >= this.writtenBytes) return [];
    const header = this.read(PAGE_HEADER_BYTES);
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    const rowCount = view.getUint32(0, true);
    const sizeBytes = view.getUint32(4, true);
    const reader = new ByteReader(this.read(sizeBytes));
    const rows = this.codec.readRows(reader, rowCount);
    reader.expectEnd();
    return rows;
  }

  /** Removes the file; nothing can be read afterwards. */
  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
    rmSync(this.directory, { recursive: true, force: true });
  }

  private read(sizeBytes: number): Uint8Array {
    assert(this.readBytes + sizeBytes <= this.writtenBytes);
    const bytes = new Uint8Array(sizeBytes);
    for (let at = 0; at < sizeBytes;) {
      const count = readSync(this.fd!, bytes, at, sizeBytes - at, this.readBytes + at);
      assert(count > 0);
      at += count;
    }
    this.readBytes += sizeBytes;
    return bytes;
  }
}
