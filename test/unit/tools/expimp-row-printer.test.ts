// The export's fast row printer against the generic one (rowLine): the same bytes for random rows
// of every column type, NULLs, edge values and external cells included, with rows printed in
// sequence (so the printer's kept day text is exercised across days and back).

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import type { Row, Value } from '../../../lib/schema/column-type.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
} from '../../../lib/schema/column-type.ts';
import { rowLine } from '../../../tools/expimp-row-file.ts';
import { rowPrinterOf } from '../../../tools/expimp-row-printer.ts';

const TEXT = fc.string({
  unit: fc.constantFrom('a', 'Z', '"', '\\', ',', '@', '\n', '\r', 'é', '😀', ' ', '#', '['), maxLength: 8,
});
const DAY_MS = 86_400_000;
const TIMESTAMP_MS = fc.oneof(
  fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
  // Neighbouring instants around a few days' boundaries, so the kept day is used and replaced.
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -1500, max: 1500 }))
    .map(([day, offsetMs]) => Math.max(0, 1_451_606_400_000 + day * DAY_MS + offsetMs)),
  fc.constantFrom(0, 999, 1000, DAY_MS - 1, DAY_MS, TIMESTAMP_MS_MAX),
);

function scalarOf(column: ColumnSchema): fc.Arbitrary<Value> {
  switch (column.type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'LONG': return fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.constantFrom(INT64_MIN, INT64_MAX));
    case 'FLOAT': return fc.float();
    case 'DOUBLE': return fc.oneof(fc.double(), fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 2 ** 53 + 2));
    case 'TIMESTAMP':
      if (column.timePrecision === 'MICROSECOND') return fc.bigInt({ min: 0n, max: TIMESTAMP_US_MAX });
      if (column.timePrecision === 'NANOSECOND') return fc.bigInt({ min: 0n, max: TIMESTAMP_NS_MAX });
      return TIMESTAMP_MS;
    case 'STRING': return TEXT;
    case 'GEOMETRY': return fc.constantFrom('POINT(1 2)', 'LINESTRING(0 0,1 1)', '@POINT(1 2)');
    default: return fc.uint8Array({ maxLength: 8 });
  }
}

const COLUMN = fc.record({
  type: fc.constantFrom('BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'STRING',
    'GEOMETRY', 'BLOB'),
  array: fc.boolean(),
  timePrecision: fc.constantFrom(undefined, 'MICROSECOND', 'NANOSECOND'),
}, { noNullPrototype: true }).map(({ type, array, timePrecision }): ColumnSchema => ({
  name: 'c', type, array: array && type !== 'GEOMETRY' && type !== 'BLOB', notNull: false,
  ...(type === 'TIMESTAMP' && timePrecision !== undefined ? { timePrecision } : {}),
}));

const TABLE = fc.array(COLUMN, { minLength: 1, maxLength: 8 }).chain((columns) => fc.record({
  columns: fc.constant(columns),
  rows: fc.array(fc.tuple(...columns.map((column) => {
    const value = column.array ? fc.array(scalarOf(column), { maxLength: 3 }) as fc.Arbitrary<Value> : scalarOf(column);
    return fc.option(value, { nil: null, freq: 4 });
  })), { maxLength: 20 }),
}, { noNullPrototype: true }));

describe('export row printer', () => {
  it('prints the same bytes as rowLine, external files included, for random rows of every type', () => {
    fc.assert(fc.property(TABLE, ({ columns, rows }) => {
      const generic = mkdtempSync(join(tmpdir(), 'row-printer-generic-'));
      const fast = mkdtempSync(join(tmpdir(), 'row-printer-fast-'));
      try {
        const printRow = rowPrinterOf(columns);
        rows.forEach((row, rowIndex) => {
          const expected = rowLine(columns, row as Row, { directory: generic, stem: 's', rowIndex });
          assert.equal(printRow(row as Row, { directory: fast, stem: 's', rowIndex }), expected);
        });
        const files = readdirSync(generic).sort();
        assert.deepEqual(readdirSync(fast).sort(), files);
        for (const file of files) {
          assert.deepEqual(readFileSync(join(fast, file)), readFileSync(join(generic, file)));
        }
      } finally {
        rmSync(generic, { recursive: true, force: true });
        rmSync(fast, { recursive: true, force: true });
      }
    }), { numRuns: 300 });
  });
});
