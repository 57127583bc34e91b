// COPY's binary format without a node: tuples cut out of CopyData however it is split, the
// header's checks, the errors that name the tuple and the column, and each column's reader.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  copyBinaryReader, PG_COPY_BINARY_SIGNATURE, PgCopyBinaryTuples, type PgBinaryTuple,
} from '../../../lib/pgwire/pg-copy-binary.ts';
import { PgError } from '../../../lib/pgwire/pg-errors.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';

function int16(n: number): Buffer { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; }
function int32(n: number): Buffer { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }

function header(flags = 0, extension = Buffer.alloc(0)): Buffer {
  return Buffer.concat([PG_COPY_BINARY_SIGNATURE, int32(flags), int32(extension.byteLength), extension]);
}

function tuple(fields: readonly (Buffer | null)[]): Buffer {
  return Buffer.concat([int16(fields.length), ...fields.flatMap((field) => (field === null ? [int32(-1)]
    : [int32(field.byteLength), field]))]);
}

function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (bytes.byteLength + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    out.push(bytes.subarray(from, point));
    from = point;
  }
  out.push(bytes.subarray(from));
  return out;
}

function readAll(columnCount: number, chunks: readonly Buffer[]): PgBinaryTuple[] {
  const reader = new PgCopyBinaryTuples(columnCount);
  const tuples: PgBinaryTuple[] = [];
  for (const chunk of chunks) reader.push(chunk, tuples);
  reader.end();
  return tuples;
}

function rejects(fn: () => unknown, state: string, where: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof PgError, String(error));
    assert.equal(error.fields.sqlState, state, error.fields.message);
    assert.match(error.fields.where ?? '', where);
    return true;
  });
}

const column = (type: ColumnSchema['type'], extra: Partial<ColumnSchema> = {}): ColumnSchema =>
  ({ name: 'c', type, ...extra }) as ColumnSchema;

describe('COPY binary format', () => {
  it('cuts the same tuples out of the data however CopyData splits it', () => {
    fc.assert(fc.property(
      fc.array(fc.array(fc.option(fc.uint8Array({ maxLength: 6 }), { nil: null }), { minLength: 2, maxLength: 2 }),
        { maxLength: 8 }),
      fc.uint8Array({ maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 }),
      (rows, extension, at) => {
        const fields = rows.map((row) => row.map((field) => (field === null ? null : Buffer.from(field))));
        const bytes = Buffer.concat([header(0, Buffer.from(extension)), ...fields.map(tuple), int16(-1)]);
        const tuples = readAll(2, cut(bytes, at));
        assert.deepEqual(tuples.map((t) => t.tuple), fields.map((_f, i) => i + 1));
        assert.deepEqual(tuples.map((t) => t.fields.map((f) => (f === null ? null : [...f]))),
          fields.map((row) => row.map((f) => (f === null ? null : [...f]))));
      }));
  });

  it('refuses a wrong header, a wrong field count, a missing trailer and data after it, naming the tuple', () => {
    const one = tuple([int32(1)]);
    rejects(() => readAll(1, [Buffer.from('PGCOPY\nxx')]), '22P04', /line 1/);
    rejects(() => readAll(1, [header(1 << 16), one, int16(-1)]), '22P04', /line 1/);
    rejects(() => readAll(1, [header(1 << 20), one, int16(-1)]), '22P04', /line 1/);
    rejects(() => readAll(1, [header(), one, tuple([int32(1), int32(2)]), int16(-1)]), '22P04', /^COPY, line 2$/);
    rejects(() => readAll(1, [header(), one, one]), '22P04', /line 3/);
    rejects(() => readAll(1, [header(), one.subarray(0, 5)]), '22P04', /line 1/);
    rejects(() => readAll(1, [header(), one, int16(-1), one]), '22P04', /line 2/);
    rejects(() => readAll(1, [header(), Buffer.concat([int16(1), int32(-7)])]), '22P04', /line 1/);
    rejects(() => readAll(1, []), '22P04', /line 1/);
    assert.deepEqual(readAll(1, [header(0xffff), one, int16(-1)]).length, 1);
  });

  it('reads each type as the text format does, with its range and size errors naming the column', () => {
    const long = Buffer.alloc(8);
    long.writeBigInt64BE(-(2n ** 63n));
    assert.equal(copyBinaryReader(column('LONG'))(long, 1), -(2n ** 63n));
    assert.equal(copyBinaryReader(column('LONG'))(int32(-5), 1), -5n);
    assert.equal(copyBinaryReader(column('SHORT'))(int16(-32768), 1), -32768);
    assert.equal(copyBinaryReader(column('INTEGER'))(int16(7), 1), 7);
    rejects(() => copyBinaryReader(column('BYTE'))(int16(128), 4), '22003', /^COPY, line 4, column c$/);
    rejects(() => copyBinaryReader(column('INTEGER'))(long, 2), '22003', /line 2, column c/);
    rejects(() => copyBinaryReader(column('INTEGER'))(Buffer.alloc(3), 2), '22P03', /line 2, column c/);
    const float = Buffer.alloc(4);
    float.writeFloatBE(0.1);
    assert.equal(copyBinaryReader(column('DOUBLE'))(float, 1), Math.fround(0.1));
    const double = Buffer.alloc(8);
    double.writeDoubleBE(0.1);
    assert.equal(copyBinaryReader(column('FLOAT'))(double, 1), Math.fround(0.1));
    assert.equal(copyBinaryReader(column('BOOL'))(Buffer.of(1), 1), true);
    rejects(() => copyBinaryReader(column('BOOL'))(Buffer.of(1, 0), 9), '22P03', /line 9, column c/);
    const time = Buffer.alloc(8);
    time.writeBigInt64BE(1_123_456n); // 2000-01-01 00:00:01.123456
    assert.equal(copyBinaryReader(column('TIMESTAMP'))(time, 1), 946_684_801_123);
    assert.equal(copyBinaryReader(column('TIMESTAMP', { timePrecision: 'MICROSECOND' }))(time, 1), 946_684_801_123_456n);
    assert.equal(copyBinaryReader(column('TIMESTAMP', { timePrecision: 'NANOSECOND' }))(time, 1), 946_684_801_123_456_000n);
    time.writeBigInt64BE(-(2n ** 63n)); // PostgreSQL's -infinity
    rejects(() => copyBinaryReader(column('TIMESTAMP'))(time, 3), '22003', /line 3, column c/);
    assert.equal(copyBinaryReader(column('STRING'))(Buffer.from('é日本'), 1), 'é日本');
    rejects(() => copyBinaryReader(column('STRING'))(Buffer.of(0xc3), 5), '22021', /line 5, column c/);
    assert.deepEqual(copyBinaryReader(column('BLOB'))(Buffer.of(0, 255), 1), new Uint8Array([0, 255]));
  });
});
