// The row-free encoder (RowCodec.writeColumnRow, EncodedRows): rows encoded straight from a row
// block's columns, as a plain SELECT * sends them, must be byte for byte what the row codec writes
// for the rows those columns stand for, and pages cut from them must be the row path's pages.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { encodedOf, storeOf } from './encoded-rows-helpers.ts';
import { rowsArbitrary, schemaArbitrary } from './row-arbitraries.ts';

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
});
