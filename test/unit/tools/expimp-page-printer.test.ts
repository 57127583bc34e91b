// The export's page printer (lines straight from the wire bytes of a page) against the row printer
// and the generic rowLine: the same bytes for random pages of every column type it prints, NULLs,
// edge doubles (-0, NaN, ±Infinity, subnormals, integers ≥ 1e21), strings printed to files and
// escaped strings included, pages printed in sequence (the kept day text across days and back);
// malformed pages throw. Each with the double_text addon (lib/io/double-text.ts) printing DOUBLE and
// FLOAT cells (pages of fixed-size columns whole, by its printPage), with an addon built before
// printPage (cells spliced into the page printed here), and with the String(x) fallback.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { TIMESTAMP_MS_MAX, type Row } from '../../../lib/schema/column-type.ts';
import { doubleText, type DoubleTextAddon } from '../../../lib/io/double-text.ts';
import { pagePrinterOf, pagePrintable } from '../../../tools/expimp-page-printer.ts';
import { rowLine } from '../../../tools/expimp-row-file.ts';
import { rowPrinterOf } from '../../../tools/expimp-row-printer.ts';
import {
  tableColumns, tableRows, tableSchema, tableWireBytes, type SuiteValues,
} from './expimp-test-tables.ts';

const TEXT = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'Z', '"', '\\', ',', '@', '\n', '\r', 'é', '😀', ' ', '#', '['), maxLength: 8 }),
  fc.string({ maxLength: 12 }),
);
const DAY_MS = 86_400_000;
const TIMESTAMP_MS = fc.oneof(
  fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -1500, max: 1500 }))
    .map(([day, offsetMs]) => Math.max(0, 1_451_606_400_000 + day * DAY_MS + offsetMs)),
  fc.constantFrom(0, 999, 1000, DAY_MS - 1, DAY_MS, TIMESTAMP_MS_MAX),
);
const DOUBLE = fc.oneof(
  fc.double(),
  fc.double({ min: -1e-300, max: 1e-300 }),
  fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 2 ** 53 + 2, 1e21, -1e21, 1.5e300, 5e-324, -5e-324,
    2.2250738585072014e-308, Number.MAX_VALUE, 0.1 + 0.2),
  fc.integer().map((n) => n / 1000),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((bits) => new Float64Array(BigUint64Array.of(bits).buffer)[0]!),
);
const TYPES = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'STRING'] as const;

const VALUES: SuiteValues = { double: DOUBLE, timestampMs: TIMESTAMP_MS, text: TEXT };

function tableOf(types: ReadonlyArray<typeof TYPES[number]>) {
  return fc.array(fc.tuple(fc.constantFrom(...types), fc.boolean()), { minLength: 1, maxLength: 10 })
    .map(tableColumns)
    .chain((columns) => fc.record({
      columns: fc.constant(columns),
      pages: fc.array(tableRows(columns, VALUES, 12), { minLength: 1, maxLength: 3 }),
    }, { noNullPrototype: true }));
}
const TABLE = tableOf(TYPES);
/** Fixed-size columns only: the pages the addon's printPage prints whole. */
const FIXED_TABLE = tableOf(TYPES.filter((type) => type !== 'STRING'));

function encoded(columns: ColumnSchema[], rows: readonly Row[]): Uint8Array {
  return tableWireBytes(tableSchema(columns), rows);
}

const DOUBLE_PRINTERS: Array<[string, DoubleTextAddon | null]> = [
  [doubleText === undefined ? 'String(x) (the double_text addon is not built)' : 'the double_text addon', doubleText ?? null],
  ['the double_text addon without printPage (built before it)',
    doubleText === undefined ? null : { ...doubleText, printPage: undefined }],
  ['String(x), the fallback without the addon', null],
];

for (const [doublesName, doubles] of DOUBLE_PRINTERS) describe(`export page printer, doubles by ${doublesName}`, () => {
  it('prints the same bytes as the row printer and rowLine, files included, for random pages', () => {
    fc.assert(fc.property(TABLE, ({ columns, pages }) => {
      assert.ok(pagePrintable(columns));
      const generic = mkdtempSync(join(tmpdir(), 'page-printer-generic-'));
      const fast = mkdtempSync(join(tmpdir(), 'page-printer-fast-'));
      try {
        const printRow = rowPrinterOf(columns);
        const printPage = pagePrinterOf(columns, { directory: fast, stem: 's', rowIndex: 0 }, doubles);
        let rowIndex = 0;
        for (const page of pages) {
          const rows = page as Row[];
          let expected = '';
          for (const row of rows) {
            const place = { directory: generic, stem: 's', rowIndex };
            const line = rowLine(columns, row, place);
            assert.equal(printRow(row, place), line);
            expected += line;
            rowIndex++;
          }
          const printed = printPage(encoded(columns, rows), rows.length, rowIndex - rows.length);
          assert.deepEqual(printed, Buffer.from(expected, 'utf8'));
        }
        const files = readdirSync(generic).sort();
        assert.deepEqual(readdirSync(fast).sort(), files);
        for (const file of files) assert.deepEqual(readFileSync(join(fast, file)), readFileSync(join(generic, file)));
      } finally {
        rmSync(generic, { recursive: true, force: true });
        rmSync(fast, { recursive: true, force: true });
      }
    }), { numRuns: 400 });
  });

  it('prints the same bytes as rowLine for random pages of fixed-size columns only, in sequence', () => {
    fc.assert(fc.property(FIXED_TABLE, ({ columns, pages }) => {
      const printPage = pagePrinterOf(columns, { directory: tmpdir(), stem: 's', rowIndex: 0 }, doubles);
      let rowIndex = 0;
      for (const page of pages) {
        const rows = page as Row[];
        const expected = rows.map((row) => rowLine(columns, row, { directory: tmpdir(), stem: 's', rowIndex: rowIndex++ }))
          .join('');
        const printed = printPage(encoded(columns, rows), rows.length, rowIndex - rows.length);
        assert.equal(printed.toString('latin1'), expected);
      }
    }), { numRuns: 1000 });
  });

  it('prints every double as the row printer does', () => {
    const columns: ColumnSchema[] = [{ name: 'd', type: 'DOUBLE', array: false, notNull: true }];
    const printRow = rowPrinterOf(columns);
    const printPage = pagePrinterOf(columns, { directory: tmpdir(), stem: 's', rowIndex: 0 }, doubles);
    fc.assert(fc.property(fc.array(DOUBLE, { minLength: 1, maxLength: 50 }), (values) => {
      const rows = values.map((value): Row => [value]);
      const expected = rows.map((row, rowIndex) => printRow(row, { directory: tmpdir(), stem: 's', rowIndex })).join('');
      assert.equal(printPage(encoded(columns, rows), rows.length, 0).toString('latin1'), expected);
    }), { numRuns: 2000 });
  });

  it('grows its buffer for a page larger than it', () => {
    const columns: ColumnSchema[] = [{ name: 's', type: 'STRING', array: false, notNull: true }];
    const rows: Row[] = Array.from({ length: 5 }, (_, i) => [String(i).repeat(700_000)]);
    const printPage = pagePrinterOf(columns, { directory: tmpdir(), stem: 's', rowIndex: 0 }, doubles);
    const expected = rows.map((row) => `"${row[0] as string}"\n`).join('');
    assert.equal(printPage(encoded(columns, rows), rows.length, 0).toString('utf8'), expected);
  });

  it('grows its noted cells for a page of more doubles than it starts with room for', () => {
    const columns: ColumnSchema[] = Array.from({ length: 10 }, (_, i): ColumnSchema =>
      ({ name: `d${i}`, type: i % 2 === 0 ? 'DOUBLE' : 'FLOAT', array: false, notNull: true }));
    const rows: Row[] = Array.from({ length: 3000 }, (_, r) =>
      columns.map((column, i) => (column.type === 'FLOAT' ? Math.fround(r / 7 + i) : r / 3 + i / 11)));
    const printRow = rowPrinterOf(columns);
    const printPage = pagePrinterOf(columns, { directory: tmpdir(), stem: 's', rowIndex: 0 }, doubles);
    const expected = rows.map((row, rowIndex) => printRow(row, { directory: tmpdir(), stem: 's', rowIndex })).join('');
    for (let i = 0; i < 2; i++) assert.equal(printPage(encoded(columns, rows), rows.length, 0).toString('latin1'), expected);
  });

  it('throws on a malformed page: cut short, bytes left over, NULL in a NOT NULL column, a bad BOOL', () => {
    const columns: ColumnSchema[] = [
      { name: 'b', type: 'BOOL', array: false, notNull: true },
      { name: 'd', type: 'DOUBLE', array: false, notNull: false },
    ];
    const printPage = pagePrinterOf(columns, { directory: tmpdir(), stem: 's', rowIndex: 0 }, doubles);
    const bytes = encoded(columns, [[true, 1.5], [false, null]]);
    assert.equal(printPage(bytes, 2, 0).toString(), '"true","1.5"\n"false",\n');
    assert.throws(() => printPage(bytes.subarray(0, 5), 2, 0), /the page ends within it/);
    assert.throws(() => printPage(bytes, 1, 0), /bytes after/);
    const nulled = Uint8Array.from(bytes);
    nulled[0] = 0b01;
    assert.throws(() => printPage(nulled, 2, 0), /NULL in the NOT NULL column 1/);
    const badBool = Uint8Array.from(bytes);
    badBool[1] = 2;
    assert.throws(() => printPage(badBool, 2, 0), /BOOL byte 2/);
  });

  it('is not used for columns it does not print, nor for result columns of other types', () => {
    const double: ColumnSchema = { name: 'd', type: 'DOUBLE', array: false, notNull: false };
    assert.equal(pagePrintable([{ ...double, type: 'BLOB' }]), false);
    assert.equal(pagePrintable([{ ...double, array: true }]), false);
    assert.equal(pagePrintable([{ ...double, type: 'TIMESTAMP', timePrecision: 'NANOSECOND' }]), false);
    assert.equal(pagePrintable([double], [{ ...double, type: 'LONG' }]), false);
    assert.equal(pagePrintable([double], [double, double]), false);
    assert.equal(pagePrintable([double], [double]), true);
  });
});
