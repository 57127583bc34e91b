// Framing: the header as drawn in lib/protocol/frame.ts, frames cut from a stream however it is
// chunked, and every way a stream can fail to be this protocol (foreign bytes, another version,
// an impossible length, an oversized frame, an unknown status) refused with a StorageError.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError } from '../../../lib/base/errors.ts';
import {
  FRAME_HEADER_BYTES, FRAME_MAGIC, FrameReader, FrameStatus, PROTOCOL_VERSION, encodeFrame,
  type Frame,
} from '../../../lib/protocol/frame.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';

const MAX = 1024 * 1024;

function frameOf(
  body: Uint8Array,
  requestId = 1,
  type: MessageType = MessageType.PING,
): Uint8Array {
  return encodeFrame({ messageType: type, status: FrameStatus.REQUEST, requestId },
    (writer) => writer.bytes(body), MAX).slice();
}

function readAll(reader: FrameReader): Frame[] {
  const frames: Frame[] = [];
  for (let frame = reader.next(); frame !== undefined; frame = reader.next()) frames.push(frame);
  return frames;
}

function header(fields: { length?: number; magic?: number; version?: number; status?: number }) {
  const bytes = new Uint8Array(FRAME_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, fields.length ?? 9, true);
  view.setUint16(4, fields.magic ?? FRAME_MAGIC, true);
  view.setUint8(6, fields.version ?? PROTOCOL_VERSION);
  view.setUint8(7, MessageType.PING);
  view.setUint8(8, fields.status ?? FrameStatus.REQUEST);
  view.setUint32(9, 77, true);
  return bytes;
}

const code = (expected: string) => (error: unknown) => isStorageError(error) &&
  error.code === expected;

describe('frame: layout', () => {
  it('draws the header: length, magic, version, type, status, request id, body', () => {
    const bytes = frameOf(new Uint8Array([0xaa, 0xbb]), 0x01020304, MessageType.ROW_GET);
    const view = new DataView(bytes.buffer);
    assert.equal(bytes.length, FRAME_HEADER_BYTES + 2);
    assert.equal(view.getUint32(0, true), 9 + 2);
    assert.deepEqual([...bytes.subarray(4, 6)], [0x53, 0x54]); // "ST" on the wire
    assert.equal(bytes[6], PROTOCOL_VERSION);
    assert.equal(bytes[7], MessageType.ROW_GET);
    assert.equal(bytes[8], FrameStatus.REQUEST);
    assert.equal(view.getUint32(9, true), 0x01020304);
    assert.deepEqual([...bytes.subarray(13)], [0xaa, 0xbb]);
  });

  it('refuses to encode a frame beyond the limit, naming the message', () => {
    assert.throws(() => encodeFrame({ messageType: MessageType.ROW_PUT, status: 0, requestId: 1 },
      (writer) => writer.bytes(new Uint8Array(2000)), 1024),
    (error: unknown) => code('LIMIT_EXCEEDED')(error) && /ROW_PUT/.test((error as Error).message));
  });
});

describe('frame: reader', () => {
  it('cuts frames from a stream however it is chunked', () => {
    const bodies = fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 6 });
    fc.assert(fc.property(bodies, fc.array(fc.nat(2000), { maxLength: 8 }), (list, cuts) => {
      const stream = Buffer.concat(list.map((body, i) => frameOf(body, i + 1)));
      const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))]
        .sort((a, b) => a - b);
      const reader = new FrameReader(MAX);
      const frames: Frame[] = [];
      let start = 0;
      for (const point of [...points, stream.length]) {
        reader.push(stream.subarray(start, point));
        start = point;
        frames.push(...readAll(reader));
      }
      assert.equal(frames.length, list.length);
      frames.forEach((frame, i) => {
        assert.equal(frame.requestId, i + 1);
        assert.deepEqual([...frame.body], [...list[i]!]);
      });
      assert.equal(reader.bufferedByteCount, 0);
    }), { numRuns: 300 });
  });

  it('cuts frames from reads into one reused buffer, keeping what is not yet whole', () => {
    // As a socket reading into one buffer (net's onread): each read overwrites the last, so the
    // frames a read completes are taken at once and the rest kept (keepBuffered) before the next.
    const bodies = fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 6 });
    fc.assert(fc.property(bodies, fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1 }),
      (list, readSizes) => {
        const stream = Buffer.concat(list.map((body, i) => frameOf(body, i + 1)));
        const shared = new Uint8Array(97);
        const reader = new FrameReader(MAX);
        const received: Array<{ requestId: number; body: number[] }> = [];
        for (let start = 0, r = 0; start < stream.length; r++) {
          const sizeBytes = Math.min(readSizes[r % readSizes.length]!, stream.length - start);
          shared.set(stream.subarray(start, start + sizeBytes));
          start += sizeBytes;
          reader.push(shared.subarray(0, sizeBytes));
          for (const frame of readAll(reader)) {
            received.push({ requestId: frame.requestId, body: [...frame.body] });
          }
          reader.keepBuffered();
          shared.fill(0xee); // the next read's bytes
        }
        assert.deepEqual(received, list.map((body, i) => ({ requestId: i + 1, body: [...body] })));
        assert.equal(reader.bufferedByteCount, 0);
      }), { numRuns: 300 });
  });

  it('waits for a frame split one byte at a time', () => {
    const bytes = frameOf(new Uint8Array([1, 2, 3]));
    const reader = new FrameReader(MAX);
    for (let i = 0; i < bytes.length - 1; i++) {
      reader.push(bytes.subarray(i, i + 1));
      assert.equal(reader.next(), undefined);
    }
    reader.push(bytes.subarray(bytes.length - 1));
    assert.deepEqual([...reader.next()!.body], [1, 2, 3]);
  });

  it('refuses foreign bytes (an HTTP request) as a protocol error', () => {
    const reader = new FrameReader(MAX);
    reader.push(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.throws(() => reader.next(), code('PROTOCOL_ERROR'));
  });

  it('refuses another protocol version, naming both', () => {
    const reader = new FrameReader(MAX);
    reader.push(header({ version: 9 }));
    assert.throws(() => reader.next(), (error: unknown) => code('PROTOCOL_ERROR')(error) &&
      /version 9.*version 1/.test((error as Error).message));
  });

  it('refuses a length shorter than the header, and an unknown status', () => {
    const short = new FrameReader(MAX);
    short.push(header({ length: 3 }));
    assert.throws(() => short.next(), code('PROTOCOL_ERROR'));
    const status = new FrameReader(MAX);
    status.push(header({ status: 3 }));
    assert.throws(() => status.next(), code('PROTOCOL_ERROR'));
  });

  it('refuses an oversized frame from its header, before its body arrives', () => {
    const reader = new FrameReader(1000);
    reader.push(header({ length: 5000 }));
    assert.throws(() => reader.next(), (error: unknown) => code('LIMIT_EXCEEDED')(error) &&
      /5004 bytes.*1000/.test((error as Error).message));
  });

  it('takes larger frames once its limit is raised (after authentication)', () => {
    const reader = new FrameReader(100);
    reader.limitSet(MAX);
    reader.push(frameOf(new Uint8Array(500)));
    assert.equal(reader.next()!.body.length, 500);
  });

  it('never fails on random bytes with anything but a StorageError', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      const reader = new FrameReader(MAX);
      reader.push(bytes);
      try {
        readAll(reader);
      } catch (error) {
        assert.ok(error instanceof StorageError, String(error));
        assert.ok(['PROTOCOL_ERROR', 'LIMIT_EXCEEDED'].includes(error.code), error.code);
      }
    }), { numRuns: 500 });
  });
});
