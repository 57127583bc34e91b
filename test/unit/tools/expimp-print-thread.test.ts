// gs_export's print thread (tools/expimp-print-thread.ts, expimp-print-worker.ts): two row files
// fed pages in turn hold exactly the page printer's lines in the order sent; a file never has
// more than PAGES_IN_FLIGHT_MAX pages unwritten, and the caller's bytes are its own again when
// page() returns (pageHandedOver moves a page's own buffer instead of copying it); a malformed page
// in mid-stream fails that file alone, with its path and row;
// a stopped thread fails the files still open.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { pagePrinterOf } from '../../../tools/expimp-page-printer.ts';
import { PAGES_IN_FLIGHT_MAX, PrintThread } from '../../../tools/expimp-print-thread.ts';

const COLUMNS: ColumnSchema[] = [
  { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
  { name: 'v', type: 'DOUBLE', array: false, notNull: false },
  { name: 's', type: 'STRING', array: false, notNull: false },
] as ColumnSchema[];
const ROWS_PER_PAGE = 50;
const HEADER = '"#header"\n';

function encoded(rows: readonly Row[]): Uint8Array {
  const writer = new ByteWriter(64);
  const schema = { name: 'c', type: 'COLLECTION', columns: COLUMNS, rowKeyColumnCount: 0, schemaVersion: 1 };
  rowCodec(schema as unknown as ContainerSchema, 'wire').writeRows(writer, rows);
  return writer.finish();
}

/** Page `p` of file `f`: rows that say which file, page and row they are. */
function pageRows(f: number, p: number): Row[] {
  return Array.from({ length: ROWS_PER_PAGE }, (_, i) => [
    1_451_606_400_000 + (p * ROWS_PER_PAGE + i) * 10_000, f + p / 7 + i / 1e9, i % 5 === 0 ? null : `f${f}p${p}r${i}`,
  ]);
}

/** What the page printer prints for these pages in sequence, after the header. */
function expectedText(pages: Uint8Array[], directory: string): string {
  const print = pagePrinterOf(COLUMNS, { directory, stem: 'x', rowIndex: 0 });
  return HEADER + pages.map((bytes, p) => print(bytes, ROWS_PER_PAGE, p * ROWS_PER_PAGE).toString('utf8')).join('');
}

describe('export print thread', { timeout: 60_000 }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'store-print-thread-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  const optionsOf = (name: string) => ({ path: join(directory, name), header: HEADER, columns: COLUMNS, directory, stem: name });

  it('writes each file\'s pages in the order sent, two files fed in turn, as the page printer prints them', async () => {
    const thread = new PrintThread();
    try {
      const pageCount = 30;
      const pages = [0, 1].map((f) => Array.from({ length: pageCount }, (_, p) => encoded(pageRows(f, p))));
      const rowCounts = [0, 0];
      const files = [0, 1].map((f) => thread.open({ ...optionsOf(`order${f}.csv`), onRows: (count) => { rowCounts[f]! += count; } }));
      for (let p = 0; p < pageCount; p++) {
        for (const f of [0, 1]) await files[f]!.page(pages[f]![p]!, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
      }
      for (const file of files) await file.close();
      for (const f of [0, 1]) {
        assert.equal(readFileSync(join(directory, `order${f}.csv`), 'utf8'), expectedText(pages[f]!, directory));
        assert.equal(rowCounts[f], pageCount * ROWS_PER_PAGE, 'every row reported written');
      }
    } finally {
      await thread.stop();
    }
  });

  it(`keeps at most ${PAGES_IN_FLIGHT_MAX} pages of a file unwritten, and leaves the caller its bytes`, async () => {
    const thread = new PrintThread();
    try {
      const file = thread.open(optionsOf('bounded.csv'));
      const bytes = encoded(pageRows(0, 0));
      const length = bytes.byteLength;
      for (let p = 0; p < 40; p++) {
        await file.page(bytes, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
        assert.equal(bytes.byteLength, length, 'the caller\'s page is not handed away');
      }
      await file.close();
      assert.ok(file.inFlightPeak <= PAGES_IN_FLIGHT_MAX, `${file.inFlightPeak} pages in flight at once`);
      assert.equal(readFileSync(join(directory, 'bounded.csv'), 'utf8').split('\n').length - 2, 40 * ROWS_PER_PAGE);
    } finally {
      await thread.stop();
    }
  });

  it('pageHandedOver moves a page that is its whole buffer to the thread, and copies a view of a larger one', async () => {
    const thread = new PrintThread();
    try {
      const file = thread.open(optionsOf('handed.csv'));
      const pages = Array.from({ length: 6 }, (_, p) => encoded(pageRows(0, p)));
      for (let p = 0; p < pages.length; p++) {
        const own = new Uint8Array(pages[p]!); // its whole ArrayBuffer, as the client's page is
        if (p % 2 === 0) {
          await file.pageHandedOver(own, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
          assert.equal(own.byteLength, 0, 'the page\'s buffer went to the thread: detached here');
        } else {
          const larger = new Uint8Array(own.byteLength + 16);
          larger.set(own, 8);
          const view = larger.subarray(8, 8 + own.byteLength);
          await file.pageHandedOver(view, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
          assert.equal(larger.byteLength, own.byteLength + 16, 'a view of a larger buffer is copied, not moved');
        }
      }
      await file.close();
      assert.equal(readFileSync(join(directory, 'handed.csv'), 'utf8'), expectedText(pages, directory));
    } finally {
      await thread.stop();
    }
  });

  it('a malformed page in mid-stream fails its file with the path and row; the other file completes', async () => {
    const thread = new PrintThread();
    try {
      const bad = thread.open(optionsOf('bad.csv'));
      const good = thread.open(optionsOf('good.csv'));
      const goodPages = Array.from({ length: 6 }, (_, p) => encoded(pageRows(1, p)));
      let failure: unknown;
      for (let p = 0; p < 6; p++) {
        const page = encoded(pageRows(0, p));
        await good.page(goodPages[p]!, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
        if (failure !== undefined) continue;
        try {
          await bad.page(p === 3 ? page.subarray(0, page.length - 5) : page, ROWS_PER_PAGE, p * ROWS_PER_PAGE);
          if (p === 5) await bad.close();
        } catch (error) {
          failure = error;
        }
      }
      assert.ok(failure instanceof Error, 'the bad file\'s page() or close() throws');
      assert.match(failure.message, /bad\.csv: row 199 of the page as received: the page ends within it/);
      await assert.rejects(bad.close(), /bad\.csv: row 199/, 'close() after the failure throws it again');
      await good.close();
      assert.equal(readFileSync(join(directory, 'good.csv'), 'utf8'), expectedText(goodPages, directory));
    } finally {
      await thread.stop();
    }
  });

  it('a stopped thread fails the files still open', async () => {
    const thread = new PrintThread();
    const file = thread.open(optionsOf('stopped.csv'));
    await file.page(encoded(pageRows(0, 0)), ROWS_PER_PAGE, 0);
    await thread.stop();
    await assert.rejects(file.close(), /stopped\.csv: the print thread stopped/);
    assert.throws(() => thread.open(optionsOf('later.csv')), /the print thread was stopped/);
  });
});
