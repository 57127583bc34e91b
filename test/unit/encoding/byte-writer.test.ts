import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';

const corruption = (error: unknown) => isStorageError(error, 'CORRUPTION');

type Op =
  | {
    kind: 'u8' | 'u16' | 'u32' | 'i8' | 'i16' | 'i32' | 'f32' | 'f64' | 'varuint' | 'u64Number';
    value: number;
  }
  | { kind: 'u64' | 'i64'; value: bigint }
  | { kind: 'string'; value: string }
  | { kind: 'bytes'; value: Uint8Array };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.integer({ min: 0, max: 0xff }).map((value) => ({ kind: 'u8' as const, value })),
  fc.integer({ min: 0, max: 0xffff }).map((value) => ({ kind: 'u16' as const, value })),
  fc.integer({ min: 0, max: 0xffff_ffff }).map((value) => ({ kind: 'u32' as const, value })),
  fc.integer({ min: -0x80, max: 0x7f }).map((value) => ({ kind: 'i8' as const, value })),
  fc.integer({ min: -0x8000, max: 0x7fff }).map((value) => ({ kind: 'i16' as const, value })),
  fc.integer().map((value) => ({ kind: 'i32' as const, value })),
  fc.float().map((value) => ({ kind: 'f32' as const, value })),
  fc.double().map((value) => ({ kind: 'f64' as const, value })),
  fc.maxSafeNat().map((value) => ({ kind: 'varuint' as const, value })),
  fc.maxSafeNat().map((value) => ({ kind: 'u64Number' as const, value })),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => ({ kind: 'u64' as const, value })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
    .map((value) => ({ kind: 'i64' as const, value })),
  fc.string({ unit: 'binary', maxLength: 80 }).map((value) => ({ kind: 'string' as const, value })),
  fc.uint8Array({ maxLength: 40 }).map((value) => ({ kind: 'bytes' as const, value })),
);

function write(writer: ByteWriter, o: Op): void {
  switch (o.kind) {
    case 'u64': case 'i64': writer[o.kind](o.value); return;
    case 'string': writer.string(o.value); return;
    case 'bytes': writer.varuint(o.value.length); writer.bytes(o.value); return;
    default: writer[o.kind](o.value);
  }
}

function read(reader: ByteReader, o: Op): unknown {
  switch (o.kind) {
    case 'string': return reader.string();
    case 'bytes': return reader.bytes(reader.varuint());
    default: return reader[o.kind]();
  }
}

describe('ByteWriter and ByteReader', () => {
  it('round-trip any sequence of values, growing from one byte', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
      const writer = new ByteWriter(1);
      for (const o of ops) write(writer, o);
      const reader = new ByteReader(writer.finish());
      for (const o of ops) assert.deepEqual(read(reader, o), o.value);
      reader.expectEnd();
      assert.equal(reader.remainingBytes, 0);
      assert.equal(reader.offsetBytes, writer.lengthBytes);
    }), { numRuns: 1000 });
  });

  it('a reader past any end, at any cut, throws CORRUPTION and nothing else', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 10 }), fc.nat(), (ops, cut) => {
      const writer = new ByteWriter(16);
      for (const o of ops) write(writer, o);
      const bytes = writer.finish();
      const reader = new ByteReader(bytes.subarray(0, cut % bytes.length));
      assert.throws(() => {
        for (const o of ops) read(reader, o);
        reader.expectEnd();
      }, corruption);
    }), { numRuns: 1000 });
  });

  it('varuint takes the shortest form: 1 byte below 128, 8 bytes at 2^53 − 1', () => {
    const sizes = new Map([[0, 1], [127, 1], [128, 2], [16383, 2], [16384, 3],
      [Number.MAX_SAFE_INTEGER, 8]]);
    for (const [value, sizeBytes] of sizes) {
      const writer = new ByteWriter(1);
      writer.varuint(value);
      assert.equal(writer.lengthBytes, sizeBytes, String(value));
    }
  });

  it('malformed varuints are CORRUPTION', () => {
    for (const bytes of [[0x80, 0x00], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
      [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], [0x80]]) {
      assert.throws(() => new ByteReader(new Uint8Array(bytes)).varuint(), corruption);
    }
  });

  it('u64Number beyond 2^53 − 1 is CORRUPTION', () => {
    const writer = new ByteWriter(8);
    writer.u64(2n ** 53n);
    assert.throws(() => new ByteReader(writer.finish()).u64Number(), corruption);
  });

  it('trailing bytes and invalid UTF-8 are CORRUPTION', () => {
    const reader = new ByteReader(new Uint8Array([1, 2]));
    reader.u8();
    assert.throws(() => reader.expectEnd(), corruption);
    for (const bytes of [[2, 0xc3, 0x28], [1, 0xff], [3, 0xed, 0xa0, 0x80]]) {
      assert.throws(() => new ByteReader(new Uint8Array(bytes)).string(), corruption);
    }
  });

  it('strings keep a leading BOM, astral characters and long non-ASCII text', () => {
    const texts = ['\uFEFFbom', '😀', 'é'.repeat(100), 'a'.repeat(42), 'a'.repeat(43), ''];
    const writer = new ByteWriter(4);
    for (const text of texts) writer.string(text);
    const reader = new ByteReader(writer.finish());
    for (const text of texts) assert.equal(reader.string(), text);
    reader.expectEnd();
  });

  it('reads from a Buffer or an offset view; bytes() are plain, independent copies', () => {
    const backing = Buffer.from([9, 9, 3, 1, 2, 3]);
    const reader = new ByteReader(backing.subarray(2));
    const bytes = reader.bytes(reader.u8());
    assert.equal(Object.getPrototypeOf(bytes), Uint8Array.prototype);
    backing[3] = 7;
    assert.deepEqual(bytes, new Uint8Array([1, 2, 3]));
  });

  it('finish is a view; reset starts over in the same memory', () => {
    const writer = new ByteWriter(8);
    writer.u32(1);
    const first = writer.finish();
    writer.reset();
    writer.u32(2);
    assert.deepEqual([...first], [2, 0, 0, 0]);
    assert.equal(writer.lengthBytes, 4);
  });

  it('growing past capacityBytesMax is LIMIT_EXCEEDED', () => {
    const writer = new ByteWriter(4, { capacityBytesMax: 16 });
    writer.bytes(new Uint8Array(16));
    assert.throws(() => writer.u8(1), (error: unknown) => isStorageError(error, 'LIMIT_EXCEEDED'));
  });
});
