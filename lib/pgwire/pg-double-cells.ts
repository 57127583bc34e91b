// A page's DOUBLE cells in text format, formatted in one native call rather than String(x) per
// cell: String(x) takes V8's slow bignum path for many 17-digit doubles, and it was the top of the
// node's profile for a large SELECT through the PostgreSQL port (the DOUBLEs of the TSBS rows).
// The export's formatter (lib/io/double-text.ts, double_text.cc) lays digits out as
// Number.prototype.toString does; spliced into an empty text it gives the cells one after the
// other, each in double quotes, which never occur inside a number's text:
//
//   "12.5""-0.0""NaN""1e+21"   →  cell k is between its two quotes
//
// -0 is written "-0.0" by the export; String(-0), and so PostgreSQL text here, is "0": -0 is
// given to the formatter as 0. Without the addon (no C++ compiler at install), DOUBLE cells are
// formatted by String(x) as before: the same bytes.

import { doubleText } from '../io/double-text.ts';

/** Below this many cells the per-cell String(x) is as cheap as the call. */
export const PG_DOUBLE_CELLS_NATIVE_MIN = 64;
const QUOTE = 0x22;

/** The formatted cells of one column of a page: text bytes and where each cell's text lies. */
export interface PgDoubleCells {
  bytes: Uint8Array;
  /** Cell k's text is bytes[starts[k], ends[k]); a NULL cell has none. */
  starts: Uint32Array;
  ends: Uint32Array;
}

/**
 * The text of `values` (the column's cells; null or undefined for NULL), or undefined when the
 * addon is missing or the page is too small for it to pay.
 */
export function pgDoubleCells(values: ArrayLike<unknown>, count: number): PgDoubleCells | undefined {
  if (doubleText === undefined || count < PG_DOUBLE_CELLS_NATIVE_MIN) return undefined;
  const numbers = new Float64Array(count);
  const present = new Uint8Array(count);
  let presentCount = 0;
  for (let k = 0; k < count; k++) {
    const value = values[k];
    if (typeof value !== 'number') continue;
    numbers[presentCount++] = value === 0 ? 0 : value; // -0 → 0, as String(-0)
    present[k] = 1;
  }
  const bytes = doubleText.spliceDoubles(new Uint8Array(0), 0, new Uint32Array(presentCount), numbers, presentCount);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  let at = 0;
  for (let k = 0; k < count; k++) {
    if (present[k] === 0) continue;
    // bytes[at] is the opening quote; the text runs to the next quote.
    let end = at + 1;
    while (bytes[end] !== QUOTE) end++;
    starts[k] = at + 1;
    ends[k] = end;
    at = end + 1;
  }
  return { bytes, starts, ends };
}
