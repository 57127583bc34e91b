// gs_import's whole-file scanner (tools/expimp-row-scan.ts) against the line reader it stands in
// for (readRowFile, then the codec): for random fixed-size schemas and rows as gs_export prints
// them, the same batches of wire bytes; for the same files with cells spelled otherwise (escapes,
// exponents, zones, NULLs, empty strings, CR, blank lines, extra cells), either no answer (the
// line reader then reads the file) or exactly the line reader's rows, never other rows and never
// rows where the line reader finds a problem. Schemas with strings, BLOBs or arrays are not taken.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { doubleText, type DoubleTextAddon } from '../../../lib/io/double-text.ts';
import { blockSizeLimits, STORE_BLOCK_SIZES_BYTES } from '../../../lib/base/limits.ts';
import { TIMESTAMP_MS_MAX, type Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowValidator } from '../../../lib/schema/row-validate.ts';
import { rowFileHeader, rowLine } from '../../../tools/expimp-row-file.ts';
import { readRowFile } from '../../../tools/expimp-row-reader.ts';
import { rowScanTakes, scanRowFile, type ScannedBatch } from '../../../tools/expimp-row-scan.ts';
import {
  tableColumns, tableRows, tableSchema, tableWireBytes, type SuiteValues,
} from './expimp-test-tables.ts';

const LIMITS = blockSizeLimits(STORE_BLOCK_SIZES_BYTES[STORE_BLOCK_SIZES_BYTES.length - 1]!);
const BATCH_ROWS = 7;
const BATCH_BYTES_MAX = 1 << 20;
const DAY_MS = 86_400_000;
const TIMESTAMP_MS = fc.oneof(
  fc.integer({ min: 1, max: TIMESTAMP_MS_MAX }),
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -1500, max: 1500 }))
    .map(([day, offsetMs]) => 1_451_606_400_000 + day * DAY_MS + offsetMs),
  fc.constantFrom(1, 999, 1000, DAY_MS - 1, DAY_MS, TIMESTAMP_MS_MAX),
);
const DOUBLE = fc.oneof(
  fc.double(),
  fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 2 ** 53 + 2, 1e21, -1e21, 1.5e300, 5e-324, -5e-324,
    Number.MAX_VALUE, 0.1 + 0.2, 9007199254740991, 0.000001, 1e-7),
  fc.integer().map((n) => n / 1000),
  fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100_000),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((bits) => new Float64Array(BigUint64Array.of(bits).buffer)[0]!),
);
const FIXED_TYPES = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP'] as const;

const VALUES: SuiteValues = { double: DOUBLE, timestampMs: TIMESTAMP_MS };

/** Cell texts spelled otherwise than gs_export prints them (or not values at all). */
const OTHER_CELL = fc.constantFrom(
  '', '""', '"1e5"', '"1E-3"', '"+1"', '"0x10"', '" 1"', '"NaN"', '"-0.0"', '"-Infinity"', '"1.5"', '"1."', '".5"',
  '"2016-01-01T00:00:00.000Z"', '"2016-01-01T09:00:00.000+0900"', '"2016-01-01T00:00:00.5+0000"',
  '"2016-02-30T00:00:00.000+0000"', '"1969-12-31T23:59:59.999+0000"', '"1970-01-01T00:00:00.000+0000"',
  '"2016-01-01T24:00:00.000+0000"', '"a\\"b"', '"\\\\"', '"true"', '"false"', '"12345678901234567890"',
  '"0.1234567890123456789"', '"1.7976931348623157e+308"', '"-9223372036854775808"', '"128"', '"-32769"',
  '"3.4028235e+38"', '"é"', 'x', '"1",', '"1"\r', '"unclosed', '"1e400"', '"-1e-400"', '"-.5e3"', '"00012.5"',
  '"1.7976931348623159e308"', '"4.9e-325"', '"2.4703282292062328e-324"', '"37.119492470619141"', '"inf"', '"-"',
);

const TABLE = fc.array(fc.tuple(fc.constantFrom(...FIXED_TYPES), fc.boolean()), { minLength: 1, maxLength: 8 })
  .chain((specs) => {
    const keyed = specs[0]![0] === 'TIMESTAMP' || specs[0]![0] === 'LONG' || specs[0]![0] === 'INTEGER';
    // The first column is never NULL: a one-column NULL row is an empty line, which the scanner leaves.
    const columns = tableColumns(specs);
    return fc.record({
      schema: fc.constant(tableSchema(columns, keyed ? 1 : 0)),
      rows: tableRows(columns, VALUES, 30),
      finalBreak: fc.boolean(),
    }, { noNullPrototype: true });
  });

const directory = mkdtempSync(join(tmpdir(), 'store-row-scan-'));
after(() => rmSync(directory, { recursive: true, force: true }));
let fileCount = 0;

/** The row file gs_export writes for these rows. */
function fileText(schema: ContainerSchema, rows: readonly Row[], finalBreak: boolean): string {
  const header = rowFileHeader({ startIso: '2026-01-01T00:00:00.000+0000', user: 'admin', metafile: 'public.c_properties.json', containerLabel: 'public.c' });
  const body = rows.map((row, i) => rowLine(schema.columns, row, { directory, stem: 'c', rowIndex: i })).join('');
  return header + (finalBreak ? body : body.replace(/\n$/, ''));
}

/** What the line reader gives for the file, in the scanner's batches; the problem when it has one. */
async function lineReaderBatches(schema: ContainerSchema, text: string): Promise<ScannedBatch[] | Error> {
  const path = join(directory, `f${fileCount++}.csv`);
  writeFileSync(path, text);
  const batches: ScannedBatch[] = [];
  let rows: Row[] = [];
  const flush = (lastLineNumber: number) => {
    batches.push({ count: rows.length, bytes: tableWireBytes(schema, rows).slice(), lastLineNumber });
    rows = [];
  };
  let lineNumber = 0;
  try {
    for await (const rowAt of readRowFile(path, schema.columns, rowValidator(schema, LIMITS))) {
      rows.push(rowAt.row);
      lineNumber = rowAt.lineNumber;
      if (rows.length === BATCH_ROWS) flush(lineNumber);
    }
  } catch (error) {
    return error as Error;
  } finally {
    rmSync(path, { force: true });
  }
  if (rows.length > 0) flush(lineNumber);
  return batches;
}

const DOUBLE_PARSERS: Array<[string, DoubleTextAddon | null]> = [
  [doubleText?.parseDoubles === undefined ? 'parseScalar (the double_text addon is not built)' : 'the double_text addon', doubleText ?? null],
  ['parseScalar, the fallback without the addon', null],
];

for (const [doublesName, doubles] of DOUBLE_PARSERS) describe(`export import row scanner, doubles by ${doublesName}`, () => {
  const scanned = (schema: ContainerSchema, text: string) =>
    scanRowFile(Buffer.from(text, 'utf8'), schema, rowValidator(schema, LIMITS), BATCH_ROWS, BATCH_BYTES_MAX, doubles);

  it('gives the line reader\'s batches of wire bytes for files as gs_export writes them', async () => {
    await fc.assert(fc.asyncProperty(TABLE, async ({ schema, rows, finalBreak }) => {
      const text = fileText(schema, rows as Row[], finalBreak);
      const expected = await lineReaderBatches(schema, text);
      assert.ok(!(expected instanceof Error), String(expected));
      const result = scanned(schema, text);
      assert.ok(result !== undefined, 'the scanner takes a file as gs_export writes it');
      assert.equal(result.rowCount, rows.length);
      assert.deepEqual(result.batches, expected);
    }), { numRuns: 300 });
  });

  it('with cells spelled otherwise, answers nothing or exactly the line reader\'s rows', async () => {
    const edited = TABLE.filter(({ rows }) => rows.length > 0).chain((table) => fc.record({
      table: fc.constant(table),
      edits: fc.array(fc.record({
        row: fc.nat({ max: table.rows.length - 1 }),
        column: fc.nat({ max: table.schema.columns.length }),
        cell: OTHER_CELL,
      }, { noNullPrototype: true }), { minLength: 1, maxLength: 3 }),
      blankLine: fc.boolean(),
    }, { noNullPrototype: true }));
    let taken = 0;
    let refused = 0;
    await fc.assert(fc.asyncProperty(edited, async ({ table, edits, blankLine }) => {
      const { schema } = table;
      const text = fileText(schema, table.rows as Row[], true);
      const lines = text.split('\n');
      const headerLines = 4;
      for (const edit of edits) {
        const at = headerLines + edit.row;
        const cells = lines[at]!.split(',');
        cells[Math.min(edit.column, cells.length - 1)] = edit.cell;
        lines[at] = cells.join(',');
      }
      if (blankLine) lines.splice(headerLines + 1, 0, '');
      const changed = lines.join('\n');
      const expected = await lineReaderBatches(schema, changed);
      const result = scanned(schema, changed);
      if (result === undefined) {
        refused++;
        return;
      }
      taken++;
      assert.ok(!(expected instanceof Error), `the scanner took a file the line reader refuses: ${String(expected)}`);
      assert.deepEqual(result.batches, expected);
    }), { numRuns: 400 });
    assert.ok(taken > 0 && refused > 0, `both ways seen: ${taken} taken, ${refused} refused`);
  });

  it('does not take strings, BLOBs, arrays or TIMESTAMP(6|9); a file without its "$" line is not taken', () => {
    const schemaOf = (column: Partial<ColumnSchema>) => ({
      name: 'c', type: 'COLLECTION', rowKeyColumnCount: 0, schemaVersion: 1,
      columns: [{ name: 'a', type: 'DOUBLE', array: false, notNull: false }, { name: 'b', array: false, notNull: false, ...column }],
    }) as unknown as ContainerSchema;
    for (const column of [{ type: 'STRING' }, { type: 'BLOB' }, { type: 'GEOMETRY' }, { type: 'DOUBLE', array: true },
      { type: 'TIMESTAMP', timePrecision: 'MICROSECOND' }, { type: 'TIMESTAMP', timePrecision: 'NANOSECOND' }] as Array<Partial<ColumnSchema>>) {
      const schema = schemaOf(column);
      assert.equal(rowScanTakes(schema), false, JSON.stringify(column));
      assert.equal(scanned(schema, '"$","public.c"\n"1",\n'), undefined);
    }
    const doubles = schemaOf({ type: 'DOUBLE' });
    assert.equal(scanned(doubles, '"#header"\n"1","2"\n'), undefined);
    assert.deepEqual(scanned(doubles, '"#header"\n"$","public.c"\n'), { rowCount: 0, batches: [] });
  });
});
