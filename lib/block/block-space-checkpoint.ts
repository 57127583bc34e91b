// What a checkpoint needs from a BlockSpace: which physical blocks changed and which were freed
// since the last checkpoint set, a consistent image of each as of the set's snapshot, and when a
// freed block id may be handed out again. BlockSpace owns one and tells it of every change.
//
// The interval is the time between two takeCheckpointSet() calls. A checkpoint set is taken at the
// snapshot LSN, encoded in batches while commits go on (encode), then finished once its cplog is
// durable, or abandoned when the checkpoint failed.
//
// Copy-on-write: the blocks of the set in flight that are not encoded yet are `pending`. The first
// change to a pending block after the take (willChange, which every change calls BEFORE it alters
// anything, freeing included) saves its image as it was at the snapshot in `pendingImages`;
// encode() hands out that image rather than the live block. So a set's images are all as of its
// snapshot, and a copy is made only for a block that changes before the checkpoint reaches it.
// The copies are bounded by the set (one per pending block), not by a constant: a checkpoint that
// encodes promptly keeps them few (BlockSpace.pendingImageCount shows how many are held).
//
// Swap images: a changed block evicted since the last take already has its current image on disk
// (buffer-pool.ts). The take lists such blocks in `swapped` (they are also in `dirty`): the
// checkpoint adopts those images instead of encoding, so they are never pending.
//
// Freed ids: an id freed in an interval goes to `freed`, and is quarantined: it is not handed out
// again until the set reporting it is finished, i.e. until its FREE entry is durable. So a set
// never names one id as both dirty and freed (freeing drops an id from `dirty`; a quarantined id
// cannot come back within the interval), and a pending block freed after the snapshot cannot be
// reused while its snapshot image still waits to be written. Only an id born in the same interval
// (allocated after the last take, so no checkpoint has it) is reusable at once and not reported.
//
// Invariants (checkInvariants): dirty and freed are disjoint; a freed or quarantined id is not
// live; saved images are of pending blocks.

import { assert } from '../base/assert.ts';
import type { BlockId } from '../base/ids.ts';

/** The blocks one checkpoint writes, as of its snapshot, each list ascending (the caller's own). */
export interface CheckpointSet {
  /** Changed (or new) since the last set: write their images (BLOCK entries). */
  readonly dirty: BlockId[];
  /** Freed since the last set: FREE entries. Disjoint from dirty. */
  readonly freed: BlockId[];
  /** Unchanged blocks the caller asked to re-log (split checkpoint): write their images too. */
  readonly relogged: BlockId[];
  /** Those of dirty whose current image is a swap image on disk: adopt it, do not encode. */
  readonly swapped: BlockId[];
}

export interface BlockSpaceCheckpointHooks {
  /** The image of a live block as it is now, in `into` when given and the block's kind allows. */
  encodeLive(blockId: BlockId, into?: Uint8Array): Uint8Array;
  isLive(blockId: BlockId): boolean;
}

export class BlockSpaceCheckpoint {
  private readonly dirty = new Set<BlockId>();
  private readonly freed = new Set<BlockId>();
  /** Allocated since the last take: freed before the next one, no checkpoint ever saw them. */
  private readonly born = new Set<BlockId>();
  /** The set in flight, from take until finish or abandon. */
  private taken: CheckpointSet | undefined;
  /** Its dirty and relogged ids; those encoded too. */
  private readonly inSet = new Set<BlockId>();
  /** The kinds of its blocks freed since the take, which the checkpoint still asks for. */
  private readonly freedKinds = new Map<BlockId, number>();
  private readonly pending = new Set<BlockId>();
  private readonly pendingImages = new Map<BlockId, Uint8Array>();
  private copyCount = 0;

  constructor(private readonly hooks: BlockSpaceCheckpointHooks) {}

  /** Snapshot images saved because a pending block changed before it was encoded. */
  get copyOnWriteCount(): number {
    return this.copyCount;
  }

  get pendingImageCount(): number {
    return this.pendingImages.size;
  }

  get dirtyCount(): number {
    return this.dirty.size;
  }

  get inFlight(): boolean {
    return this.taken !== undefined;
  }

  isDirty(blockId: BlockId): boolean {
    return this.dirty.has(blockId);
  }

  /** Must the set in flight still encode blockId? */
  isPending(blockId: BlockId): boolean {
    return this.pending.has(blockId);
  }

  /** A new live block. */
  allocated(blockId: BlockId): void {
    assert(!this.freed.has(blockId), `block ${blockId} reused in quarantine`);
    this.born.add(blockId);
    this.dirty.add(blockId);
  }

  /** blockId's image is about to change: saves its snapshot image if the set in flight needs it. */
  willChange(blockId: BlockId): void {
    // O(1): the common case (no checkpoint in flight) is one look-up in an empty set.
    if (this.pending.has(blockId) && !this.pendingImages.has(blockId)) {
      this.pendingImages.set(blockId, this.hooks.encodeLive(blockId));
      this.copyCount++;
    }
    this.dirty.add(blockId);
  }

  /** blockId, of kind, is about to be freed; returns whether it may be handed out again at once. */
  willFree(blockId: BlockId, kind: number): boolean {
    this.willChange(blockId);
    if (this.inSet.has(blockId)) this.freedKinds.set(blockId, kind);
    this.dirty.delete(blockId);
    if (this.born.delete(blockId)) return true;
    this.freed.add(blockId);
    return false;
  }

  /** Recovery: these ids were not restored; report them freed in the next set. */
  restoreFreed(blockIds: Iterable<BlockId>): void {
    for (const blockId of blockIds) {
      assert(!this.hooks.isLive(blockId));
      this.freed.add(blockId);
    }
  }

  take(relogIds: Iterable<BlockId>, hasSwapImage: (id: BlockId) => boolean = () => false): CheckpointSet {
    assert(this.taken === undefined, 'a checkpoint set is in flight');
    assert(this.pending.size === 0 && this.pendingImages.size === 0);
    const relogged = new Set<BlockId>();
    for (const id of relogIds) {
      if (this.hooks.isLive(id) && !this.dirty.has(id)) relogged.add(id);
    }
    const dirty = ascending(this.dirty);
    const set: CheckpointSet = {
      dirty, freed: ascending(this.freed), relogged: ascending(relogged),
      swapped: dirty.filter(hasSwapImage),
    };
    const swapped = new Set(set.swapped);
    for (const id of [...set.dirty, ...set.relogged]) {
      if (!swapped.has(id)) this.pending.add(id);
      this.inSet.add(id);
    }
    this.dirty.clear();
    this.freed.clear();
    this.born.clear();
    this.taken = set;
    return {
      dirty: [...set.dirty], freed: [...set.freed], relogged: [...set.relogged],
      swapped: [...set.swapped],
    };
  }

  /** The kind of a block of the set in flight freed since the take; undefined for any other. */
  freedKindOf(blockId: BlockId): number | undefined {
    return this.freedKinds.get(blockId);
  }

  /**
   * The image of blockId for the checkpoint: a pending block's snapshot image, once (it is then
   * no longer pending), else the live block as it is now.
   */
  encode(blockId: BlockId, into?: Uint8Array): Uint8Array {
    if (this.pending.delete(blockId)) {
      const saved = this.pendingImages.get(blockId);
      if (saved !== undefined) {
        this.pendingImages.delete(blockId);
        return saved;
      }
    }
    assert(this.hooks.isLive(blockId), `block ${blockId} is not live`);
    return this.hooks.encodeLive(blockId, into);
  }

  /** The set's cplog is durable: its freed ids come out of quarantine; returns them. */
  finish(): readonly BlockId[] {
    assert(this.taken !== undefined, 'no checkpoint set in flight');
    assert(this.pending.size === 0, `${this.pending.size} blocks of the set were not encoded`);
    assert(this.pendingImages.size === 0);
    const reusable = this.taken.freed;
    this.endSet();
    return reusable;
  }

  /**
   * The checkpoint failed: the next set must cover this one. Its dirty blocks still live are dirty
   * again, its freed ids freed again (still quarantined).
   */
  abandon(): void {
    assert(this.taken !== undefined, 'no checkpoint set in flight');
    for (const id of this.taken.dirty) if (this.hooks.isLive(id)) this.dirty.add(id);
    for (const id of this.taken.freed) this.freed.add(id);
    this.endSet();
  }

  private endSet(): void {
    this.pending.clear();
    this.pendingImages.clear();
    this.inSet.clear();
    this.freedKinds.clear();
    this.taken = undefined;
  }

  /** O(blocks): the invariants at the top of this file. */
  checkInvariants(): void {
    for (const id of this.freed) {
      assert(!this.dirty.has(id), `block ${id} both dirty and freed`);
      assert(!this.hooks.isLive(id), `freed block ${id} is live`);
      assert(!this.born.has(id));
    }
    for (const id of this.dirty) assert(this.hooks.isLive(id), `dirty block ${id} is not live`);
    for (const id of this.pendingImages.keys()) assert(this.pending.has(id));
    for (const id of this.pending) assert(this.inSet.has(id));
    for (const id of this.freedKinds.keys()) assert(!this.hooks.isLive(id));
    for (const id of this.taken?.freed ?? []) assert(!this.hooks.isLive(id), `${id} reused early`);
  }
}

function ascending(ids: Iterable<BlockId>): BlockId[] {
  return [...ids].sort((a, b) => a - b);
}
