// The row-free encoder (RowCodec.writeColumnRow, EncodedRows): rows encoded straight from a row
// block's columns, as a plain SELECT * sends them, must be byte for byte what the row codec writes
// for the rows those columns stand for, and pages cut from them must be the row path's pages.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { EncodedRowsBuilder, type EncodedRows } from '../../../lib/encoding/encoded-rows.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { encodedOf, storeOf } from './encoded-rows-helpers.ts';
import { limits, rowsArbitrary, schemaArbitrary } from './row-arbitraries.ts';

function rowBytesOf(schema: ContainerSchema, rows: readonly Row[]): Uint8Array {
  const writer = new ByteWriter(8);
  rowCodec(schema, 'wire').writeRows(writer, rows);
  return writer.finish().slice();
}

const encodingCase = schemaArbitrary.chain((schema) => fc.record({
  schema: fc.constant(schema),
  // Up to a few hundred rows (fc.array alone keeps to a few): several 4 KiB blocks, so batch
  // order and chunk ends are tested. Rows of the same key are one row in the store.
  rows: fc.array(rowsArbitrary(schema, 20), { maxLength: 20, size: 'max' })
    .map((parts) => parts.flat()),
  direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  chunkBytesTarget: fc.integer({ min: 1, max: 2000 }),
  pages: fc.array(fc.record({
    rowCountMax: fc.integer({ min: 1, max: 20 }), bytesTarget: fc.integer({ min: 1, max: 800 }),
  }, { noNullPrototype: true }), { minLength: 1, maxLength: 8 }),
}, { noNullPrototype: true }));

describe('EncodedRows', () => {
  it('encodes a row block\'s columns byte for byte as the row codec encodes the rows', () => {
    let severalBlocks = 0;
    fc.assert(fc.property(encodingCase, (c) => {
      const store = storeOf(c.schema, c.rows);
      const rows = store.scan({ direction: c.direction });
      const codec = rowCodec(c.schema, 'wire');
      const ascending = store.scan({ direction: 'asc' });
      let at = 0;
      if (store.blockCount > 1) severalBlocks++;
      for (const { rowCount, columns } of store.scanBatches({ direction: 'asc' })) {
        for (let n = 0; n < rowCount; n++) {
          assert.equal(codec.columnRowBytes(columns, n), codec.rowBytes(ascending[at++]!));
        }
      }
      assert.equal(at, ascending.length);
      const encoded = encodedOf(store, c.direction, c.chunkBytesTarget);
      assert.equal(encoded.count, rows.length);
      const page = encoded.take(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      assert.equal(page.count, rows.length);
      assert.equal(encoded.remainingCount, 0);
      assert.deepStrictEqual(new Uint8Array(Buffer.concat(page.parts)), rowBytesOf(c.schema, rows));
    }), { numRuns: 200 });
    assert.ok(severalBlocks > 0, 'no case spanned several blocks');
  });

  it('cuts pages as the row path does: fewer than rowCountMax rows and bytesTarget bytes', () => {
    fc.assert(fc.property(encodingCase, (c) => {
      const store = storeOf(c.schema, c.rows);
      const rows = store.scan({ direction: c.direction });
      const codec = rowCodec(c.schema, 'wire');
      const encoded = encodedOf(store, c.direction, c.chunkBytesTarget);
      let next = 0;
      for (let p = 0; encoded.remainingCount > 0; p++) {
        const { rowCountMax, bytesTarget } = c.pages[p % c.pages.length]!;
        // The reference: result-sets.ts's row loop.
        const expected: Row[] = [];
        let sizeBytes = 0;
        while (expected.length < rowCountMax && sizeBytes < bytesTarget && next < rows.length) {
          sizeBytes += codec.rowBytes(rows[next]!);
          expected.push(rows[next++]!);
        }
        const page = encoded.take(rowCountMax, bytesTarget);
        assert.equal(page.count, expected.length);
        assert.equal(page.sizeBytes, sizeBytes);
        assert.deepStrictEqual(new Uint8Array(Buffer.concat(page.parts)),
          rowBytesOf(c.schema, expected));
      }
      assert.equal(next, rows.length);
    }), { numRuns: 200 });
  });

  it('builders alive at once never share the writer one of them is given', () => {
    // A finished builder leaves its writer to the next; two unfinished ones must each keep their own.
    const schema = validateContainerDefinition({
      name: 'kept', type: 'TIME_SERIES', rowKey: 1,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
    }, limits);
    const codec = rowCodec(schema, 'wire');
    const rowsOf = (first: number) => Array.from({ length: 50 }, (_, i): Row => [first + i, first + i / 3]);
    const storeA = storeOf(schema, rowsOf(0));
    const storeB = storeOf(schema, rowsOf(1000));
    new EncodedRowsBuilder(codec).finish(); // leaves a writer to be taken
    const a = new EncodedRowsBuilder(codec);
    const b = new EncodedRowsBuilder(codec);
    const batchesA = [...storeA.scanBatches({ direction: 'asc' })];
    const batchesB = [...storeB.scanBatches({ direction: 'asc' })];
    for (let k = 0; k < Math.max(batchesA.length, batchesB.length); k++) {
      const batchA = batchesA[k];
      const batchB = batchesB[k];
      for (let n = 0; n < (batchA?.rowCount ?? 0); n++) a.add(batchA!.columns, n);
      for (let n = 0; n < (batchB?.rowCount ?? 0); n++) b.add(batchB!.columns, n);
    }
    const encodedA = a.finish();
    const c = new EncodedRowsBuilder(codec); // takes a's writer while b's rows are still to seal
    for (const batch of storeA.scanBatches({ direction: 'asc' })) c.addRange(batch.columns, 0, batch.rowCount);
    const encodedB = b.finish();
    const encodedC = c.finish();
    const all = (encoded: EncodedRows) => new Uint8Array(Buffer.concat(
      encoded.take(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).parts));
    assert.deepStrictEqual(all(encodedA), rowBytesOf(schema, rowsOf(0)));
    assert.deepStrictEqual(all(encodedB), rowBytesOf(schema, rowsOf(1000)));
    assert.deepStrictEqual(all(encodedC), rowBytesOf(schema, rowsOf(0)));
  });
});
