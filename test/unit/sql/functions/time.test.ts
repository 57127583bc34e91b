import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  assertProblem, assertThrowsCode, call, callIn, START_MS, typeOf,
} from './function-test-helpers.ts';

const ms = (text: string) => Date.parse(text);
const TS = (text: string) => [ms(text), 'TIMESTAMP'] as const;
const US = (value: bigint) => [value, 'TIMESTAMP(6)'] as const;
const NS = (value: bigint) => [value, 'TIMESTAMP(9)'] as const;

describe('SQL NOW, TIMESTAMP, TIMESTAMP_MS/US/NS', () => {
  it('NOW is the statement start', () => {
    assert.equal(call('NOW'), START_MS);
    assert.equal(typeOf('NOW'), 'TIMESTAMP');
  });
  it('reads the three text forms, with a zone from the text, the argument or the session', () => {
    assert.equal(call('TIMESTAMP', '2018-12-01T10:30:00Z'), ms('2018-12-01T10:30:00Z'));
    assert.equal(call('TIMESTAMP_MS', '2018-12-01T10:30:00.123+09:00'),
      ms('2018-12-01T01:30:00.123Z'));
    assert.equal(call('TIMESTAMP', '2018-12-01'), ms('2018-12-01T00:00:00Z'));
    assert.equal(call('TIMESTAMP', '10:30:00'), ms('1970-01-01T10:30:00Z'));
    assert.equal(call('TIMESTAMP', '2018-12-01T10:30:00', '+09:00'), ms('2018-12-01T01:30:00Z'));
    assert.equal(callIn(-300, 'TIMESTAMP', '2018-12-01T10:30:00'), ms('2018-12-01T15:30:00Z'));
    assert.equal(call('TIMESTAMP', '2018-12-01T10:30:00+09:00', '+09:00'),
      ms('2018-12-01T01:30:00Z'));
    assert.equal(call('TIMESTAMP_US', '1970-01-01T00:00:00.000123Z'), 123n);
    assert.equal(call('TIMESTAMP_NS', '1970-01-01T00:00:00.123456789Z'), 123_456_789n);
    assert.equal(typeOf('TIMESTAMP_NS', 'x'), 'TIMESTAMP(9)');
    assert.equal(call('TIMESTAMP', null), null);
  });
  it('refuses bad text, years before 1970, extra digits and a zone that disagrees', () => {
    for (const text of ['', '2018-13-01', '2018-02-29', '1969-12-31', '2018-12-01T24:00:00Z',
      '2018-12-01T10:30:00.1234Z', 'now']) {
      assertThrowsCode(() => call('TIMESTAMP', text), 'SQL_PROC_VALUE_SYNTAX_ERROR');
    }
    assertThrowsCode(() => call('TIMESTAMP_US', '1970-01-01T00:00:00.1234567Z'),
      'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertThrowsCode(() => call('TIMESTAMP', '2018-12-01T10:30:00Z', '+09:00'),
      'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertProblem(typeOf('TIMESTAMP', '2018-12-01', 'Asia/Nowhere'));
    assertThrowsCode(() => call('TIMESTAMP', '1970-01-01T00:00:00+01:00'),
      'SQL_PROC_VALUE_OVERFLOW');
  });
});

describe('SQL TO_TIMESTAMP_MS, TO_EPOCH_MS', () => {
  it('convert epoch ms and timestamps both ways', () => {
    assert.equal(call('TO_TIMESTAMP_MS', 1500n), 1500);
    assert.equal(call('TO_EPOCH_MS', TS('2000-01-01T00:00:00Z')), BigInt(ms('2000-01-01T00:00:00Z')));
    assert.equal(call('TO_EPOCH_MS', US(1_999n)), 1n);
    assert.equal(call('TO_EPOCH_MS', NS(1_999_999n)), 1n);
    assertThrowsCode(() => call('TO_TIMESTAMP_MS', -1n), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => call('TO_TIMESTAMP_MS', 2n ** 62n), 'SQL_PROC_VALUE_OVERFLOW');
  });
});

describe('SQL TIMESTAMP_ADD and TIMESTAMP_DIFF', () => {
  it('add every unit, clamping to the end of the month', () => {
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2019-05-31T12:00:00Z'), 1n),
      ms('2019-06-30T12:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2020-01-31T00:00:00Z'), 1n),
      ms('2020-02-29T00:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'YEAR', TS('2020-02-29T00:00:00Z'), 1n),
      ms('2021-02-28T00:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2020-03-31T00:00:00Z'), -1n),
      ms('2020-02-29T00:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'DAY', TS('2020-03-01T00:00:00Z'), -1n),
      ms('2020-02-29T00:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MILLISECOND', TS('2020-03-01T00:00:00Z'), 5n),
      ms('2020-03-01T00:00:00.005Z'));
    assert.equal(call('TIMESTAMPADD', 'HOUR', TS('2020-03-01T00:00:00Z'), 25n),
      ms('2020-03-02T01:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'NANOSECOND', NS(1n), 5n), 6n);
    assert.equal(call('TIMESTAMP_ADD', 'MICROSECOND', US(1n), 5n), 6n);
    assert.equal(typeOf('TIMESTAMP_ADD', 'DAY', US(1n), 5n), 'TIMESTAMP(6)');
  });
  it('clamp month ends on the wall clock of the zone', () => {
    // 2019-05-31T20:00 at -05:00 is June 1st in UTC; a month later it is June 30th at -05:00.
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2019-06-01T01:00:00Z'), 1n, '-05:00'),
      ms('2019-07-01T01:00:00Z'));
    assert.equal(callIn(-300, 'TIMESTAMP_ADD', 'MONTH', TS('2019-06-01T01:00:00Z'), 1n),
      ms('2019-07-01T01:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2019-06-01T01:00:00Z'), 1n),
      ms('2019-07-01T01:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2019-03-31T01:00:00Z'), 1n, '+09:00'),
      ms('2019-04-30T01:00:00Z'));
    assert.equal(call('TIMESTAMP_ADD', 'MONTH', TS('2019-03-31T01:00:00Z'), 1n, '-05:00'),
      ms('2019-05-01T01:00:00Z'));
  });
  it('refuse results outside the time range and unknown units', () => {
    assertThrowsCode(() => call('TIMESTAMP_ADD', 'DAY', TS('1970-01-01T00:00:00Z'), -1n),
      'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => call('TIMESTAMP_ADD', 'YEAR', TS('1970-01-01T00:00:00Z'), 2n ** 40n),
      'SQL_PROC_VALUE_OVERFLOW');
    assertProblem(typeOf('TIMESTAMP_ADD', 'WEEK', TS('1970-01-01T00:00:00Z'), 1n));
    assertProblem(typeOf('TIMESTAMP_ADD', 'DAY', 1n, 1n));
    assertProblem(typeOf('TIMESTAMP_ADD', 'DAY', TS('1970-01-01T00:00:00Z'), 1.5));
  });
  it('DIFF counts whole units of ts1 − ts2, lower units considered', () => {
    assert.equal(call('TIMESTAMP_DIFF', 'MONTH', TS('2019-10-02T00:00:00Z'),
      TS('2019-09-30T00:00:00Z')), 0n);
    assert.equal(call('TIMESTAMP_DIFF', 'MONTH', TS('2019-10-30T00:00:00Z'),
      TS('2019-09-30T00:00:00Z')), 1n);
    assert.equal(call('TIMESTAMP_DIFF', 'YEAR', TS('2020-01-01T00:00:00Z'),
      TS('2019-01-02T00:00:00Z')), 0n);
    assert.equal(call('TIMESTAMP_DIFF', 'YEAR', TS('2019-01-01T00:00:00Z'),
      TS('2020-01-02T00:00:00Z')), -1n);
    assert.equal(call('TIMESTAMP_DIFF', 'DAY', TS('2019-01-01T00:00:00Z'),
      TS('2019-01-03T12:00:00Z')), -2n);
    assert.equal(call('TIMESTAMPDIFF', 'MILLISECOND', TS('2019-01-01T00:00:01Z'),
      TS('2019-01-01T00:00:00Z')), 1000n);
    assert.equal(call('TIMESTAMP_DIFF', 'NANOSECOND', US(2n), NS(1n)), 1999n);
    // In UTC a whole month; at -05:00 it is May 31st 20:00 to June 30th 20:00: not yet one.
    assert.equal(call('TIMESTAMP_DIFF', 'MONTH', TS('2019-07-01T01:00:00Z'),
      TS('2019-06-01T01:00:00Z')), 1n);
    assert.equal(call('TIMESTAMP_DIFF', 'MONTH', TS('2019-07-01T01:00:00Z'),
      TS('2019-06-01T01:00:00Z'), '-05:00'), 0n);
    assert.equal(typeOf('TIMESTAMP_DIFF', 'DAY', US(1n), NS(1n)), 'LONG');
  });
});

describe('SQL EXTRACT', () => {
  const t = TS('2024-02-29T23:59:58.765Z');
  it('gives every field in the zone', () => {
    assert.equal(call('EXTRACT', 'YEAR', t), 2024n);
    assert.equal(call('EXTRACT', 'MONTH', t), 2n);
    assert.equal(call('EXTRACT', 'DAY', t), 29n);
    assert.equal(call('EXTRACT', 'HOUR', t), 23n);
    assert.equal(call('EXTRACT', 'MINUTE', t), 59n);
    assert.equal(call('EXTRACT', 'SECOND', t), 58n);
    assert.equal(call('EXTRACT', 'MILLISECOND', t), 765n);
    assert.equal(call('EXTRACT', 'DAY_OF_WEEK', t), 4n);
    assert.equal(call('EXTRACT', 'DAY_OF_YEAR', t), 60n);
    assert.equal(call('EXTRACT', 'DAY', t, '+01:00'), 1n);
    assert.equal(call('EXTRACT', 'MONTH', t, '+01:00'), 3n);
    assert.equal(callIn(60, 'EXTRACT', 'DAY_OF_WEEK', t), 5n);
    assert.equal(call('EXTRACT', 'MICROSECOND', NS(1_234_567_891n)), 234_567n);
    assert.equal(call('EXTRACT', 'NANOSECOND', NS(1_234_567_891n)), 234_567_891n);
    assertProblem(typeOf('EXTRACT', 'WEEK', t));
  });
});

describe('SQL TIMESTAMP_TRUNC', () => {
  const t = TS('2024-02-29T23:59:58.765Z');
  it('cuts to every unit, in the zone', () => {
    assert.equal(call('TIMESTAMP_TRUNC', 'YEAR', t), ms('2024-01-01T00:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'MONTH', t), ms('2024-02-01T00:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'DAY', t), ms('2024-02-29T00:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'HOUR', t), ms('2024-02-29T23:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'SECOND', t), ms('2024-02-29T23:59:58Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'MILLISECOND', t), ms('2024-02-29T23:59:58.765Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'DAY', t, '+09:00'), ms('2024-02-29T15:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'MONTH', t, '+01:00'), ms('2024-02-29T23:00:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'HOUR', t, '+05:30'), ms('2024-02-29T23:30:00Z'));
    assert.equal(call('TIMESTAMP_TRUNC', 'MICROSECOND', NS(1_234_567_891n)), 1_234_567_000n);
    assertThrowsCode(() => call('TIMESTAMP_TRUNC', 'DAY', TS('1970-01-01T01:00:00Z'), '+09:00'),
      'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => callIn(540, 'TIMESTAMP_TRUNC', 'DAY', TS('1970-01-01T01:00:00Z')),
      'SQL_PROC_VALUE_OVERFLOW');
  });
  it('cuts a TIMESTAMP in the session zone as in the same zone named (the ms path and the ns path)', () => {
    fc.assert(fc.property(
      fc.constantFrom('DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'),
      fc.integer({ min: 0, max: 2 ** 42 }),
      fc.integer({ min: -48, max: 56 }).map((quarters) => quarters * 15),
      (unit, value, minutes) => {
        const zone = `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:` +
          `${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
        const named = (() => {
          try { return call('TIMESTAMP_TRUNC', unit, [value, 'TIMESTAMP'], zone); } catch { return 'error'; }
        })();
        const session = (() => {
          try { return callIn(minutes, 'TIMESTAMP_TRUNC', unit, [value, 'TIMESTAMP']); } catch { return 'error'; }
        })();
        assert.equal(session, named, `${unit} ${value} ${zone}`);
      }), { numRuns: 500 });
  });
});

describe('SQL STRFTIME', () => {
  const t = TS('2024-02-29T03:04:05.678Z');
  it('writes every format', () => {
    assert.equal(call('STRFTIME', '%Y-%m-%d %H:%M:%S.%3f', t), '2024-02-29 03:04:05.678');
    assert.equal(call('STRFTIME', '%6f|%9f', NS(1_234_567_891n)), '234567|234567891');
    assert.equal(call('STRFTIME', '%w %W %j %%', t), '4 09 060 %');
    assert.equal(call('STRFTIME', '%W', TS('2024-01-01T00:00:00Z')), '01');
    assert.equal(call('STRFTIME', '%W', TS('2023-01-01T00:00:00Z')), '00');
    assert.equal(call('STRFTIME', '%c', t, '+09:00'), '2024-02-29T12:04:05.678+09:00');
    assert.equal(call('STRFTIME', '%z', t), 'Z');
    assert.equal(callIn(-90, 'STRFTIME', '%H:%M %z', t), '01:34 -01:30');
  });
  it('refuses unknown formats and widths', () => {
    assertThrowsCode(() => call('STRFTIME', '%Q', t), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('STRFTIME', '%4f', t), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('STRFTIME', '%2Y', t), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
});

describe('SQL MAKE_TIMESTAMP', () => {
  it('builds a TIMESTAMP from fields, seconds with milliseconds, in a zone', () => {
    assert.equal(call('MAKE_TIMESTAMP', 2024n, 2n, 29n), ms('2024-02-29T00:00:00Z'));
    assert.equal(call('MAKE_TIMESTAMP', 2024n, 2n, 29n, '+09:00'), ms('2024-02-28T15:00:00Z'));
    assert.equal(call('MAKE_TIMESTAMP', 2024n, 2n, 29n, 1n, 2n, 3.456),
      ms('2024-02-29T01:02:03.456Z'));
    assert.equal(call('MAKE_TIMESTAMP', 2024n, 2n, 29n, 1n, 2n, 3n, '-01:00'),
      ms('2024-02-29T02:02:03Z'));
    assert.equal(callIn(60, 'MAKE_TIMESTAMP', 2024n, 2n, 29n), ms('2024-02-28T23:00:00Z'));
    assert.equal(call('MAKE_TIMESTAMP', null, 2n, 29n), null);
  });
  it('refuses fields out of range and five arguments', () => {
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 2023n, 2n, 29n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 2023n, 13n, 1n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 1969n, 12n, 31n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 2023n, 1n, 1n, 24n, 0n, 0n),
      'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 2023n, 1n, 1n, 0n, 0n, 60),
      'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('MAKE_TIMESTAMP', 2023n, 1n, 1n, 0n, 0n, -1),
      'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertProblem(typeOf('MAKE_TIMESTAMP', 2023n, 1n, 1n, 0n, 0n));
  });
});
