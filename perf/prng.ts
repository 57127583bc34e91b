// A small seeded PRNG for the benchmarks: the same seed gives the same rows and the same queries on
// every run and on both engines. Not for anything but benchmark data (STYLE rule 12: no ambient
// randomness). It is xorshift32 (shifts 13, 17, 5), whose state must never be 0.

import { assert } from '../lib/base/assert.ts';

const TWO_POW_32 = 2 ** 32;

export class Prng {
  private state: number;

  constructor(seed: number) {
    assert(Number.isInteger(seed));
    // Any integer seed maps to a non-zero 32-bit state.
    this.state = (seed >>> 0) || 0x9e37_79b9;
  }

  /** A float in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    assert(this.state !== 0);
    return this.state / TWO_POW_32;
  }

  /** An integer in [0, countMax). */
  int(countMax: number): number {
    assert(Number.isInteger(countMax) && countMax > 0);
    return Math.floor(this.next() * countMax);
  }
}
