// Store values as PostgreSQL text and binary, and parameters back: every store type, NaN and
// ±Infinity, timestamps at each precision, and what an untyped text parameter is read as.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { pgBinaryOf, pgParameter, pgTextOf, pgTypeOf, PgOid } from '../../../lib/pgwire/pg-types.ts';

describe('pg-types', () => {
  it('describes each store type with its PostgreSQL OID', () => {
    assert.deepEqual(['LONG', 'INTEGER', 'SHORT', 'BYTE', 'FLOAT', 'DOUBLE', 'BOOL', 'STRING', 'TIMESTAMP',
      'TIMESTAMP(6)', 'BLOB'].map((type) => pgTypeOf(type as 'LONG').oid), [20, 23, 21, 21, 700, 701, 16, 25, 1184, 1184, 17]);
    assert.equal(pgTypeOf('TIMESTAMP(6)').typmod, 6);
  });

  it('writes text as PostgreSQL does', () => {
    assert.equal(pgTextOf('LONG', 9007199254740993n), '9007199254740993');
    assert.equal(pgTextOf('DOUBLE', NaN), 'NaN');
    assert.equal(pgTextOf('DOUBLE', -Infinity), '-Infinity');
    assert.equal(pgTextOf('FLOAT', Math.fround(0.1)), '0.1');
    assert.equal(pgTextOf('BOOL', true), 't');
    assert.equal(pgTextOf('BLOB', Uint8Array.of(0, 255)), '\\x00ff');
    assert.equal(pgTextOf('TIMESTAMP', Date.UTC(2024, 0, 2, 3, 4, 5, 600)), '2024-01-02 03:04:05.6+00');
    assert.equal(pgTextOf('TIMESTAMP(6)', 1_704_164_645_000_001n), '2024-01-02 03:04:05.000001+00');
    assert.equal(pgTextOf('TIMESTAMP(9)', -1n), '1969-12-31 23:59:59.999999999+00');
  });

  it('writes a TIMESTAMP (ms) as toISOString gives it, the date made once per day', () => {
    const iso = (ms: number) => {
      const text = new Date(ms).toISOString();
      const fraction = text.slice(20, 23).replace(/0+$/, '');
      return `${text.slice(0, 10)} ${text.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}+00`;
    };
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.integer({ min: 0, max: 3 }),
      (ms, nearby) => {
        for (const value of [ms, ms + nearby, ms - nearby * 86_400_000].filter((v) => v >= 0 && v <= 253_402_300_799_999)) {
          assert.equal(pgTextOf('TIMESTAMP', value), iso(value));
        }
      }));
    assert.equal(pgTextOf('TIMESTAMP', 253_402_300_799_999), '9999-12-31 23:59:59.999+00');
    assert.equal(pgTextOf('TIMESTAMP', 0), '1970-01-01 00:00:00+00');
    assert.equal(pgTextOf('TIMESTAMP', 86_399_990), '1970-01-01 23:59:59.99+00');
  });

  it('writes binary: integers big-endian, floats IEEE, times as µs since 2000', () => {
    assert.equal(pgBinaryOf('LONG', -2n).readBigInt64BE(0), -2n);
    assert.equal(pgBinaryOf('SHORT', -3).readInt16BE(0), -3);
    assert.ok(Number.isNaN(pgBinaryOf('DOUBLE', NaN).readDoubleBE(0)));
    assert.equal(pgBinaryOf('FLOAT', Infinity).readFloatBE(0), Infinity);
    assert.equal(pgBinaryOf('TIMESTAMP', 946_684_800_001).readBigInt64BE(0), 1000n);
    assert.equal(pgBinaryOf('TIMESTAMP(9)', 946_684_800_000_001_999n).readBigInt64BE(0), 1n);
  });

  it('reads parameters by declared type, in text and binary', () => {
    assert.deepEqual(pgParameter(PgOid.int8, false, Buffer.from('9007199254740993')), { type: 'LONG', value: 9007199254740993n });
    assert.deepEqual(pgParameter(PgOid.bool, false, Buffer.from('on')), { type: 'BOOL', value: true });
    assert.deepEqual(pgParameter(PgOid.text, false, Buffer.from('42')), { type: 'STRING', value: '42' });
    assert.deepEqual(pgParameter(PgOid.timestamptz, false, Buffer.from('2024-01-02 03:04:05.123456+00')),
      { type: 'TIMESTAMP(6)', value: 1_704_164_645_123_456n });
    assert.deepEqual(pgParameter(PgOid.int4, true, Buffer.from([0, 0, 1, 0])), { type: 'INTEGER', value: 256 });
    assert.deepEqual(pgParameter(0, true, Buffer.from([1, 2])), { type: 'BLOB', value: Uint8Array.of(1, 2) });
    assert.throws(() => pgParameter(PgOid.int4, false, Buffer.from('x')), { code: 'SQL_PROC_VALUE_SYNTAX_ERROR' });
    assert.throws(() => pgParameter(PgOid.int8, true, Buffer.from([1])), { code: 'PROTOCOL_ERROR' });
  });

  it('reads an untyped text parameter by its shape', () => {
    assert.deepEqual(pgParameter(0, false, Buffer.from('-12')), { type: 'LONG', value: -12n });
    assert.deepEqual(pgParameter(0, false, Buffer.from('1.5e3')), { type: 'DOUBLE', value: 1500 });
    assert.deepEqual(pgParameter(0, false, Buffer.from('true')), { type: 'BOOL', value: true });
    assert.deepEqual(pgParameter(0, false, Buffer.from('2024-01-02T03:04:05.000+01:00')),
      { type: 'TIMESTAMP', value: Date.UTC(2024, 0, 2, 2, 4, 5) });
    assert.deepEqual(pgParameter(0, false, Buffer.from('h1')), { type: 'STRING', value: 'h1' });
    assert.deepEqual(pgParameter(0, false, null), { type: 'UNKNOWN', value: null });
  });

  it('round-trips every double and timestamp through binary and back', () => {
    fc.assert(fc.property(fc.double(), (value) => {
      const read = pgParameter(PgOid.float8, true, pgBinaryOf('DOUBLE', value));
      assert.ok(Object.is(read.value, value));
    }));
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 52n), max: 2n ** 52n }), (us) => {
      const read = pgParameter(PgOid.timestamptz, true, pgBinaryOf('TIMESTAMP(6)', us));
      assert.equal(BigInt(read.value as bigint | number) * (read.type === 'TIMESTAMP' ? 1000n : 1n), us);
    }));
  });
});
