// The cells of export row files, in process: every type prints to text that parses back to the
// same value; lines of cells parse back to the same cells; CSV records likewise; bad text is a
// problem naming what was expected.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import type { ScalarValue } from '../../../lib/schema/column-type.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
} from '../../../lib/schema/column-type.ts';
import { LineProblem, parseLine, printLine } from '../../../tools/expimp-csv-line.ts';
import { csvField, readCsvRecords } from '../../../tools/expimp-csv-plain.ts';
import {
  parseArray, parseScalar, printArray, printScalar, ValueProblem,
} from '../../../tools/expimp-values.ts';

const column = (type: ColumnSchema['type'], timePrecision?: ColumnSchema['timePrecision']): ColumnSchema =>
  timePrecision === undefined ? { name: 'c', type, array: false, notNull: false }
    : { name: 'c', type, array: false, notNull: false, timePrecision };

const CASES: Array<[ColumnSchema, fc.Arbitrary<ScalarValue>]> = [
  [column('BOOL'), fc.boolean()],
  [column('BYTE'), fc.integer({ min: -128, max: 127 })],
  [column('INTEGER'), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })],
  [column('LONG'), fc.bigInt({ min: INT64_MIN, max: INT64_MAX })],
  [column('FLOAT'), fc.float()],
  [column('DOUBLE'), fc.double()],
  [column('TIMESTAMP'), fc.integer({ min: 0, max: TIMESTAMP_MS_MAX })],
  [column('TIMESTAMP', 'MICROSECOND'), fc.bigInt({ min: 0n, max: TIMESTAMP_US_MAX })],
  [column('TIMESTAMP', 'NANOSECOND'), fc.bigInt({ min: 0n, max: TIMESTAMP_NS_MAX })],
  [column('STRING'), fc.string()],
];

describe('export values', () => {
  it('print then parse gives the same value, for every type', () => {
    for (const [schema, values] of CASES) {
      fc.assert(fc.property(values, (value) => {
        assert.deepStrictEqual(parseScalar(schema, printScalar(schema, value)), value);
      }));
      const array = { ...schema, array: true };
      fc.assert(fc.property(fc.array(values, { maxLength: 5 }), (elements) => {
        assert.deepStrictEqual(parseArray(array, printArray(array, elements)), elements);
      }));
    }
  });

  it('prints -0 with its sign, and the TIMESTAMP layout of GridDB', () => {
    assert.equal(printScalar(column('DOUBLE'), -0), '-0.0');
    assert.equal(printScalar(column('TIMESTAMP'), Date.UTC(2016, 11, 25, 0, 22, 30)),
      '2016-12-25T00:22:30.000+0000');
    assert.equal(parseScalar(column('TIMESTAMP'), '2016-12-25T00:22:30.000+0900'),
      Date.UTC(2016, 11, 24, 15, 22, 30));
    assert.equal(printScalar(column('TIMESTAMP', 'NANOSECOND'), 1n), '1970-01-01T00:00:00.000000001+0000');
  });

  it('refuses bad text, saying what was expected', () => {
    assert.throws(() => parseScalar(column('BYTE'), '128'), ValueProblem);
    assert.throws(() => parseScalar(column('LONG'), '9223372036854775808'), /expected LONG/);
    assert.throws(() => parseScalar(column('DOUBLE'), ''), /expected a number/);
    assert.throws(() => parseScalar(column('TIMESTAMP'), '2016-02-30T00:00:00.000Z'), /no such instant/);
    assert.throws(() => parseScalar(column('TIMESTAMP'), '2016-01-01T00:00:00.0001Z'), /3 fraction digits/);
  });

  it('parses number text exactly as Number(text) behind the cell syntax, and refuses what it refused', () => {
    // The reference: the regular expression, then Number(text). parseScalar takes a faster path
    // for most cells; any difference in value (or in which text it refuses) fails here.
    const syntax = /^(-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|NaN|-?Infinity)$/;
    const reference = (text: string) => (syntax.test(text) ? Number(text) : 'refused');
    const parsed = (text: string) => {
      try {
        return parseScalar(column('DOUBLE'), text);
      } catch (error) {
        assert.ok(error instanceof ValueProblem);
        assert.match(error.message, /expected a number/);
        return 'refused';
      }
    };
    const digits = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength });
    const text = fc.oneof(
      fc.double().map(String),
      fc.double().map((x) => x.toExponential()),
      fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.nat(20)).map(([x, places]) => x.toFixed(places)),
      fc.tuple(fc.constantFrom('', '-', '+'), digits(20), fc.constantFrom('', '.', '..'), digits(20),
        fc.constantFrom('', 'e', 'E', 'e-', 'e+', 'E-'), digits(8), fc.constantFrom('', '', ' ', 'x', '.'))
        .map((parts) => parts.join('')),
      fc.string({ unit: fc.constantFrom(...'0123456789.eE-+ xIN'), maxLength: 12 }),
      fc.constantFrom('NaN', 'Infinity', '-Infinity', '-0', '-0.0', '.5', '5.', '-.5', '.', '-', '', 'e5', '1e',
        '9007199254740991', '9007199254740992', '9007199254740993', '0.1', '1e22', '1e23', '1e-22', '1e-23',
        '123456789012345678901234567890', '0.' + '0'.repeat(400) + '1', '1e0000000000005', '4.9e-324', '1e309'),
    );
    fc.assert(fc.property(text, (cell) => {
      assert.ok(Object.is(parsed(cell), reference(cell)), `${JSON.stringify(cell)}: ${parsed(cell)} vs ${reference(cell)}`);
    }), { numRuns: 20_000 });
  });

  it('lines of cells parse back to the same cells; a broken line names its column', () => {
    const cell = fc.option(fc.string().filter((text) => !/[\r\n]/.test(text)), { nil: null });
    fc.assert(fc.property(fc.array(cell, { minLength: 1, maxLength: 6 }), (cells) => {
      assert.deepStrictEqual(parseLine(printLine(cells)), cells);
    }));
    assert.throws(() => parseLine('"1","2'), (error) => error instanceof LineProblem && error.columnNumber === 7);
    assert.throws(() => parseLine('"1",x'), (error) => error instanceof LineProblem && error.columnNumber === 5);
  });

  it('plain CSV records parse back, quoted line breaks included', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'store-csv-'));
    try {
      await fc.assert(fc.asyncProperty(
        fc.array(fc.array(fc.option(fc.string(), { nil: null }), { minLength: 2, maxLength: 2 }), { maxLength: 5 }),
        async (records) => {
          const path = join(directory, 'r.csv');
          writeFileSync(path, records.map((fields) => fields.map(csvField).join(',') + '\r\n').join(''));
          const read: Array<Array<string | null>> = [];
          for await (const record of readCsvRecords(path)) read.push(record.fields);
          assert.deepStrictEqual(read, records);
        }), { numRuns: 50 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
