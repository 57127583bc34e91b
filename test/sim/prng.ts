// A tiny seeded PRNG (mulberry32) for the simulator: the same seed replays the same crash, the same
// torn writes and the same workload, so a failing seed printed by a test reproduces the failure.
// Not for anything but tests: 32 bits of state, period 2^32.

import { assert } from '../../lib/base/assert.ts';

export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    assert(Number.isInteger(seed));
    this.state = seed >>> 0;
  }

  /** A uniform integer in [0, 2^32). */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform float in [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / 2 ** 32;
  }

  /** A uniform integer in [0, countMax). */
  nextIndex(countMax: number): number {
    assert(Number.isInteger(countMax));
    assert(countMax >= 1);
    return Math.floor(this.nextFloat() * countMax);
  }

  /** A uniform integer in [min, max], both included. */
  nextIntBetween(range: { min: number; max: number }): number {
    assert(range.min <= range.max);
    return range.min + this.nextIndex(range.max - range.min + 1);
  }

  nextBoolean(): boolean {
    return (this.nextUint32() & 1) === 1;
  }

  nextBytes(sizeBytes: number): Uint8Array {
    const bytes = new Uint8Array(sizeBytes);
    for (let index = 0; index < sizeBytes; index++) bytes[index] = this.nextUint32() & 0xff;
    return bytes;
  }
}
