// The column-at-a-time encoder of fixed-width rows (row-codec-column-range.ts) against the
// row-by-row one it stands in for (RowCodec.writeColumnRow): the same bytes for every schema of
// those kinds, NaN, -0 and the integer extremes included; rows with a NULL left to the row path;
// and EncodedRowsBuilder.addRange cuts the same chunks and pages as add().

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { EncodedRowsBuilder, type EncodedRows } from '../../../lib/encoding/encoded-rows.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { columnRangeOf } from '../../../lib/encoding/row-codec-column-range.ts';
import type { ColumnType } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';
import { storeOf } from './encoded-rows-helpers.ts';
import { limits, rowsArbitrary, schemaArbitrary } from './row-arbitraries.ts';

const FIXED_TYPES: ColumnType[] = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'FLOAT', 'DOUBLE', 'TIMESTAMP'];

/** Time series whose every column is a fixed-width scalar of the range encoder's kinds. */
const fixedSchemaArbitrary: fc.Arbitrary<ContainerSchema> = fc.record({
  rest: fc.array(fc.record({ type: fc.constantFrom(...FIXED_TYPES), notNull: fc.boolean() },
    { noNullPrototype: true }), { minLength: 1, maxLength: 12 }),
  allNotNull: fc.boolean(),
}, { noNullPrototype: true }).map(({ rest, allNotNull }) => validateContainerDefinition({
  name: 'fixed', type: 'TIME_SERIES', rowKey: 1,
  columns: [{ name: 'ts', type: 'TIMESTAMP', notNull: true },
    ...rest.map((c, i) => ({ name: `c${i}`, type: c.type, notNull: allNotNull || c.notNull }))],
}, limits));

const rangeCase = fixedSchemaArbitrary.chain((schema) => fc.record({
  schema: fc.constant(schema),
  // Several 4 KiB blocks: batches of many rows, and chunk ends within them.
  rows: fc.array(rowsArbitrary(schema, 30), { maxLength: 12, size: 'max' }).map((parts) => parts.flat()),
  chunkBytesTarget: fc.integer({ min: 1, max: 3000 }),
  pages: fc.array(fc.record({
    rowCountMax: fc.integer({ min: 1, max: 40 }), bytesTarget: fc.integer({ min: 1, max: 2000 }),
  }, { noNullPrototype: true }), { minLength: 1, maxLength: 6 }),
}, { noNullPrototype: true }));

function encodedBy(
  schema: ContainerSchema, c: { rows: unknown[]; chunkBytesTarget: number }, ranged: boolean,
): EncodedRows {
  const store = storeOf(schema, c.rows as never);
  const codec = rowCodec(schema, 'wire');
  const builder = ranged
    ? new EncodedRowsBuilder(codec, c.chunkBytesTarget, columnRangeOf(schema))
    : new EncodedRowsBuilder(codec, c.chunkBytesTarget);
  for (const { rowCount, columns } of store.scanBatches({ direction: 'asc' })) {
    if (ranged) builder.addRange(columns, 0, rowCount);
    else for (let n = 0; n < rowCount; n++) builder.add(columns, n);
  }
  return builder.finish();
}

describe('column-at-a-time row encoding', () => {
  it('writes a block\'s fixed-width rows byte for byte as writeColumnRow, or declines a range with a NULL', () => {
    let written = 0;
    let declined = 0;
    fc.assert(fc.property(rangeCase, fc.nat(), fc.nat(), (c, fromSeed, countSeed) => {
      const range = columnRangeOf(c.schema);
      assert.ok(range !== undefined);
      const codec = rowCodec(c.schema, 'wire');
      const store = storeOf(c.schema, c.rows);
      for (const { rowCount, columns } of store.scanBatches({ direction: 'asc' })) {
        const from = fromSeed % (rowCount + 1);
        const count = countSeed % (rowCount - from + 1);
        const expected = new ByteWriter(8);
        let hasNull = false;
        for (let n = from; n < from + count; n++) {
          codec.writeColumnRow(expected, columns, n);
          hasNull ||= columns.some((column) => column.nulls?.[n] === 1);
        }
        const actual = new ByteWriter(8);
        actual.u8(0xee); // a byte before: the rows go after what the writer holds
        const done = range.write(actual, columns, from, count);
        assert.equal(done, !hasNull);
        if (done) {
          written++;
          assert.deepStrictEqual(actual.finish().slice(1), expected.finish());
          assert.equal(actual.lengthBytes - 1, count * range.rowBytes);
        } else {
          declined++;
          assert.equal(actual.lengthBytes, 1, 'a declined range writes nothing');
        }
      }
    }), { numRuns: 200 });
    assert.ok(written > 0 && declined > 0, `written ${written}, declined ${declined}`);
  });

  it('addRange gives the same bytes, chunks and pages as add() row by row', () => {
    fc.assert(fc.property(rangeCase, (c) => {
      const ranged = encodedBy(c.schema, c, true);
      const rowByRow = encodedBy(c.schema, c, false);
      assert.equal(ranged.count, rowByRow.count);
      for (let p = 0; rowByRow.remainingCount > 0; p++) {
        const { rowCountMax, bytesTarget } = c.pages[p % c.pages.length]!;
        const expected = rowByRow.take(rowCountMax, bytesTarget);
        const actual = ranged.take(rowCountMax, bytesTarget);
        assert.equal(actual.count, expected.count);
        assert.equal(actual.sizeBytes, expected.sizeBytes);
        assert.equal(actual.parts.length, expected.parts.length, 'chunks end at the same rows');
        assert.deepStrictEqual(Buffer.concat(actual.parts), Buffer.concat(expected.parts));
      }
      assert.equal(ranged.remainingCount, 0);
    }), { numRuns: 150 });
  });

  it('has no range encoder for a schema with a column of another kind', () => {
    fc.assert(fc.property(schemaArbitrary, (schema) => {
      const fixed = schema.columns.every((column) => !column.array &&
        FIXED_TYPES.includes(column.type) &&
        (column.type !== 'TIMESTAMP' || (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND'));
      assert.equal(columnRangeOf(schema) !== undefined, fixed);
    }), { numRuns: 300 });
  });
});
