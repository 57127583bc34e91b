// The split of a ms timestamp against a model built on Date: its UTC date as toISOString writes it
// and its time-of-day fields, for times before 1970, at the bounds of years 1 and 9999, on leap
// days, and in runs of values sharing a day (the date text made once per day must still be right).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MS_PER_DAY, MsTimestampSplit } from '../../../lib/base/ms-timestamp-split.ts';

/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z (Date.UTC would read year 1 as 1901). */
const FIRST_MS = new Date('0001-01-01T00:00:00.000Z').getTime();
const LAST_MS = new Date('9999-12-31T23:59:59.999Z').getTime();
/** Leap days: 2000-02-29 (a century divisible by 400), 2024-02-29, 1904-02-29, 0004-02-29. */
const LEAP_DAYS_MS = ['2000-02-29', '2024-02-29', '1904-02-29', '0004-02-29', '9996-02-29']
  .map((date) => new Date(`${date}T00:00:00.000Z`).getTime());

function model(ms: number, separator: string) {
  const date = new Date(ms);
  return {
    dateText: date.toISOString().slice(0, 10) + separator,
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    milli: date.getUTCMilliseconds(),
    day: Math.floor(ms / MS_PER_DAY),
  };
}

function fieldsOf(split: MsTimestampSplit) {
  const { dateText, hour, minute, second, milli, day } = split;
  return { dateText, hour, minute, second, milli, day };
}

const instant = fc.oneof(
  fc.integer({ min: FIRST_MS, max: LAST_MS }),
  fc.integer({ min: FIRST_MS, max: 0 }), // before 1970
  fc.constantFrom(FIRST_MS, FIRST_MS + 1, LAST_MS, LAST_MS - 1, -1, 0, 1, -MS_PER_DAY,
    MS_PER_DAY - 1),
  fc.tuple(fc.constantFrom(...LEAP_DAYS_MS), fc.integer({ min: -1, max: MS_PER_DAY }))
    .map(([dayMs, offsetMs]) => dayMs + offsetMs),
);

/** What follows the date: ISO 8601's 'T', SQL's ' ', or nothing. */
const separator = fc.constantFrom('T', ' ', '');

describe('ms-timestamp-split', () => {
  it('splits a ms timestamp as Date does, years 1 to 9999, before 1970, leap days', () => {
    const values = fc.array(instant, { minLength: 1, maxLength: 20 });
    fc.assert(fc.property(values, separator, (all, by) => {
      const split = new MsTimestampSplit(by); // one split for all: its day carries over
      let dayBefore = Number.NaN;
      for (const ms of all) {
        assert.equal(split.split(ms), model(ms, by).day !== dayBefore, 'whether the day changed');
        assert.deepStrictEqual(fieldsOf(split), model(ms, by));
        dayBefore = split.day;
      }
    }), { numRuns: 2000 });
  });

  it('keeps the date right over runs of values sharing days, in either direction', () => {
    const run = fc.tuple(fc.integer({ min: FIRST_MS, max: LAST_MS - 3 * MS_PER_DAY }),
      fc.array(fc.integer({ min: -MS_PER_DAY, max: 3 * MS_PER_DAY }),
        { minLength: 1, maxLength: 50 }));
    fc.assert(fc.property(run, separator, ([startMs, offsetsMs], by) => {
      const split = new MsTimestampSplit(by);
      for (const offsetMs of offsetsMs) {
        const ms = Math.max(FIRST_MS, startMs + offsetMs);
        split.split(ms);
        assert.deepStrictEqual(fieldsOf(split), model(ms, by));
      }
    }));
  });
});
