// Numbers of a piece of a row PUT's body that rows-json-scan.ts cannot convert exactly by itself
// (more than 15 significant digits, or a decimal exponent beyond ±22: most TSBS doubles), noted as
// the piece is read and converted when it ends, all in one call of double_text.node's
// parseDoubles (std::from_chars, correctly rounded as JSON.parse rounds), or by Number() of each
// text without the addon; then written into the rows at the offsets noted. Its arrays are part of
// a row PUT's scratch (rows-put-scratch.ts), kept between requests while they stay small.

import { Buffer } from 'node:buffer';
import { doubleText, type DoubleTextAddon } from '../../io/double-text.ts';

/** double_text.node's parseDoubles (lib/io/double-text.ts). */
export type ParseDoubles = NonNullable<DoubleTextAddon['parseDoubles']>;

/**
 * Numbers noted at first; the arrays double when full (a piece of n bytes holds < n / 2). 1024
 * (22 KiB of arrays) covers a piece of 100 TSBS rows (about 20 KB, 10 numbers a row).
 */
const SLOW_NUMBERS_INITIAL = 1024;
/** Bytes of the arrays per number: starts, ends, ats (u32), floats (u8), values (f64), ok (u8). */
const SLOW_NUMBER_BYTES = 4 + 4 + 4 + 1 + 8 + 1;

export class SlowNumbers {
  count = 0;
  private starts = new Uint32Array(SLOW_NUMBERS_INITIAL);
  private ends = new Uint32Array(SLOW_NUMBERS_INITIAL);
  /** Where in the batch's writer each value goes. */
  private ats = new Uint32Array(SLOW_NUMBERS_INITIAL);
  /** 1: a FLOAT column's (rounded to f32), 0: a DOUBLE's. */
  private floats = new Uint8Array(SLOW_NUMBERS_INITIAL);
  private values = new Float64Array(SLOW_NUMBERS_INITIAL);
  /** 1 where the addon converted values[k] (0: beyond a double's range, or not taken whole). */
  private ok = new Uint8Array(SLOW_NUMBERS_INITIAL);

  /** Bytes the arrays hold now. */
  get capacityBytes(): number {
    return this.starts.length * SLOW_NUMBER_BYTES;
  }

  clear(): void {
    this.count = 0;
  }

  /** The number of text [start, end) of the piece; its value goes at `at`. */
  note(start: number, end: number, at: number, float: boolean): void {
    if (this.count === this.starts.length) this.grow();
    const k = this.count++;
    this.starts[k] = start;
    this.ends[k] = end;
    this.ats[k] = at;
    this.floats[k] = float ? 1 : 0;
  }

  /**
   * Converts the first `count` numbers noted in `data` (by `parse`, the addon's, or Number() of
   * the text when undefined) and writes them through `view`; false when one does not convert to
   * a value its column takes (the piece is then given up).
   */
  write(data: Uint8Array, count: number, view: DataView, parse: ParseDoubles | undefined): boolean {
    if (count === 0) return true;
    const { starts, ends, ats, floats, values, ok } = this;
    if (parse !== undefined) {
      parse.call(doubleText, data, starts, ends, values, ok, count);
      for (let k = 0; k < count; k++) if (ok[k] !== 1) return false;
    } else {
      const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
      for (let k = 0; k < count; k++) values[k] = Number(text.substring(starts[k]!, ends[k]!));
    }
    for (let k = 0; k < count; k++) {
      const value = values[k]!;
      if (floats[k] === 0) {
        if (!Number.isFinite(value)) return false;
        view.setFloat64(ats[k]!, value, true);
      } else {
        const rounded = Math.fround(value);
        if (!Number.isFinite(rounded)) return false;
        view.setFloat32(ats[k]!, rounded, true);
      }
    }
    return true;
  }

  private grow(): void {
    const capacity = this.starts.length * 2;
    const grown = <T extends Uint32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.starts = grown(this.starts, new Uint32Array(capacity));
    this.ends = grown(this.ends, new Uint32Array(capacity));
    this.ats = grown(this.ats, new Uint32Array(capacity));
    this.floats = grown(this.floats, new Uint8Array(capacity));
    this.values = new Float64Array(capacity);
    this.ok = new Uint8Array(capacity);
  }
}
