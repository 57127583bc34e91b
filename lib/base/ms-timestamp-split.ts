// The split of a millisecond timestamp (ms since 1970-01-01T00:00:00Z) into its UTC day and its
// time of day, for the formatters that write timestamps on hot paths: pgwire's text cells
// (pg-types.ts) and DataRows written from wire pages (pg-data-rows-wire.ts), the web API's JSON
// (timestamp-text.ts). They sit in layers that may not import each other, so the split lives here.
//
// One split is refilled by each value (no object per value), and its date text is made by
// toISOString once per day met: a scan's rows mostly share their day, and the rest is integer
// arithmetic. Each formatter owns its split, so one's days do not evict another's.
//
// Negative times (before 1970) split to the day before and a time of day ≥ 0, as toISOString
// shows them. The date text is toISOString's up to the 'T' (yyyy-MM-dd for years 0 to 9999, all
// TIMESTAMP values take: TIMESTAMP_MS_MIN…MAX, lib/schema/column-type.ts), then the separator
// the formatter writes next ('T', ' '): one piece fewer in each value's text.

import { assert } from './assert.ts';

export const MS_PER_DAY = 86_400_000;

/** A ms timestamp's UTC date and time of day, refilled by `split`. */
export class MsTimestampSplit {
  /** Days since 1970-01-01 of the last value split; NaN before the first. */
  day = Number.NaN;
  /** The date of `day` as toISOString writes it, then `separator`: `2024-01-02T`. */
  dateText = '';
  hour = 0;
  minute = 0;
  second = 0;
  milli = 0;

  /** `separator` follows the date in `dateText`: 'T' as in ISO 8601, ' ' as in SQL, or ''. */
  constructor(private readonly separator: string) {
    assert(separator.length <= 1);
  }

  /**
   * Fills the fields with those of `ms`, an integer (the caller's to check: asserts cost here);
   * whether its day differs from the last one's, for a caller that keeps the date in its own form.
   */
  split(ms: number): boolean {
    const day = Math.floor(ms / MS_PER_DAY);
    const dayChanged = day !== this.day;
    if (dayChanged) {
      const text = new Date(day * MS_PER_DAY).toISOString();
      this.dateText = text.slice(0, text.indexOf('T')) + this.separator;
      this.day = day;
    }
    // The ms of the day fit an int32 (< 86_400_000): the fields are integer divisions, not fmod.
    let rest = (ms - day * MS_PER_DAY) | 0;
    const milli = rest % 1000;
    rest = (rest - milli) / 1000;
    const second = rest % 60;
    rest = (rest - second) / 60;
    const minute = rest % 60;
    this.hour = (rest - minute) / 60;
    this.minute = minute;
    this.second = second;
    this.milli = milli;
    return dayChanged;
  }
}
