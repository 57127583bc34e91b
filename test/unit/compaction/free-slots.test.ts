import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AssertionError } from '../../../lib/base/assert.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { FreeSlots } from '../../../compaction/free-slots.ts';

function allocateN(slots: FreeSlots, count: number): number[] {
  return Array.from({ length: count }, () => slots.allocate());
}

function slotMap(...slots: number[]): Map<number, { slot: number }> {
  return new Map(slots.map((slot, blockId) => [blockId, { slot }]));
}

describe('FreeSlots', () => {
  it('hands out the lowest free slot, growing when none is free', () => {
    const slots = new FreeSlots();
    assert.deepEqual(allocateN(slots, 4), [0, 1, 2, 3]);
    slots.retire(2);
    slots.retire(0);
    slots.checkpointStarted();
    slots.checkpointCompleted();
    assert.deepEqual(slots.freeSlots(), [0, 2]);
    assert.deepEqual(allocateN(slots, 3), [0, 2, 4]);
    assert.equal(slots.slotCount, 5);
  });

  it('frees a retired slot only when a checkpoint that started after it completes', () => {
    const slots = new FreeSlots();
    allocateN(slots, 3);
    slots.retire(0);
    assert.equal(slots.slotStateName(0), 'retired');
    slots.checkpointStarted();
    slots.retire(1); // the running checkpoint's map may still reference slot 1
    slots.checkpointCompleted();
    assert.deepEqual(slots.freeSlots(), [0]);
    assert.equal(slots.slotStateName(1), 'retired');
    slots.checkpointStarted();
    slots.checkpointCompleted();
    assert.deepEqual(slots.freeSlots(), [0, 1]);
  });

  it('frees a slot the running checkpoint moved away from when that checkpoint completes', () => {
    const slots = new FreeSlots();
    allocateN(slots, 2);
    slots.checkpointStarted();
    assert.equal(slots.allocate(), 2);
    slots.retireForCheckpoint(0);
    assert.equal(slots.slotStateName(0), 'retired for the running checkpoint');
    slots.checkpointCompleted();
    assert.deepEqual(slots.freeSlots(), [0]);
  });

  it('keeps what a failed checkpoint would have freed until the next one completes', () => {
    const slots = new FreeSlots();
    allocateN(slots, 3);
    slots.retire(0);
    slots.checkpointStarted();
    slots.retireForCheckpoint(1);
    slots.checkpointFailed();
    assert.deepEqual(slots.freeSlots(), []);
    assert.equal(slots.retiredCount, 2);
    assert.equal(slots.allocate(), 3);
    slots.checkpointStarted();
    slots.checkpointCompleted();
    assert.deepEqual(slots.freeSlots(), [0, 1]);
  });

  it('rebuilds from a block map: every other slot below the files’ extent is free', () => {
    const slots = new FreeSlots();
    allocateN(slots, 2);
    slots.retire(1);
    slots.rebuild(slotMap(5, 1, 3), 4);
    assert.equal(slots.slotCount, 6, 'raised to cover slot 5');
    assert.deepEqual(slots.freeSlots(), [0, 2, 4]);
    assert.equal(slots.retiredCount, 0);
    assert.deepEqual(allocateN(slots, 4), [0, 2, 4, 6]);
    assert.throws(() => slots.rebuild(slotMap(1, 1), 0),
      (error: unknown) => isStorageError(error, 'CORRUPTION'));
  });

  it('asserts on misuse and refuses to grow past its limit', () => {
    const slots = new FreeSlots({ slotCountMax: 2 });
    assert.throws(() => slots.retire(0), AssertionError);
    allocateN(slots, 2);
    assert.throws(() => slots.allocate(),
      (error: unknown) => isStorageError(error, 'LIMIT_EXCEEDED'));
    slots.retire(0);
    assert.throws(() => slots.retire(0), AssertionError);
    assert.throws(() => slots.retireForCheckpoint(1), AssertionError);
    assert.throws(() => slots.checkpointCompleted(), AssertionError);
    slots.checkpointStarted();
    assert.throws(() => slots.checkpointStarted(), AssertionError);
  });

  it('never hands out a slot a durable or running checkpoint references (model)', () => {
    const operations = fc.array(operationArbitrary, { maxLength: 80, size: 'max' });
    fc.assert(fc.property(operations, (operations) => {
      const model = new SlotModel();
      for (const operation of operations) model.apply(operation);
      model.drain();
    }), { numRuns: 500 });
  });
});

type Operation =
  | { kind: 'create' | 'start' | 'complete' | 'fail' | 'crash' }
  | { kind: 'move' | 'checkpointMove' | 'remove'; pick: number };

const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'create' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('move' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('checkpointMove' as const), pick: fc.nat() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constantFrom(
    { kind: 'start' as const }, { kind: 'complete' as const }, { kind: 'fail' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

/**
 * Blocks with slots, checkpoints that take a copy of the map when they start, and crashes that go
 * back to the last completed copy. Whatever FreeSlots hands out or calls free must be in none of
 * the maps that can still be read: the current one, the running checkpoint's, the last durable.
 */
class SlotModel {
  private slots = new FreeSlots();
  private blocks = new Map<number, number>();
  private running: Map<number, number> | undefined;
  private durable = new Map<number, number>();
  private nextBlockId = 0;

  apply(operation: Operation): void {
    switch (operation.kind) {
      case 'create': this.blocks.set(this.nextBlockId++, this.allocate()); break;
      case 'move': this.withBlock(operation.pick, (id, slot) => {
        this.blocks.set(id, this.allocate());
        this.slots.retire(slot);
      }); break;
      case 'checkpointMove': this.withBlock(operation.pick, (id, slot) => {
        // The running checkpoint writes a block unchanged since it started to a new slot.
        if (this.running?.get(id) !== slot) return;
        const moved = this.allocate();
        this.slots.retireForCheckpoint(slot);
        this.blocks.set(id, moved);
        this.running.set(id, moved);
      }); break;
      case 'remove': this.withBlock(operation.pick, (id, slot) => {
        this.blocks.delete(id);
        this.slots.retire(slot);
      }); break;
      case 'start': if (this.running === undefined) {
        this.running = new Map(this.blocks);
        this.slots.checkpointStarted();
      } break;
      case 'complete': if (this.running !== undefined) {
        this.durable = this.running;
        this.running = undefined;
        this.slots.checkpointCompleted();
      } break;
      case 'fail': if (this.running !== undefined) {
        this.running = undefined;
        this.slots.checkpointFailed();
      } break;
      case 'crash': {
        const slotCount = this.slots.slotCount;
        this.slots = new FreeSlots();
        const durableMap = new Map([...this.durable].map(([id, slot]) => [id, { slot }]));
        this.slots.rebuild(durableMap, slotCount);
        this.blocks = new Map(this.durable);
        this.running = undefined;
      } break;
    }
    this.check();
  }

  /** Two quiet checkpoints later, every slot no block holds is free: nothing leaks. */
  drain(): void {
    if (this.running !== undefined) this.apply({ kind: 'fail' });
    for (let i = 0; i < 2; i++) {
      this.apply({ kind: 'start' });
      this.apply({ kind: 'complete' });
    }
    const held = new Set(this.blocks.values());
    const unheld = Array.from({ length: this.slots.slotCount }, (_, s) => s)
      .filter((s) => !held.has(s));
    assert.deepEqual(this.slots.freeSlots(), unheld);
  }

  private allocate(): number {
    const free = this.slots.freeSlots();
    const expected = free.length > 0 ? free[0]! : this.slots.slotCount;
    const slot = this.slots.allocate();
    assert.equal(slot, expected, 'lowest free slot first');
    assert.ok(!this.referenced().has(slot), `slot ${slot} handed out while referenced`);
    return slot;
  }

  private withBlock(pick: number, act: (id: number, slot: number) => void): void {
    const ids = [...this.blocks.keys()];
    if (ids.length === 0) return;
    const id = ids[pick % ids.length]!;
    act(id, this.blocks.get(id)!);
  }

  private referenced(): Set<number> {
    return new Set([
      ...this.blocks.values(), ...(this.running?.values() ?? []), ...this.durable.values(),
    ]);
  }

  private check(): void {
    this.slots.checkInvariants();
    const referenced = this.referenced();
    for (const slot of this.slots.freeSlots()) {
      assert.ok(!referenced.has(slot), `free slot ${slot} is referenced`);
    }
  }
}
