import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  civilFromDays,
  daysFromCivil,
  MS_PER_DAY,
  parseTimestamp,
  timestampAdd,
} from '../../../lib/query/tql/timestamp.ts';
import { evaluate, tqlError, valueOf } from './tql-test-helpers.ts';

function parsed(
  text: string,
  precision: 'MILLISECOND' | 'MICROSECOND' | 'NANOSECOND' = 'MILLISECOND',
) {
  const result = parseTimestamp(text, precision);
  return 'value' in result ? result.value : result.reason;
}

describe('TQL timestamps', () => {
  it('parses UTC and zoned times', () => {
    assert.equal(parsed('2026-01-01T00:00:00.000Z'), Date.UTC(2026, 0, 1));
    assert.equal(parsed('2026-01-01T00:00:00Z'), Date.UTC(2026, 0, 1));
    assert.equal(parsed('2026-01-01T09:00:00.000+09:00'), Date.UTC(2026, 0, 1));
    assert.equal(parsed('2026-01-01T09:00:00+0900'), Date.UTC(2026, 0, 1));
    assert.equal(parsed('2025-12-31T19:30:00.500-04:30'), Date.UTC(2026, 0, 1, 0, 0, 0, 500));
    assert.equal(parsed('1970-01-01T00:00:00Z'), 0);
    assert.equal(parsed('9999-12-31T23:59:59.999Z'), 253_402_300_799_999);
    // Before 1970: a query may compare with such a time.
    assert.equal(parsed('1969-12-31T23:59:59.999Z'), -1);
    assert.equal(parsed('0001-01-01T00:00:00Z'), Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parsed('12026-01-01T00:00:00Z'), Date.parse('+012026-01-01T00:00:00Z'));
  });

  it('parses microsecond and nanosecond fractions to bigints', () => {
    assert.equal(parsed('1970-01-01T00:00:01.000001Z', 'MICROSECOND'), 1_000_001n);
    assert.equal(parsed('1970-01-01T00:00:01.123Z', 'MICROSECOND'), 1_123_000n);
    assert.equal(parsed('1970-01-01T00:00:00.000000001Z', 'NANOSECOND'), 1n);
    assert.equal(parsed('1969-12-31T23:59:59.999999999Z', 'NANOSECOND'), -1n);
    assert.equal(
      parsed('2026-01-01T01:00:00.123456+01:00', 'NANOSECOND'),
      BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n + 123_456_000n,
    );
  });

  it('refuses what is not a calendar time, saying why', () => {
    assert.match(String(parsed('2026-02-29T00:00:00Z')), /day 29/);
    assert.match(String(parsed('2024-02-30T00:00:00Z')), /day 30/);
    assert.equal(parsed('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.match(String(parsed('2026-13-01T00:00:00Z')), /month 13/);
    assert.match(String(parsed('2026-01-01T24:00:00Z')), /time of day/);
    assert.match(String(parsed('2026-01-01T00:60:00Z')), /time of day/);
    assert.match(String(parsed('2026-01-01T00:00:60Z')), /time of day/);
    assert.match(String(parsed('2026-01-01T00:00:00+24:00')), /time zone/);
    assert.match(String(parsed('2026-01-01T00:00:00.1234Z')), /fraction/);
    assert.match(String(parsed('2026-01-01T00:00:00.123456Z')), /3 digits/);
    assert.match(String(parsed('2026-01-01T00:00:00.123456789Z', 'MICROSECOND')), /3 or 6/);
    for (const text of [
      '2026-01-01',
      '2026-1-01T00:00:00Z',
      '2026-01-01 00:00:00Z',
      '26-01-01T00:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00z',
      '2026-01-01T00:00:00+9:00',
      '',
    ]) {
      assert.match(String(parsed(text)), /expected YYYY/, text);
    }
  });

  it('TIMESTAMP() errors carry the reason and the position', () => {
    assert.throws(
      () => evaluate("t = TIMESTAMP('2026-02-30T00:00:00Z')"),
      tqlError('TQL_EVALUATION', { column: 20 }, /not a timestamp: day 30/),
    );
    assert.throws(
      () => evaluate('t = TIMESTAMP(s)', [1, null, 'soon']),
      tqlError('TQL_EVALUATION', { column: 20 }, /'soon'/),
    );
    assert.throws(
      () => evaluate('t = TIMESTAMP(1)'),
      tqlError('TQL_SEMANTIC', undefined, /STRING/),
    );
    assert.equal(valueOf("TIMESTAMP('2026-01-01T00:00:00+01:00')"), Date.UTC(2025, 11, 31, 23));
  });

  it('counts days like the JavaScript calendar, both ways', () => {
    fc.assert(
      fc.property(fc.integer({ min: -3_000_000, max: 3_000_000 }), (days) => {
        const date = new Date(days * MS_PER_DAY);
        const civil = civilFromDays(days);
        assert.deepEqual(civil, {
          year: date.getUTCFullYear(),
          month: date.getUTCMonth() + 1,
          day: date.getUTCDate(),
        });
        assert.equal(daysFromCivil(civil.year, civil.month, civil.day), days);
      }),
      { numRuns: 2000 },
    );
  });

  it('adds months like the calendar, clamping the day to the month', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 253_402_300_799_999 }),
        fc.integer({ min: -2000, max: 2000 }),
        (ms, months) => {
          const result = timestampAdd('MONTH', ms, BigInt(months), 'MILLISECOND') as number;
          const date = new Date(ms);
          const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
          const lastDay = new Date(
            Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
          ).getUTCDate();
          target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
          const expected = target.getTime() + (ms % MS_PER_DAY);
          assert.equal(result, expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
