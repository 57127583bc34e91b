import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { generation, lsn, partitionId } from '../../../lib/base/ids.ts';
import { crc32c } from '../../../lib/encoding/crc32c.ts';
import {
  decodeXlogFileHeaderPayload, decodeXlogRecordHeader, encodeXlogFileHeaderRecord, encodeXlogRecord,
  isXlogRecordType, XLOG_FILE_HEADER_RECORD_BYTES, XLOG_FORMAT_VERSION, XLOG_LSN_MAX,
  XLOG_RECORD_HEADER_BYTES, xlogRecordCrc32c, xlogRecordTypeName, XlogRecordType,
} from '../../../wal/xlog-format.ts';

describe('xlog-format', () => {
  it('lays a record out as | lengthBytes | crc32c | lsn | type | payload |, little-endian', () => {
    const bytes = new Uint8Array(XLOG_RECORD_HEADER_BYTES + 3);
    const endBytes = encodeXlogRecord(bytes, 0,
      { lsn: lsn(0x0102030405060708n), type: XlogRecordType.COMMIT,
        payload: Uint8Array.of(9, 8, 7) });
    assert.equal(endBytes, 20);
    assert.deepEqual([...bytes.subarray(0, 4)], [3, 0, 0, 0]);
    assert.deepEqual([...bytes.subarray(8, 16)], [8, 7, 6, 5, 4, 3, 2, 1]);
    assert.equal(bytes[16], 2);
    assert.deepEqual([...bytes.subarray(17)], [9, 8, 7]);
    // The checksum covers lsn, type and payload: bytes 8 to the end.
    const storedCrc = Buffer.from(bytes).readUInt32LE(4);
    assert.equal(storedCrc, crc32c(bytes.subarray(8)));
  });

  it('round-trips any record', () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 0n, max: XLOG_LSN_MAX }),
      fc.integer({ min: 2, max: 7 }),
      fc.uint8Array({ maxLength: 300 }),
      fc.nat({ max: 50 }),
      (lsnValue, type, payload, offsetBytes) => {
        assert(isXlogRecordType(type));
        const bytes = new Uint8Array(offsetBytes + XLOG_RECORD_HEADER_BYTES + payload.length);
        encodeXlogRecord(bytes, offsetBytes, { lsn: lsn(lsnValue), type, payload });
        const header = decodeXlogRecordHeader(bytes, offsetBytes);
        const stored = bytes.subarray(offsetBytes + XLOG_RECORD_HEADER_BYTES);
        assert.deepEqual(
          { ...header },
          { payloadSizeBytes: payload.length, crc32c: xlogRecordCrc32c(bytes, offsetBytes, stored),
            lsn: lsnValue, type },
        );
        assert.deepEqual(stored, payload);
      },
    ));
  });

  it('detects any single flipped bit after the length field', () => {
    fc.assert(fc.property(
      fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.nat({ max: 7 }),
      (payload, position, bit) => {
        const bytes = new Uint8Array(XLOG_RECORD_HEADER_BYTES + payload.length);
        encodeXlogRecord(bytes, 0, { lsn: lsn(5n), type: XlogRecordType.DROP_INDEX, payload });
        const index = 4 + (position % (bytes.length - 4));
        bytes[index]! ^= 1 << bit;
        const header = decodeXlogRecordHeader(bytes, 0);
        const crc = xlogRecordCrc32c(bytes, 0, bytes.subarray(XLOG_RECORD_HEADER_BYTES));
        assert.notEqual(crc, header.crc32c);
      }));
  });

  it('round-trips a FILE_HEADER whose lsn is the previous record', () => {
    const fileHeader = {
      formatVersion: XLOG_FORMAT_VERSION, partitionId: partitionId(4095),
      generation: generation(70_000), blockSizeBytes: 32 * 1024 * 1024,
    };
    const record = encodeXlogFileHeaderRecord(fileHeader, lsn(41n));
    assert.equal(record.length, XLOG_FILE_HEADER_RECORD_BYTES);
    const header = decodeXlogRecordHeader(record, 0);
    assert.equal(header.type, XlogRecordType.FILE_HEADER);
    assert.equal(header.lsn, 41n);
    const payload = record.subarray(XLOG_RECORD_HEADER_BYTES);
    assert.equal(header.crc32c, xlogRecordCrc32c(record, 0, payload));
    assert.deepEqual(decodeXlogFileHeaderPayload(payload), fileHeader);
  });

  it('names the record types', () => {
    assert.equal(xlogRecordTypeName(XlogRecordType.CREATE_CONTAINER), 'CREATE_CONTAINER');
    assert.equal(xlogRecordTypeName(9), 'UNKNOWN(9)');
    assert.equal(isXlogRecordType(0), false);
    assert.equal(isXlogRecordType(8), false);
    assert.deepEqual(Object.values(XlogRecordType), [1, 2, 3, 4, 5, 6, 7]);
  });
});
