import { geometryValueOf } from '../../../lib/geometry/geometry-value.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId, containerId } from '../../../lib/base/ids.ts';
import { decodeLargeValue, encodeLargeValueBlocks } from '../../../lib/block/block-format.ts';
import {
  LARGE_VALUE_BLOCK_HEADER_BYTES, LargeValue, largeValueBlockCount, type LargeValueRef,
} from '../../../lib/block/large-value.ts';
import {
  blockLayout, largeValueKindOf, varPayloadBytes, type ColumnLayout,
} from '../../../lib/block/row-block-layout.ts';
import {
  ARRAY_ELEMENT_TYPES, TIMESTAMP_NS_MAX, type Value,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';

const BLOCK_SIZE_BYTES = 32 * 1024;
const OWNER = { containerId: containerId(42), blockSizeBytes: BLOCK_SIZE_BYTES };

/** Every variable-length column kind: BLOB, STRING, GEOMETRY and each array element type. */
const columnSchemas: ColumnSchema[] = [
  { name: 'b', type: 'BLOB', array: false, notNull: false },
  { name: 's', type: 'STRING', array: false, notNull: false },
  { name: 'g', type: 'GEOMETRY', array: false, notNull: false },
  ...ARRAY_ELEMENT_TYPES.filter((type) => type !== 'TIMESTAMP').map(
    (type): ColumnSchema => ({ name: `a${type}`, type, array: true, notNull: false })),
  ...(['MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const).map((timePrecision): ColumnSchema =>
    ({ name: `t${timePrecision}`, type: 'TIMESTAMP', array: true, notNull: false, timePrecision })),
];
const schema: ContainerSchema = {
  name: 'kinds', type: 'COLLECTION', rowKeyColumnCount: 0, indexes: [], schemaVersion: 1,
  columns: columnSchemas,
};
const columns = blockLayout(schema).columns;

/** A value of column c with about `count` elements or bytes, derived from a seed. */
function valueOf(column: ColumnLayout, count: number, seed: number): Value {
  const at = (i: number) => (i * 2_654_435_761 + seed) >>> 0;
  if (!column.array) {
    if (column.type === 'BLOB') return Uint8Array.from({ length: count }, (_, i) => at(i) & 255);
    if (column.type === 'GEOMETRY') {
      // A LINESTRING of about count / 16 points: its binary form is about count bytes.
      const points = Array.from({ length: Math.max(2, count >> 4) }, (_, i) => [at(i) / 7, i]);
      return geometryValueOf({ kind: 'LINESTRING', srid: -1, dimension: 2, positions: points });
    }
    const text = Array.from({ length: count }, (_, i) => String.fromCharCode(32 + (at(i) % 500)));
    // A lone surrogate now and then: stored as UTF-16LE.
    return seed % 3 === 0 ? `${text.join('')}\uD800` : text.join('');
  }
  const elements = Array.from({ length: count }, (_, i) => {
    const n = at(i);
    switch (column.type) {
      case 'BOOL': return n % 2 === 0;
      case 'STRING': return `s${n % 1000}`;
      case 'BYTE': return (n % 256) - 128;
      case 'SHORT': return (n % 65536) - 32768;
      case 'INTEGER': return n | 0;
      case 'LONG': return BigInt(n) * -2_000_000_011n; // within int64
      case 'FLOAT': return Math.fround(n / 7);
      case 'DOUBLE': return n / 3;
      default:
        if (column.timePrecision === 'NANOSECOND') return i === 0 ? TIMESTAMP_NS_MAX : BigInt(n);
        return column.bigintTime ? BigInt(n) * 1000n : n;
    }
  });
  return elements as Value;
}

function largeValueOf(column: ColumnLayout, value: Value): LargeValue {
  assert.ok(value !== null);
  return new LargeValue(largeValueKindOf(column, value), varPayloadBytes(column, value), value);
}

const largeArbitrary = fc.record({
  c: fc.nat(columns.length - 1),
  count: fc.oneof(fc.integer({ min: 20, max: 2000 }), fc.integer({ min: 2000, max: 40_000 })),
  seed: fc.nat(),
}, { noNullPrototype: true }).map(({ c, count, seed }) => {
  const column = columns[c]!;
  return { column, large: largeValueOf(column, valueOf(column, count, seed)) };
});

function refOf(large: LargeValue): LargeValueRef {
  return {
    kind: large.kind, sizeBytes: large.sizeBytes, firstBlockId: large.blockIds[0],
    blockCount: largeValueBlockCount(large.sizeBytes, BLOCK_SIZE_BYTES),
    columnIndex: 0, rowIndex: 0,
  };
}

const corruption = (error: unknown) => isStorageError(error, 'CORRUPTION');

describe('block-format large values', () => {
  it('round-trips every kind over one or many blocks, with or without block ids', () => {
    fc.assert(fc.property(largeArbitrary, fc.boolean(), ({ large }, placed) => {
      const blockCount = largeValueBlockCount(large.sizeBytes, BLOCK_SIZE_BYTES);
      if (placed) large.blockIds = Array.from({ length: blockCount }, (_, i) => blockId(900 - i));
      const images = encodeLargeValueBlocks(large, OWNER);
      assert.equal(images.length, blockCount);
      for (const image of images) assert.equal(image.byteLength, BLOCK_SIZE_BYTES);
      assert.deepStrictEqual(decodeLargeValue(images, refOf(large)), large.value);
    }), { numRuns: 150 });
  });

  it('reports any flipped byte of a chain, or a chain out of order, as CORRUPTION', () => {
    fc.assert(fc.property(largeArbitrary, fc.nat(), fc.integer({ min: 1, max: 255 }),
      ({ large }, position, flip) => {
        large.blockIds = Array.from({ length: largeValueBlockCount(large.sizeBytes,
          BLOCK_SIZE_BYTES) }, (_, i) => blockId(i * 3 + 1));
        const images = encodeLargeValueBlocks(large, OWNER);
        const damaged = images.map((image) => image.slice());
        const index = position % images.length;
        const usedBytes = index < images.length - 1 ? BLOCK_SIZE_BYTES
          : LARGE_VALUE_BLOCK_HEADER_BYTES + large.sizeBytes -
            (images.length - 1) * (BLOCK_SIZE_BYTES - LARGE_VALUE_BLOCK_HEADER_BYTES);
        damaged[index]![(position >> 4) % usedBytes]! ^= flip;
        assert.throws(() => decodeLargeValue(damaged, refOf(large)), corruption);
        if (images.length > 1) {
          assert.throws(() => decodeLargeValue(images.slice(1)), corruption);
          assert.throws(() => decodeLargeValue([...images].reverse()), corruption);
          assert.throws(() => decodeLargeValue(images.slice(0, -1)), corruption);
        }
      }), { numRuns: 150 });
  });

  it('rejects a chain that does not match the reference naming it', () => {
    const column = columns[0]!;
    const large = largeValueOf(column, valueOf(column, 70_000, 5));
    large.blockIds = [blockId(1), blockId(2), blockId(3)];
    const images = encodeLargeValueBlocks(large, OWNER);
    const ref = refOf(large);
    assert.deepStrictEqual(decodeLargeValue(images, ref), large.value);
    for (const wrong of [{ sizeBytes: ref.sizeBytes - 1 }, { firstBlockId: blockId(2) },
      { kind: largeValueKindOf(columns[1]!, 'x') }, { blockCount: 4 }]) {
      assert.throws(() => decodeLargeValue(images, { ...ref, ...wrong }), corruption);
    }
    assert.throws(() => decodeLargeValue([]), corruption);
    assert.throws(() => decodeLargeValue([images[0]!.subarray(0, 16)]), corruption);
  });
});
