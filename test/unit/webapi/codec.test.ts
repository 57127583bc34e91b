// The value codecs: LONG-exact JSON bodies, timestamps in and out (zones, 6 and 9 digits), the
// input conversions of both readings, and a property: every value of every column type written
// by the encoder is read back by the decoder as the same value.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ColumnType, Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { parseJsonBody, quoteLongIntegers } from '../../../lib/webapi/codec/json-body.ts';
import {
  formatTimestampMs, formatTimestampPrecise, isoTextOfMs, parseTimestampMs, parseTimestampPrecise,
} from '../../../lib/webapi/codec/timestamp-text.ts';
import { decodeRows, ValueDecoder } from '../../../lib/webapi/codec/value-decode.ts';
import { ValueEncoder } from '../../../lib/webapi/codec/value-encode.ts';
import { TIME_ZONE_UTC } from '../../../lib/webapi/config/time-zone.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';

const column = (type: ColumnType, extra: Partial<ColumnSchema> = {}): ColumnSchema =>
  ({ name: 'c', type, array: false, notNull: false, ...extra });

function badRequest(run: () => unknown, message: string | RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof WebApiError);
    assert.equal(error.status, 400);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

describe('JSON bodies', () => {
  it('keeps integers of 16 digits or more exact, outside strings only', () => {
    assert.equal(quoteLongIntegers('[9223372036854775807, "1234567890123456", -1234567890123456,' +
      ' 1.5e300, 12]'), '["9223372036854775807", "1234567890123456", "-1234567890123456",' +
      ' 1.5e300, 12]');
    assert.equal(quoteLongIntegers('["a\\"1234567890123456", 1]'), '["a\\"1234567890123456", 1]');
    assert.deepEqual(parseJsonBody('[12345678901234567890]'), ['12345678901234567890']);
    assert.deepEqual(parseJsonBody('{"a": -12345678901234567890}'), { a: '-12345678901234567890' });
    // Long fractions of doubles stay numbers (and keep the fast path).
    assert.deepEqual(parseJsonBody('[0.12345678901234567, 1.5e-12345678901234567]'),
      [0.12345678901234567, 0]);
    badRequest(() => parseJsonBody('[1,'), /^JSON parse error/);
  });
});

describe('timestamps', () => {
  it('reads only the millisecond form with a literal Z for TIMESTAMP', () => {
    assert.equal(parseTimestampMs('2016-01-16T10:25:00.253Z'), Date.UTC(2016, 0, 16, 10, 25, 0,
      253));
    for (const bad of ['2016-01-16T10:25:00Z', '2016-01-16T10:25:00.25Z',
      '2016-01-16T10:25:00.253+00:00', '2016-02-30T00:00:00.000Z', '1969-12-31T23:59:59.999Z',
      '2016-01-16T24:00:00.000Z', ' 2016-01-16T10:25:00.253Z']) {
      assert.equal(parseTimestampMs(bad), undefined, bad);
    }
  });

  it('reads TIMESTAMP(6) and (9) with any fraction and an offset', () => {
    assert.equal(parseTimestampPrecise('2016-01-16T10:25:00.253123Z', 6),
      BigInt(Date.UTC(2016, 0, 16, 10, 25, 0)) * 1000n + 253_123n);
    assert.equal(parseTimestampPrecise('2016-01-16T19:25:00.1+09:00', 9),
      BigInt(Date.UTC(2016, 0, 16, 10, 25, 0)) * 1_000_000n + 100_000_000n);
    assert.equal(parseTimestampPrecise('2016-01-16T10:25:00Z', 6),
      BigInt(Date.UTC(2016, 0, 16, 10, 25, 0)) * 1000n);
    assert.equal(parseTimestampPrecise('2016-01-16T10:25Z', 6), undefined);
  });

  it('writes three (six, nine) fraction digits in the configured zone', () => {
    const ms = Date.UTC(2016, 0, 16, 10, 25, 0, 253);
    assert.equal(formatTimestampMs(ms, TIME_ZONE_UTC), '2016-01-16T10:25:00.253Z');
    assert.equal(formatTimestampMs(ms, { kind: 'offset', offsetMinutes: 540 }),
      '2016-01-16T19:25:00.253+09:00');
    assert.equal(formatTimestampMs(ms, { kind: 'offset', offsetMinutes: -330 }),
      '2016-01-16T04:55:00.253-05:30');
    assert.equal(formatTimestampPrecise(BigInt(ms) * 1000n + 7n, 6, TIME_ZONE_UTC),
      '2016-01-16T10:25:00.253007Z');
    assert.equal(formatTimestampPrecise(BigInt(ms) * 1_000_000n + 42n, 9,
      { kind: 'offset', offsetMinutes: 60 }), '2016-01-16T11:25:00.253000042+01:00');
  });
});

describe('timestamps of a day met before', () => {
  /** The regular-expression reading alone, as parseTimestampMs reads a text the first time. */
  function reference(text: string): number | undefined {
    const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/.exec(text);
    if (match === null) return undefined;
    const [year, month, day, hour, minute, second, milli] = match.slice(1).map(Number) as
      [number, number, number, number, number, number, number];
    if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
      return undefined;
    }
    const dayMs = Date.UTC(year, month - 1, day);
    if (new Date(dayMs).getUTCDate() !== day) return undefined;
    const ms = dayMs + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
    return year < 1970 || ms < 0 ? undefined : ms;
  }

  it('writes and reads as toISOString and the full reading do, whatever day came before', () => {
    const instant = fc.integer({ min: -86_400_000 * 3, max: 253_402_300_799_999 + 86_400_000 });
    const field = (max: number, width: number) =>
      fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0'));
    const step = fc.record({
      before: instant,
      zone: fc.constantFrom(TIME_ZONE_UTC, { kind: 'offset' as const, offsetMinutes: -600 }),
      day: instant,
      time: fc.tuple(field(99, 2), field(99, 2), field(99, 2), field(999, 3),
        fc.constantFrom(':', ':', '-'), fc.constantFrom('Z', 'Z', 'z', '+')),
    }, { noNullPrototype: true });
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
      for (const { before, zone, day, time } of steps) {
        // Formatting moves the day remembered, to any day (one before 1970 in a zone too).
        formatTimestampMs(Math.max(0, before), zone);
        assert.equal(isoTextOfMs(before), new Date(before).toISOString());
        const [hour, minute, second, milli, separator, end] = time;
        const text = `${new Date(day).toISOString().slice(0, 11)}${hour}${separator}${minute}:` +
          `${second}.${milli}${end}`;
        assert.equal(parseTimestampMs(text), reference(text), text);
        assert.equal(parseTimestampMs(text), reference(text), `${text} again`);
      }
    }), { numRuns: 2000 });
  });
});

describe('input conversions', () => {
  const text = () => new ValueDecoder('text');
  const json = () => new ValueDecoder('json');

  it('reads numbers and strings as text in the single-container PUT', () => {
    assert.equal(text().value(column('STRING'), 42), '42');
    assert.equal(text().value(column('BOOL'), 'TRUE'), true);
    assert.equal(text().value(column('BOOL'), 'abc'), false);
    assert.equal(text().value(column('BOOL'), 1), false);
    assert.equal(text().value(column('LONG'), '-9223372036854775808'), -(2n ** 63n));
    assert.equal(text().value(column('INTEGER'), '+12'), 12);
    assert.equal(text().value(column('DOUBLE'), '-0.5e1'), -5);
    assert.equal(text().value(column('FLOAT'), '1.1'), Math.fround(1.1));
    assert.ok(Number.isNaN(text().value(column('DOUBLE'), 'NaN') as number));
    assert.deepEqual(text().value(column('INTEGER', { array: true }), ['1', 2]), [1, 2]);
    assert.deepEqual(text().value(column('BLOB'), ''), new Uint8Array());
  });

  it('keeps JSON types in the other PUTs', () => {
    badRequest(() => json().value(column('BOOL'), 1),
      /^The specified data cannot be converted to BOOL type: column "c": 1 is not a BOOL/);
    assert.equal(json().value(column('STRING'), 1.5), '1.5');
  });

  it('refuses what does not convert', () => {
    // GridDB's message first (clients match it), then the column, the value, the type expected.
    const cannot = (type: string) =>
      new RegExp(`^The specified data cannot be converted to ${type} type: column "c": `);
    badRequest(() => text().value(column('BYTE'), 200),
      'The specified data cannot be converted to BYTE type (upper limit over): column "c": ' +
      '200 is not a BYTE (-128 to 127).');
    badRequest(() => text().value(column('LONG'), '9223372036854775808'),
      /^The specified data cannot be converted to LONG type \(upper limit over\): /);
    badRequest(() => text().value(column('DOUBLE'), '1e400'), cannot('DOUBLE'));
    badRequest(() => text().value(column('DOUBLE'), 'Inf'), cannot('DOUBLE'));
    badRequest(() => text().value(column('DOUBLE'), 1e999), cannot('DOUBLE'));
    badRequest(() => text().value(column('FLOAT'), '1e39'), cannot('FLOAT'));
    badRequest(() => text().value(column('STRING'), false), cannot('STRING'));
    badRequest(() => text().value(column('GEOMETRY'), 'BOX(1)'), cannot('GEOMETRY'));
    badRequest(() => text().value(column('STRING'), { a: 1 }), 'Parse error');
    badRequest(() => text().value(column('STRING', { array: true }), [['a']]), 'Parse error');
    badRequest(() => decodeRows([column('INTEGER')], [], { mode: 'text', sizeBytesMax: 10 }),
      'Rows data is empty');
    badRequest(() => decodeRows([column('INTEGER')], [[1, 2]], { mode: 'text', sizeBytesMax: 10 }),
      'Row data is invalid: row 0 has 2 values, the container has 1 columns');
    badRequest(() => decodeRows([column('BYTE')], [[1], [2]], { mode: 'text', sizeBytesMax: 15 }),
      'Too many rows data');
  });
});

/** Values of a column type as the client library holds them. */
function valueOf(type: ColumnType, precision?: 'MICROSECOND' | 'NANOSECOND'): fc.Arbitrary<Value> {
  switch (type) {
    case 'BOOL': return fc.boolean();
    case 'STRING': return fc.string({ unit: 'grapheme', maxLength: 20 });
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32_768, max: 32_767 });
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'LONG': return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'FLOAT': return fc.float({ noDefaultInfinity: true, noNaN: true })
      .map((x) => (Object.is(x, -0) ? 0 : x));
    case 'DOUBLE': return fc.double({ noDefaultInfinity: true, noNaN: true })
      .map((x) => (Object.is(x, -0) ? 0 : x));
    case 'TIMESTAMP':
      if (precision === 'MICROSECOND') return fc.bigInt({ min: 0n, max: 253_402_300_799_999_999n });
      if (precision === 'NANOSECOND') {
        return fc.bigInt({ min: 0n, max: 253_402_300_799_999_999_999n });
      }
      return fc.integer({ min: 0, max: 253_402_300_799_999 });
    case 'GEOMETRY': return fc.constantFrom('POINT(1 2)', 'POLYGON((0 0,1 0,1 1,0 0))');
    case 'BLOB': return fc.uint8Array({ maxLength: 40 });
  }
}

describe('round trip', () => {
  it('writes and reads -0, NaN and the infinities by one rule (issue 12, point 11)', () => {
    const encoder = new ValueEncoder(TIME_ZONE_UTC);
    fc.assert(fc.property(fc.constantFrom('FLOAT', 'DOUBLE') as fc.Arbitrary<ColumnType>,
      fc.constantFrom('text', 'json') as fc.Arbitrary<'text' | 'json'>,
      fc.oneof(fc.constantFrom(-0, 0, Infinity, -Infinity, Number.NaN), fc.double()),
      (type, mode, raw) => {
        const value = type === 'FLOAT' ? Math.fround(raw) : raw;
        const written = encoder.value(column(type), value);
        const read = new ValueDecoder(mode).value(column(type), JSON.parse(written) as unknown);
        assert.ok(Object.is(read, value), `${type} ${written} read as ${String(read)}`);
      }));
    assert.equal(encoder.value(column('DOUBLE'), -0), '-0');
    assert.equal(encoder.value(column('FLOAT'), -0), '-0');
    assert.equal(encoder.value(column('DOUBLE'), -Infinity), '"-Infinity"');
  });

  it('reads back every value the encoder writes, for every type', () => {
    const cases = fc.oneof(
      ...(['BOOL', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP',
        'GEOMETRY', 'BLOB'] as const).map((type) => fc.tuple(fc.constant(column(type)),
        fc.oneof(valueOf(type), fc.constant(null)))),
      fc.tuple(fc.constant(column('TIMESTAMP', { timePrecision: 'MICROSECOND' })),
        valueOf('TIMESTAMP', 'MICROSECOND')),
      fc.tuple(fc.constant(column('TIMESTAMP', { timePrecision: 'NANOSECOND' })),
        valueOf('TIMESTAMP', 'NANOSECOND')),
      fc.tuple(fc.constant(column('LONG', { array: true })), fc.array(valueOf('LONG'))),
      fc.tuple(fc.constant(column('TIMESTAMP', { array: true })), fc.array(valueOf('TIMESTAMP'))),
    );
    fc.assert(fc.property(cases, ([col, value]) => {
      const textOut = new ValueEncoder(TIME_ZONE_UTC).value(col, value as Value);
      for (const mode of ['text', 'json'] as const) {
        const parsed = (parseJsonBody(`[${textOut}]`) as unknown[])[0];
        const decoded = new ValueDecoder(mode).value(col, parsed);
        assert.deepEqual(decoded, value, `${col.type} ${textOut}`);
      }
    }), { numRuns: 2000 });
  });
});

describe('rows written whole', () => {
  it('writes a page as value by value would, with the same size, in UTC and in another zone', () => {
    const types = ['BOOL', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE',
      'TIMESTAMP', 'BLOB'] as const;
    const special = fc.constantFrom(-0, Infinity, -Infinity, Number.NaN);
    const page = fc.uniqueArray(fc.constantFrom(...types), { minLength: 1, maxLength: 5 })
      .chain((chosen) => fc.tuple(fc.constant(chosen.map((type) => column(type))),
        fc.array(fc.tuple(...chosen.map((type) => fc.oneof(
          { arbitrary: valueOf(type), weight: 8 }, { arbitrary: fc.constant(null), weight: 1 },
          { arbitrary: type === 'DOUBLE' ? special : valueOf(type), weight: 1 }))),
        { maxLength: 6 })));
    const zones = fc.constantFrom(TIME_ZONE_UTC, { kind: 'offset' as const, offsetMinutes: 540 });
    fc.assert(fc.property(page, zones, ([columns, rows], zone) => {
      const whole = new ValueEncoder(zone);
      const byValue = new ValueEncoder(zone);
      const expected = `[${rows.map((row) => byValue.row(columns, row as Value[])).join(',')}]`;
      assert.equal(whole.rows(columns, rows as Value[][]), expected);
      assert.equal(whole.sizeBytes, byValue.sizeBytes);
    }), { numRuns: 1000 });
  });
});
