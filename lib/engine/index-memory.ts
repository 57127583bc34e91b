// The memory budget of a partition group's index structures: a share of its part of
// storeMemoryLimit (INDEX_MEMORY_SHARE_OF_STORE_MEMORY). Structures reserve their bytes as they
// grow and release them when they shrink or go; a reservation past the budget is refused, and the
// index that asked is dropped from memory (queries then scan), so the total never passes it.

import { assert } from '../base/assert.ts';

export class IndexMemory {
  private used = 0;
  /** +1 whenever bytes are released: an index refused earlier may fit now. */
  releaseCount = 0;

  constructor(readonly limitBytes: number) {
    assert(Number.isSafeInteger(limitBytes) && limitBytes >= 0);
  }

  get usedBytes(): number {
    return this.used;
  }

  /** Takes `sizeBytes` from the budget; false (and nothing taken) when it does not fit. */
  tryReserve(sizeBytes: number): boolean {
    assert(sizeBytes >= 0);
    if (this.used + sizeBytes > this.limitBytes) return false;
    this.used += sizeBytes;
    return true;
  }

  release(sizeBytes: number): void {
    assert(sizeBytes >= 0);
    assert(sizeBytes <= this.used);
    this.used -= sizeBytes;
    if (sizeBytes > 0) this.releaseCount++;
  }
}
