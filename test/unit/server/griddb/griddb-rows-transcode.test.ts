// griddb-rows-transcode.ts against the way it short-cuts: GridDB's rows decoded (griddbRowsRead),
// validated (validateRow) and encoded as store's wire rows. On random schemas of fixed-size
// columns and random rows, with bytes of GridDB's encoding flipped at random (NULL bits in key and
// NOT NULL columns, padding bits, timestamps out of range, BOOL bytes other than 0 and 1), the
// transcoder either declines or gives the rows the other way gives; and it takes rows it should.
// Into a connection's scratch (GriddbRowsScratch, one for every run, so reused at every size) the
// rows are the same as into a buffer of their own. And griddbRowBatchOf, the way PUT_ROW,
// PUT_MULTIPLE_ROWS and PUT_MULTIPLE_CONTAINER_ROWS take rows (transcoded, or else decoded and
// checked), gives the engine the rows the decode-and-check way gives, and its errors.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteReader } from '../../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../../lib/encoding/row-codec.ts';
import { griddbRowsRead, griddbRowsWrite } from '../../../../lib/server/griddb/griddb-rows.ts';
import {
  GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX, GriddbRowsScratch, griddbRowsTranscode,
} from '../../../../lib/server/griddb/griddb-rows-transcode.ts';
import {
  VALUE_LIMITS, checked, griddbRowBatchOf,
} from '../../../../lib/server/griddb/griddb-row-statements.ts';
import { griddbDecode } from '../../../../lib/server/griddb/griddb-frame.ts';
import type { ColumnType, Row } from '../../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../../lib/schema/container-schema.ts';
import { validateRow } from '../../../../lib/schema/row-validate.ts';
import { validateContainerDefinition } from '../../../../lib/schema/schema-validate.ts';
import { limits, rowsArbitrary } from '../../encoding/row-arbitraries.ts';

const FIXED_TYPES: ColumnType[] = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE',
  'TIMESTAMP'];

const fixedSchema: fc.Arbitrary<ContainerSchema> = fc.record({
  timeSeries: fc.boolean(),
  columns: fc.array(fc.record({
    type: fc.constantFrom(...FIXED_TYPES),
    notNull: fc.boolean(),
    // Mostly ms: the others are declined, and that is checked too.
    timePrecision: fc.constantFrom('MILLISECOND', 'MILLISECOND', 'MILLISECOND', 'MICROSECOND'),
  }, { noNullPrototype: true }), { minLength: 1, maxLength: 20 }),
}, { noNullPrototype: true }).map(({ timeSeries, columns }) => validateContainerDefinition({
  name: 'transcoded', type: timeSeries ? 'TIME_SERIES' : 'COLLECTION', rowKey: timeSeries ? 1 : 0,
  columns: [
    ...(timeSeries ? [{ name: 'ts', type: 'TIMESTAMP', notNull: true }] : []),
    ...columns.map((c, i) => ({ name: `c${i}`, type: c.type, notNull: c.notNull,
      ...(c.type === 'TIMESTAMP' ? { timePrecision: c.timePrecision } : {}) })),
  ],
}, limits));

const flips = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 });

function griddbBytes(schema: ContainerSchema, rows: readonly Row[]): Uint8Array {
  const writer = new ByteWriter(64);
  griddbRowsWrite(writer, schema.columns, rows);
  return writer.finish();
}

/** The other way: the rows store's engine gets, or undefined where it refuses them. */
function slowWay(schema: ContainerSchema, bytes: Uint8Array, count: number): Row[] | undefined {
  let rows: Row[];
  try {
    rows = griddbRowsRead(bytes, schema.columns, count)
      .map((row) => validateRow(schema, row, VALUE_LIMITS));
  } catch {
    return undefined;
  }
  const writer = new ByteWriter(64);
  rowCodec(schema, 'wire').writeRows(writer, rows);
  return wireRead(schema, writer.finish(), count);
}

function wireRead(schema: ContainerSchema, bytes: Uint8Array, count: number): Row[] {
  const reader = new ByteReader(bytes);
  const rows = rowCodec(schema, 'wire').readRows(reader, count);
  reader.expectEnd();
  return rows;
}

describe('GridDB rows transcoded byte to byte', () => {
  it('gives the rows decoding and validating gives, or declines', () => {
    let taken = 0;
    let runs = 0;
    const scratch = new GriddbRowsScratch();
    fc.assert(fc.property(
      fixedSchema.chain((schema) => fc.tuple(fc.constant(schema),
        rowsArbitrary(schema, 6).filter((rows) => rows.length > 0), flips)),
      ([schema, rows, byteFlips]) => {
        runs++;
        const bytes = griddbBytes(schema, rows);
        for (const [at, value] of byteFlips) bytes[at % bytes.byteLength] = value;
        const fast = griddbRowsTranscode(bytes, schema, rows.length);
        const intoScratch = griddbRowsTranscode(bytes, schema, rows.length, scratch);
        assert.equal(intoScratch === undefined, fast === undefined);
        if (fast === undefined || intoScratch === undefined) return;
        taken++;
        const expected = slowWay(schema, bytes, rows.length);
        assert.notEqual(expected, undefined, 'transcoded rows the other way refuses');
        assert.deepStrictEqual(wireRead(schema, fast, rows.length), expected);
        assert.deepStrictEqual(wireRead(schema, intoScratch, rows.length), expected);
      }), { numRuns: 2000 });
    // Most schemas are all ms timestamps and most rows are not flipped into a refusal.
    assert.ok(taken > runs / 4, `transcoded ${taken} of ${runs}`);
  });

  it('takes the TSBS rows GridDB\'s client sends, NULLs included', () => {
    const schema = validateContainerDefinition({
      name: 'cpu', type: 'TIME_SERIES', rowKey: 1,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' },
        { name: 'b', type: 'BOOL' }],
    }, limits);
    const rows: Row[] = [[1451606400000, 12.5, true], [1451606410000, null, false],
      [1451606420000, NaN, null]];
    const fast = griddbRowsTranscode(griddbBytes(schema, rows), schema, rows.length);
    assert.ok(fast !== undefined);
    assert.deepStrictEqual(wireRead(schema, fast, rows.length), rows);
    // A timestamp of 0 is validateRow's to make canonical: declined.
    assert.equal(griddbRowsTranscode(griddbBytes(schema, [[0, 1, true]]), schema, 1), undefined);
  });

  it('keeps a scratch up to its bound and lends a larger one once', () => {
    const scratch = new GriddbRowsScratch();
    const small = scratch.take(100);
    assert.ok(small.byteLength >= 100);
    assert.equal(scratch.take(50), small, 'a smaller take reuses the kept scratch');
    const large = scratch.take(GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX + 1);
    assert.ok(large.byteLength >= GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX + 1);
    assert.notEqual(scratch.take(GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX + 1), large,
      'a take past the bound is not kept');
    assert.ok(scratch.take(GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX).byteLength <=
      GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX);
  });

  it('griddbRowBatchOf stores the rows, and refuses with the errors, of decoding and checking', () => {
    const outcome = (run: () => Row[]) => {
      try {
        return { rows: run() };
      } catch (error) {
        const { name, message } = error as Error;
        return { error: { name, message, code: (error as { error?: unknown }).error } };
      }
    };
    const scratch = new GriddbRowsScratch();
    let refused = 0;
    fc.assert(fc.property(
      fixedSchema.chain((schema) => fc.tuple(fc.constant(schema),
        rowsArbitrary(schema, 6).filter((rows) => rows.length > 0), flips, fc.boolean())),
      ([schema, rows, byteFlips, withScratch]) => {
        const bytes = griddbBytes(schema, rows);
        for (const [at, value] of byteFlips) bytes[at % bytes.byteLength] = value;
        const expected = outcome(() => griddbDecode(() => griddbRowsRead(bytes, schema.columns,
          rows.length)).map((row) => checked(() => validateRow(schema, row, VALUE_LIMITS))));
        const actual = outcome(() => griddbRowBatchOf(schema, bytes, rows.length,
          withScratch ? scratch : undefined).decode(schema));
        if (expected.error !== undefined) refused++;
        assert.deepStrictEqual(actual, expected);
      }), { numRuns: 2000 });
    assert.ok(refused > 0, 'some flipped rows are refused');
  });
});
