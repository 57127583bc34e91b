// FreeSlots: which data-file slots of a partition may take a block image (shadow paging).
//
// The rule it keeps: a slot the last complete checkpoint references is never handed out again
// until a newer checkpoint that no longer references it is durable. So a slot whose block moved
// to another slot, or was removed, is not free at once: it is retired, and freed only when the
// checkpoint that supersedes it completes.
//
// Which checkpoint supersedes a retired slot depends on who moved the block:
//   retire(slot)               anyone but the running checkpoint's own writes (a transaction's
//                              first change to a block since the last checkpoint, a swap-out, a
//                              removal). Freed when the next checkpoint to *start* completes: a
//                              checkpoint already running took its map before the move and may
//                              still reference the slot.
//   retireForCheckpoint(slot)  the running checkpoint itself wrote the block's image to a new
//                              slot and logs that one. Freed when that checkpoint completes.
//   release(slot)              no checkpoint, complete or running, ever referenced the slot (a
//                              stale swap image, buffer-pool.ts): free at once.
// A checkpoint that fails frees nothing; what it would have freed waits for the next one.
//
// Slot states: free (in the heap), in use, retired (waiting for the next checkpoint to start and
// complete), retired for the running checkpoint. allocate() takes the lowest free slot, so files
// stay compact; with none free it adds a slot at the end.

import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import { invariants } from '../lib/base/invariants.ts';
import { DATA_SLOT_COUNT_MAX } from '../lib/base/limits.ts';

const FREE = 0;
const IN_USE = 1;
const RETIRED = 2;
const RETIRED_FOR_CHECKPOINT = 3;
type SlotState = typeof FREE | typeof IN_USE | typeof RETIRED | typeof RETIRED_FOR_CHECKPOINT;

const STATE_NAMES = ['free', 'in use', 'retired', 'retired for the running checkpoint'] as const;
const STATES_CAPACITY_MIN = 64;

export interface FreeSlotsOptions {
  /** Defaults to DATA_SLOT_COUNT_MAX; tests pass tiny ones. */
  slotCountMax?: number;
}

export class FreeSlots {
  private readonly slotCountMax: number;
  /** Slots [0, slotCount) exist in the files; each has a state. */
  private slotCountCurrent = 0;
  private states: Uint8Array = new Uint8Array(STATES_CAPACITY_MIN);
  /** Free slots: a binary min-heap. */
  private readonly heap: number[] = [];
  private retired: number[] = [];
  private retiredForCheckpoint: number[] = [];
  private running = false;

  constructor(options: FreeSlotsOptions = {}) {
    this.slotCountMax = options.slotCountMax ?? DATA_SLOT_COUNT_MAX;
    assert(Number.isSafeInteger(this.slotCountMax) && this.slotCountMax >= 1);
    assert(this.slotCountMax <= DATA_SLOT_COUNT_MAX);
  }

  /** Slots in the files: one past the highest ever allocated or rebuilt. */
  get slotCount(): number {
    return this.slotCountCurrent;
  }

  get freeCount(): number {
    return this.heap.length;
  }

  /** Retired slots not yet free, for either checkpoint. */
  get retiredCount(): number {
    return this.retired.length + this.retiredForCheckpoint.length;
  }

  get checkpointRunning(): boolean {
    return this.running;
  }

  /** The lowest free slot, now in use; a new slot at the end if none is free. */
  allocate(): number {
    const slot = this.heap.length > 0 ? heapPop(this.heap) : this.grow();
    this.expectState(slot, FREE);
    this.states[slot] = IN_USE;
    return slot;
  }

  /** A slot in use that no checkpoint references (a swap image) is free again. */
  release(slot: number): void {
    this.expectState(slot, IN_USE);
    this.states[slot] = FREE;
    heapPush(this.heap, slot);
  }

  /** The block in `slot` moved or was removed outside the running checkpoint's writes. */
  retire(slot: number): void {
    this.expectState(slot, IN_USE);
    this.states[slot] = RETIRED;
    this.retired.push(slot);
  }

  /** The running checkpoint wrote the block in `slot` to a new slot, and logs that one. */
  retireForCheckpoint(slot: number): void {
    assert(this.running, 'no checkpoint is running');
    this.expectState(slot, IN_USE);
    this.states[slot] = RETIRED_FOR_CHECKPOINT;
    this.retiredForCheckpoint.push(slot);
  }

  /** A checkpoint takes its map now: the slots retired so far are superseded by it. */
  checkpointStarted(): void {
    assert(!this.running, 'a checkpoint is already running');
    assert(this.retiredForCheckpoint.length === 0);
    this.running = true;
    for (const slot of this.retired) this.states[slot] = RETIRED_FOR_CHECKPOINT;
    [this.retiredForCheckpoint, this.retired] = [this.retired, this.retiredForCheckpoint];
  }

  /** The running checkpoint's cplog is durable: the slots it superseded are free. */
  checkpointCompleted(): void {
    assert(this.running, 'no checkpoint is running');
    for (const slot of this.retiredForCheckpoint) {
      this.expectState(slot, RETIRED_FOR_CHECKPOINT);
      this.states[slot] = FREE;
      heapPush(this.heap, slot);
    }
    this.retiredForCheckpoint.length = 0;
    this.running = false;
    if (invariants.enabled) this.checkInvariants();
  }

  /** The running checkpoint will never complete: its slots wait for the next one. */
  checkpointFailed(): void {
    assert(this.running, 'no checkpoint is running');
    for (const slot of this.retiredForCheckpoint) {
      this.states[slot] = RETIRED;
      this.retired.push(slot);
    }
    this.retiredForCheckpoint.length = 0;
    this.running = false;
  }

  /**
   * Starts over from a recovered block map: its slots are in use, every other slot below
   * `slotCount` (the files' extent; raised to cover the map) is free. Two blocks in one slot is
   * CORRUPTION.
   */
  rebuild(blockMap: ReadonlyMap<unknown, { slot: number }>, slotCount: number): void {
    assert(Number.isSafeInteger(slotCount) && slotCount >= 0);
    assert(slotCount <= this.slotCountMax);
    let count = slotCount;
    for (const { slot } of blockMap.values()) {
      this.assertSlot(slot);
      count = Math.max(count, slot + 1);
    }
    this.states = new Uint8Array(Math.max(STATES_CAPACITY_MIN, count));
    this.slotCountCurrent = count;
    for (const [blockId, { slot }] of blockMap) {
      if (this.states[slot] === IN_USE) {
        throw new StorageError('CORRUPTION', `block map: slot ${slot} holds two blocks, one of ` +
          `them ${String(blockId)}`);
      }
      this.states[slot] = IN_USE;
    }
    this.heap.length = 0;
    // Ascending order is a valid min-heap.
    for (let slot = 0; slot < count; slot++) if (this.states[slot] === FREE) this.heap.push(slot);
    this.retired = [];
    this.retiredForCheckpoint = [];
    this.running = false;
  }

  /** Free slots, ascending (releaseUnusedFileBlocks punches them). */
  freeSlots(): number[] {
    return this.heap.slice().sort((a, b) => a - b);
  }

  /** 'free', 'in use', 'retired', 'retired for the running checkpoint'; for tests and tools. */
  slotStateName(slot: number): string {
    this.assertSlot(slot);
    return slot < this.slotCountCurrent ? STATE_NAMES[this.states[slot]!]! : 'beyond the files';
  }

  /** O(slotCount): the heap, the lists and the states agree. */
  checkInvariants(): void {
    const counts = [0, 0, 0, 0];
    for (let slot = 0; slot < this.slotCountCurrent; slot++) counts[this.states[slot]!]! += 1;
    assert(counts[FREE] === this.heap.length);
    assert(counts[RETIRED] === this.retired.length);
    assert(counts[RETIRED_FOR_CHECKPOINT] === this.retiredForCheckpoint.length);
    for (const slot of this.heap) assert(this.states[slot] === FREE);
    for (const slot of this.retired) assert(this.states[slot] === RETIRED);
    if (!this.running) assert(this.retiredForCheckpoint.length === 0);
    for (let i = 1; i < this.heap.length; i++) {
      assert(this.heap[(i - 1) >> 1]! <= this.heap[i]!);
    }
  }

  private grow(): number {
    if (this.slotCountCurrent >= this.slotCountMax) {
      throw new StorageError('LIMIT_EXCEEDED', `data files are full: all ${this.slotCountMax} ` +
        'slots of the partition are in use or waiting for a checkpoint');
    }
    const slot = this.slotCountCurrent;
    if (slot >= this.states.length) {
      const states = new Uint8Array(Math.min(2 * this.states.length, this.slotCountMax));
      states.set(this.states);
      this.states = states;
    }
    this.slotCountCurrent += 1;
    return slot;
  }

  private expectState(slot: number, state: SlotState): void {
    this.assertSlot(slot);
    assert(slot < this.slotCountCurrent, `slot ${slot} is beyond the files`);
    const actual = this.states[slot]!;
    assert(actual === state, `slot ${slot} is ${STATE_NAMES[actual]}, not ${STATE_NAMES[state]}`);
  }

  private assertSlot(slot: number): void {
    assert(Number.isSafeInteger(slot));
    assert(slot >= 0 && slot < this.slotCountMax);
  }
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= value) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  assert(heap.length > 0);
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length === 0) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]! < heap[left]! ? right : left;
    if (heap[child]! >= last) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return top;
}
