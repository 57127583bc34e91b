// Block space of one partition: its physical blocks (BlockIds), what each holds
// (physical-block.ts), the `#unique` rule, and what a checkpoint needs to know of them
// (block-space-checkpoint.ts).
//
// A container whose dataAffinity is `#unique` gets physical blocks of its own (fast scan and drop).
// Any other container's small row blocks (usedBytes <= blockSizeBytes / 4) are packed into shared
// pages, grouped by dataAffinity, so thousands of tiny containers do not each take a whole block.
// A row block that grows past the share moves to a block of its own; one that shrinks stays where
// it is (no ping-pong between shared and private on every put and remove). Large values take
// whole blocks of their own.
//
// The space holds its tenants (RowBlocks, large-value chunks): it can encode any block on demand.
// Everything that changes a block's image tells the space BEFORE it changes anything: placing a
// tenant in it or taking one out (place, resize, release do this themselves), or changing a tenant
// row block in place (RowStoreBlocks calls willChange). That keeps the dirty set exact and lets a
// checkpoint in flight save the snapshot image of a block about to change (copy-on-write).
//
// Recovery restores blocks under their old ids (restoreTenant, then restoreFinish; see
// block-space-restore.ts): the cplog maps ids to slots, so ids are stable across restarts. New ids
// are then allocated above the highest one restored.
//
// With a buffer pool (buffer-pool.ts) and a backing (block-backing.ts), the tenants' data of a
// physical block may be evicted: a row block then keeps only its outline (counts, layout, first
// key), enough for the B+tree to route to it. use() brings the data back before anyone reads or
// changes it; RowStoreBlocks calls it for every block it hands out. A block is evicted whole: its
// tenants are all resident or all evicted. A large value is evicted with its whole chain (its
// blocks hold one JS value) and read back whole on its next access (LargeValue.value).
//
// A point read (useForRead, a get) that finds a private row block evicted reads its image back and
// keeps just that (PhysicalBlock.image, a RowBlockImage), resident in the pool like any block: it
// reads its row from the image, sparing the decode of the whole block. The image is the block's
// current one on disk (nothing changes a block without use(), which decodes the image first), so
// evicting an image writes nothing. Image buffers are reused (the pool keeps spares).
//
// Invariants (checkInvariants): every block has tenants and fits its size; a ROW block has one row
// block, a LARGE_VALUE block one chunk; byte totals agree; a block's tenants are resident exactly
// when it is and holds no image, and it is in the pool exactly when resident; only a ROW block
// holds an image; those of block-space-checkpoint.ts.

import { assert } from '../base/assert.ts';
import { blockId as toBlockId, type BlockId, type ContainerId } from '../base/ids.ts';
import { invariants } from '../base/invariants.ts';
import { SHARED_BLOCK_REUSE_COUNT_MAX } from '../base/limits.ts';
import { StorageError } from '../base/errors.ts';
import { systemClock, type Clock } from '../io/clock.ts';
import type { BlockBacking } from './block-backing.ts';
import { decodeRowBlock, decodeRowBlockCompact, type LargeValueRef } from './block-format.ts';
import { RowBlockImage } from './block-format-row-image.ts';
import { decodeSharedPage } from './block-format-shared.ts';
import type { BufferPool, PoolClient } from './buffer-pool.ts';
import { decodeLargeValue } from './block-format-large-value.ts';
import type { LargeValue } from './large-value.ts';
import type { Value } from '../schema/column-type.ts';
import { SHARED_PAGE_ENTRY_BYTES, SHARED_PAGE_HEADER_BYTES } from './block-format-shared.ts';
import { BlockSpaceCheckpoint, type CheckpointSet } from './block-space-checkpoint.ts';
import {
  BlockKind, isRowTenant, physicalBlock, PhysicalBlockEncoder, tenantCostBytes,
  type BlockTenant, type PhysicalBlock,
} from './physical-block.ts';
import type { RowBlock } from './row-block.ts';

export type { CheckpointSet } from './block-space-checkpoint.ts';
export { BlockKind, type BlockTenant, type LargeValueChunk } from './physical-block.ts';

export const UNIQUE_AFFINITY = '#unique';
/** Block ids are u32 in block images; 0xFFFF_FFFF means "not placed". */
export const BLOCK_ID_MAX = 0xffff_fffe;

export interface BlockOwner {
  readonly containerId: ContainerId;
  /** dataAffinity `#unique`: never share a physical block. */
  readonly unique: boolean;
  /** Affinity group of a shared container; containers of one group pack together. */
  readonly affinity?: string | undefined;
}

/** The owner record of a container from its dataAffinity. */
export function blockOwnerOf(
  containerId: ContainerId, dataAffinity: string | undefined,
): BlockOwner {
  return { containerId, unique: dataAffinity === UNIQUE_AFFINITY, affinity: dataAffinity };
}

export interface BlockSpaceOptions {
  blockSizeBytes: number;
  /** The partition group's pool; none: every block stays resident. */
  pool?: BufferPool | undefined;
  /** Times swap reads and writes. */
  clock?: Clock | undefined;
}

export class BlockSpace implements PoolClient {
  readonly blockSizeBytes: number;
  /** The largest row block that may live in a shared block. */
  readonly shareBytesMax: number;
  private readonly blocks = new Map<BlockId, PhysicalBlock>();
  /** Per affinity group: the shared block being filled, and partly freed ones to reuse. */
  private readonly openBlocks = new Map<string, PhysicalBlock>();
  private readonly reusableBlocks = new Map<string, PhysicalBlock[]>();
  private readonly freeIds: BlockId[] = [];
  private nextId = 0;
  private tenantBytes = 0;
  /** Set by the first placement or restoreFinish: restoring is over. */
  private opened = false;
  private readonly encoder: PhysicalBlockEncoder;
  private readonly checkpoint: BlockSpaceCheckpoint;
  private readonly pool: BufferPool | undefined;
  private readonly clock: Clock;
  /** Where evicted blocks' images are; until attached nothing is evicted. */
  private backing: BlockBacking | undefined;
  private loadBuffer: Uint8Array | undefined;
  private swapBuffer: Uint8Array | undefined;

  constructor(options: BlockSpaceOptions) {
    assert(options.blockSizeBytes >= 4096);
    this.blockSizeBytes = options.blockSizeBytes;
    this.shareBytesMax = Math.floor(options.blockSizeBytes / 4);
    this.encoder = new PhysicalBlockEncoder(options.blockSizeBytes);
    this.pool = options.pool;
    this.clock = options.clock ?? systemClock;
    this.checkpoint = new BlockSpaceCheckpoint({
      encodeLive: (id, into) => this.encodeLive(id, into),
      isLive: (id) => this.blocks.has(id),
    });
  }

  /** The partition's data files are open: from now on blocks may be evicted to them. */
  attachBacking(backing: BlockBacking): void {
    assert(this.backing === undefined, 'backing attached twice');
    this.backing = backing;
  }

  /** A store operation begins (buffer-pool.ts): blocks used by the last one may be evicted. */
  beginOperation(): void {
    this.pool?.beginOperation();
  }

  /**
   * blockId's data is about to be read or changed: brings it back if it was evicted (a swap read)
   * and holds it until the next operation begins.
   */
  use(blockId: BlockId): void {
    if (this.pool === undefined) return;
    this.ensureResident(this.blockOf(blockId));
  }

  /**
   * use() for a point read: an evicted private row block comes back as its image only (see the
   * top). Returns the image while that is all that is in memory, else undefined: then the block's
   * rows are, and the caller reads them.
   */
  useForRead(blockId: BlockId): RowBlockImage | undefined {
    const pool = this.pool;
    if (pool === undefined) return undefined;
    const block = this.blockOf(blockId);
    if (block.resident) pool.touch(block);
    else if (block.kind === BlockKind.ROW) this.loadImage(block);
    else this.load(block);
    return block.image;
  }

  /** Is blockId's data in memory? */
  isResident(blockId: BlockId): boolean {
    return this.blockOf(blockId).resident;
  }

  /** PoolClient: a block a checkpoint has yet to encode stays, and nothing goes without a backing. */
  canEvict(block: PhysicalBlock): boolean {
    if (this.backing === undefined) return false;
    if (block.kind !== BlockKind.LARGE_VALUE) return !this.checkpoint.isPending(block.id);
    return block.chunk!.value.blockIds.every((id) => !this.checkpoint.isPending(id));
  }

  /**
   * PoolClient: drops the block's data. A block changed since the last checkpoint set whose image
   * is not on disk yet is written first (a swap write).
   */
  evict(block: PhysicalBlock): void {
    assert(this.backing !== undefined && block.resident);
    if (block.kind === BlockKind.LARGE_VALUE) {
      this.evictLargeValue(block);
      return;
    }
    if (block.image !== undefined) {
      // The image is the one on disk: a block changed since it was read would have been decoded.
      assert(!this.checkpoint.isDirty(block.id) || block.swapImage, `image of ${block.id} stale`);
      this.dropImage(block);
      block.resident = false;
      return;
    }
    this.swapOutIfChanged(block);
    for (const row of block.rows) row.evict();
    block.resident = false;
  }

  /** The whole chain goes: the pool removes `victim`, this the chain's other blocks. */
  private evictLargeValue(victim: PhysicalBlock): void {
    const value = victim.chunk!.value;
    const chain = value.blockIds.map((id) => this.blockOf(id));
    for (const block of chain) this.swapOutIfChanged(block);
    for (const block of chain) {
      assert(block.resident, `large-value block ${block.id} half evicted`);
      block.resident = false;
      // Recovery admits a chain block by block: the rest of it may not be in the pool yet.
      if (block !== victim && block.frameIndex >= 0) this.pool!.remove(block);
    }
    value.evict((evicted) => this.loadLargeValue(evicted));
  }

  /** A swap write when the block changed since the last checkpoint set and is not on disk yet. */
  private swapOutIfChanged(block: PhysicalBlock): void {
    if (!this.checkpoint.isDirty(block.id) || block.swapImage) return;
    const startMs = this.clock.monotonicMs();
    // The image is written at once: one buffer serves every swap write.
    this.swapBuffer ??= new Uint8Array(this.blockSizeBytes);
    const image = this.encoder.encode(block, this.swapBuffer);
    const writtenBytes = this.backing!.swapOut(block.id, image, block.kind);
    block.swapImage = true;
    this.pool!.countSwapWrite(writtenBytes, this.clock.monotonicMs() - startMs);
  }

  /** Swap reads of a large value's chain; its blocks are resident again. */
  private loadLargeValue(value: LargeValue): Exclude<Value, null> {
    const startMs = this.clock.monotonicMs();
    const chain = value.blockIds.map((id) => this.blockOf(id));
    const images = chain.map((block) => this.backing!.readImage(block.id));
    const decoded = decodeLargeValue(images, {
      kind: value.kind, sizeBytes: value.sizeBytes, firstBlockId: chain[0]!.id,
      blockCount: chain.length, columnIndex: -1, rowIndex: -1,
    });
    assert(decoded !== null);
    this.pool!.countSwapRead(chain.length, chain.length * this.blockSizeBytes,
      this.clock.monotonicMs() - startMs);
    for (const block of chain) block.resident = true;
    for (const block of chain) this.pool!.admit(block, this);
    return decoded;
  }

  /** Physical blocks in use. */
  get blockCount(): number {
    return this.blocks.size;
  }

  /** Physical blocks in use by kind. O(blocks). */
  blockCountsByKind(): { row: number; shared: number; largeValue: number } {
    const counts = { row: 0, shared: 0, largeValue: 0 };
    for (const block of this.blocks.values()) {
      if (block.kind === BlockKind.ROW) counts.row++;
      else if (block.kind === BlockKind.SHARED) counts.shared++;
      else counts.largeValue++;
    }
    return counts;
  }

  /** Bytes of the tenants placed (what their images take), summed over every block. */
  get bytesInUse(): number {
    return this.tenantBytes;
  }

  /** Finds room for a tenant of usedBytes and returns the physical block it is in. */
  place(owner: BlockOwner, usedBytes: number, tenant: BlockTenant): BlockId {
    assert(usedBytes > 0);
    assert(usedBytes <= this.blockSizeBytes);
    assert(tenant.containerId === owner.containerId, 'tenant of another container');
    this.opened = true;
    const block = !isRowTenant(tenant) ? this.newBlock(BlockKind.LARGE_VALUE, '')
      : this.sharable(owner, usedBytes) ? this.sharedBlockWithRoom(groupOf(owner), usedBytes)
        : this.newBlock(BlockKind.ROW, '');
    // A tenant's data is in memory: so must its block's other tenants be.
    this.ensureResident(block);
    this.changing(block);
    this.addTenant(block, tenant, usedBytes);
    if (invariants.enabled) this.checkInvariants();
    return block.id;
  }

  /** A placed row block changed size; returns its block, which differs when it had to move. */
  resize(
    owner: BlockOwner, blockId: BlockId, sizes: { fromBytes: number; toBytes: number },
    tenant: RowBlock,
  ): BlockId {
    const { fromBytes, toBytes } = sizes;
    const block = this.blockOf(blockId);
    assert(toBytes > 0 && toBytes <= this.blockSizeBytes);
    assert(block.rows.has(tenant), 'resize by a non-tenant');
    const grownBytes = toBytes - fromBytes;
    const stays = block.kind !== BlockKind.SHARED ||
      (toBytes <= this.shareBytesMax && block.usedBytes + grownBytes <= this.blockSizeBytes);
    if (!stays) {
      this.release(owner, blockId, fromBytes, tenant);
      return this.place(owner, toBytes, tenant);
    }
    this.changing(block);
    block.usedBytes += grownBytes;
    this.tenantBytes += grownBytes;
    if (grownBytes < 0 && block.kind === BlockKind.SHARED) this.remember(block);
    return blockId;
  }

  /** A tenant of usedBytes left blockId (removed, emptied, or its container dropped). */
  release(owner: BlockOwner, blockId: BlockId, usedBytes: number, tenant: BlockTenant): void {
    const block = this.blockOf(blockId);
    assert(tenant.containerId === owner.containerId);
    // A page that keeps other tenants gets a new image: it must be in memory to be encoded (its
    // image on disk, kept as it is, would name a container that no longer has the block).
    const emptied = block.rows.size + (block.chunk === undefined ? 0 : 1) === 1;
    if (!emptied) this.ensureResident(block);
    // Before the tenant goes: a checkpoint in flight may still need the block with it.
    this.changing(block);
    if (isRowTenant(tenant)) {
      assert(block.rows.delete(tenant), `container ${owner.containerId} not in ${blockId}`);
    } else {
      const chunk = block.chunk;
      assert(chunk !== undefined && chunk.value === tenant.value);
      assert(chunk.sequence === tenant.sequence);
      block.chunk = undefined;
    }
    block.usedBytes -= tenantCostBytes(block.kind, usedBytes);
    this.tenantBytes -= usedBytes;
    assert(block.usedBytes >= 0);
    if (block.rows.size === 0 && block.chunk === undefined) this.free(block);
    else if (block.kind === BlockKind.SHARED) this.remember(block);
    if (invariants.enabled) this.checkInvariants();
  }

  /**
   * A tenant row block of blockId is about to change in place (rows put, removed, moved; columns
   * added; schema relaid). Call before the first change: a checkpoint in flight saves the block's
   * snapshot image. O(1).
   */
  willChange(blockId: BlockId): void {
    this.changing(this.blockOf(blockId));
  }

  /** Containers with tenants in blockId (empty when the block is free). */
  tenantsOf(blockId: BlockId): ContainerId[] {
    const block = this.blocks.get(blockId);
    if (block === undefined) return [];
    if (block.chunk !== undefined) return [block.chunk.containerId];
    return [...new Set([...block.rows].map((row) => row.containerId))];
  }

  /** Is this row block a tenant of blockId? */
  holds(blockId: BlockId, tenant: RowBlock): boolean {
    return this.blocks.get(blockId)?.rows.has(tenant) ?? false;
  }

  isShared(blockId: BlockId): boolean {
    return this.blocks.get(blockId)?.kind === BlockKind.SHARED;
  }

  /**
   * The kind of a live block, or of a block of the checkpoint set in flight freed since the take
   * (the set still writes its snapshot image). Any other id is a programmer error.
   */
  blockKind(blockId: BlockId): BlockKind {
    const kind = this.blocks.get(blockId)?.kind ?? this.checkpoint.freedKindOf(blockId);
    assert(kind !== undefined, `block ${blockId} is neither live nor in the checkpoint set`);
    return kind as BlockKind;
  }

  isLive(blockId: BlockId): boolean {
    return this.blocks.has(blockId);
  }

  /** Every live block id, ascending (a split checkpoint picks its cold blocks from these). */
  liveBlockIds(): BlockId[] {
    return [...this.blocks.keys()].sort((a, b) => a - b);
  }

  /** Blocks changed since the last checkpoint set. */
  get dirtyBlockCount(): number {
    return this.checkpoint.dirtyCount;
  }

  isDirty(blockId: BlockId): boolean {
    return this.checkpoint.isDirty(blockId);
  }

  /** Snapshot images saved because a block changed before its checkpoint encoded it. */
  get copyOnWriteCount(): number {
    return this.checkpoint.copyOnWriteCount;
  }

  /** Snapshot images held now, blockSizeBytes each: the memory the set in flight pins. */
  get pendingImageCount(): number {
    return this.checkpoint.pendingImageCount;
  }

  /**
   * At the checkpoint's snapshot LSN: the blocks changed and freed since the last set, and
   * relogIds (live, not dirty: the cold blocks to re-log), all to be encoded as of now. Resets
   * the dirty and freed sets. One set at a time: finish or abandon it before the next.
   */
  takeCheckpointSet(options: { relogIds?: Iterable<BlockId> } = {}): CheckpointSet {
    const set = this.checkpoint.take(options.relogIds ?? [],
      (id) => this.blocks.get(id)?.swapImage === true);
    // The checkpoint adopts those images as they are: they are no longer swap images.
    for (const id of set.swapped) this.blockOf(id).swapImage = false;
    return set;
  }

  /**
   * The image of a block, exactly blockSizeBytes. For a block of the set in flight, its image as
   * of the set's snapshot (each such block once); otherwise the live block as it is now.
   */
  encodeBlock(blockId: BlockId, into?: Uint8Array): Uint8Array {
    return this.checkpoint.encode(blockId, into);
  }

  /** The set's blocks are written and its cplog durable: its freed ids may be reused. */
  finishCheckpointSet(): void {
    for (const id of this.checkpoint.finish()) this.freeIds.push(id);
  }

  /** The checkpoint failed: the next set covers this one's blocks and freed ids again. */
  abandonCheckpointSet(): void {
    this.checkpoint.abandon();
  }

  /**
   * Recovery: tenant is in blockId, a block of this kind, as before the restart. Only into a
   * space nothing was placed in yet; restoreFinish ends it. The block is clean.
   */
  restoreTenant(
    owner: BlockOwner, tenant: BlockTenant, placed: { blockId: BlockId; kind: BlockKind },
  ): void {
    const { blockId, kind } = placed;
    assert(!this.opened, 'restoring into a space in use');
    assert(blockId >= 0 && blockId <= BLOCK_ID_MAX);
    assert(tenant.containerId === owner.containerId);
    if (kind === BlockKind.SHARED) assert(!owner.unique, '#unique container in a shared block');
    let block = this.blocks.get(blockId);
    if (block === undefined) {
      block = physicalBlock(blockId, kind, kind === BlockKind.SHARED ? groupOf(owner) : '');
      this.blocks.set(blockId, block);
    }
    assert(block.kind === kind, `block ${blockId} restored as two kinds`);
    const usedBytes = isRowTenant(tenant) ? tenant.usedBytes : this.blockSizeBytes;
    this.addTenant(block, tenant, usedBytes);
    assert(block.usedBytes <= this.blockSizeBytes);
  }

  /**
   * Recovery is over: new ids come from above every id restored or freed. freedIds were in the
   * checkpoint but not restored (block-space-restore.ts says why): the next set reports them.
   */
  restoreFinish(options: { freedIds: readonly BlockId[] }): void {
    assert(!this.opened, 'restoring into a space in use');
    this.opened = true;
    let idMax = -1;
    for (const id of this.blocks.keys()) idMax = Math.max(idMax, id);
    for (const id of options.freedIds) idMax = Math.max(idMax, id);
    this.nextId = idMax + 1;
    for (const block of this.blocks.values()) {
      if (block.kind === BlockKind.SHARED) this.remember(block);
    }
    this.checkpoint.restoreFreed(options.freedIds);
    // Restored data is resident; the pool evicts what does not fit (clean: nothing is written).
    for (const block of this.blocks.values()) {
      this.pool?.beginOperation();
      // Admitting a chain's block may evict the chain's value, and with it its other blocks.
      if (block.resident) this.pool?.admit(block, this);
    }
    if (invariants.enabled) this.checkInvariants();
  }

  /** Before any change to block: copy-on-write for a checkpoint in flight; its swap image is stale. */
  private changing(block: PhysicalBlock): void {
    this.checkpoint.willChange(block.id);
    if (block.swapImage) {
      block.swapImage = false;
      this.backing!.dropSwap(block.id);
    }
  }

  private ensureResident(block: PhysicalBlock): void {
    const pool = this.pool;
    if (pool === undefined) return;
    if (!block.resident) {
      this.load(block);
      return;
    }
    if (block.image !== undefined) this.decodeImage(block);
    pool.touch(block);
  }

  /** A swap read for a point read: a private row block's image, kept as it is (see the top). */
  private loadImage(block: PhysicalBlock): void {
    const backing = this.backing;
    assert(backing !== undefined && !block.resident);
    assert(block.kind === BlockKind.ROW && block.image === undefined);
    const startMs = this.clock.monotonicMs();
    const [row] = block.rows;
    const buffer = this.pool!.takeImageBuffer();
    let image: RowBlockImage;
    try {
      image = new RowBlockImage(row!.layout, backing.readImage(block.id, buffer), {
        blockSizeBytes: this.blockSizeBytes, blockId: block.id,
        resolveLargeValue: (ref) => this.residentLargeValue(ref, block.id),
      });
    } catch (error) {
      this.pool!.spareImageBuffer(buffer);
      throw error;
    }
    assert(image.bytes === buffer, 'image read elsewhere than into its buffer');
    if (image.containerId !== row!.containerId || image.rowCount !== row!.rowCount) {
      this.pool!.spareImageBuffer(buffer);
      throw new StorageError('CORRUPTION', `block ${block.id}: its image is not the block ` +
        `of container ${row!.containerId} that was evicted`);
    }
    block.image = image;
    block.resident = true;
    this.pool!.countSwapRead(1, buffer.byteLength, this.clock.monotonicMs() - startMs);
    this.pool!.admit(block, this);
  }

  /** The rows of a block held as its image are needed: decodes the image into its row block. */
  private decodeImage(block: PhysicalBlock): void {
    const [row] = block.rows;
    const decoded = decodeRowBlock(row!.layout.schema, block.image!.bytes, block.id,
      (ref) => this.residentLargeValue(ref, block.id));
    this.checkLoaded(block.id, row!, decoded);
    row!.reload(decoded);
    this.dropImage(block);
  }

  private dropImage(block: PhysicalBlock): void {
    const image = block.image;
    assert(image !== undefined);
    block.image = undefined;
    this.pool!.spareImageBuffer(image.bytes);
  }

  /** A swap read: the block's image back into its evicted tenants, then into the pool. */
  private load(block: PhysicalBlock): void {
    const backing = this.backing;
    assert(backing !== undefined && !block.resident);
    if (block.kind === BlockKind.LARGE_VALUE) {
      // The value's getter reads the whole chain back (loadLargeValue) and admits it.
      assert(block.chunk!.value.value !== null);
      return;
    }
    const startMs = this.clock.monotonicMs();
    // Decoding copies everything out of the image, so one buffer serves every load.
    this.loadBuffer ??= new Uint8Array(this.blockSizeBytes);
    const image = backing.readImage(block.id, this.loadBuffer);
    if (block.kind === BlockKind.ROW) {
      const [row] = block.rows;
      const decoded = decodeRowBlock(row!.layout.schema, image, block.id,
        (ref) => this.residentLargeValue(ref, block.id));
      this.checkLoaded(block.id, row!, decoded);
      row!.reload(decoded);
    } else {
      assert(block.kind === BlockKind.SHARED, `block ${block.id} of kind ${block.kind} evicted`);
      this.loadSharedPage(block, image);
    }
    block.resident = true;
    this.pool!.countSwapRead(1, image.byteLength, this.clock.monotonicMs() - startMs);
    this.pool!.admit(block, this);
  }

  /**
   * A shared page's tenants are matched to the page's image by container and first key. Image
   * tenants of containers dropped since it was written match nothing and are skipped.
   */
  private loadSharedPage(block: PhysicalBlock, image: Uint8Array): void {
    const evicted = new Map<number, RowBlock[]>();
    for (const row of block.rows) {
      const list = evicted.get(row.containerId) ?? [];
      list.push(row);
      evicted.set(row.containerId, list);
    }
    let reloaded = 0;
    for (const tenant of decodeSharedPage(image, block.id)) {
      const candidates = evicted.get(tenant.containerId);
      if (candidates === undefined) continue;
      const layout = candidates[0]!.layout;
      const decoded = decodeRowBlockCompact(layout.schema, tenant.image, {
        blockSizeBytes: this.blockSizeBytes, blockId: block.id,
        resolveLargeValue: (ref) => this.residentLargeValue(ref, block.id),
      });
      const firstKey = decoded.firstKey();
      const index = candidates.findIndex((row) => layout.keys.compare(row.firstKey(), firstKey) === 0);
      if (index < 0) continue;
      const [row] = candidates.splice(index, 1);
      this.checkLoaded(block.id, row!, decoded);
      row!.reload(decoded);
      reloaded++;
    }
    if (reloaded !== block.rows.size) {
      throw new StorageError('CORRUPTION',
        `block ${block.id}: its image holds ${reloaded} of its ${block.rows.size} row blocks`);
    }
  }

  private checkLoaded(blockId: BlockId, row: RowBlock, decoded: RowBlock): void {
    if (decoded.containerId !== row.containerId || decoded.rowCount !== row.rowCount ||
      decoded.varPayloadBytes !== row.varPayloadBytes) {
      throw new StorageError('CORRUPTION', `block ${blockId}: its image is not the block ` +
        `of container ${row.containerId} that was evicted`);
    }
  }

  /** A reloaded row's large value is the one already in memory, held by its chain's blocks. */
  private residentLargeValue(ref: LargeValueRef, blockId: BlockId): LargeValue {
    const chunk = ref.firstBlockId === undefined ? undefined : this.blocks.get(ref.firstBlockId)?.chunk;
    if (chunk === undefined || chunk.sequence !== 0) {
      throw new StorageError('CORRUPTION', `block ${blockId}: column ${ref.columnIndex} row ` +
        `${ref.rowIndex} names large-value block ${ref.firstBlockId}, which is not a chain's first`);
    }
    return chunk.value;
  }

  private encodeLive(blockId: BlockId, into?: Uint8Array): Uint8Array {
    const block = this.blockOf(blockId);
    this.ensureResident(block);
    return this.encoder.encode(block, into);
  }

  private blockOf(blockId: BlockId): PhysicalBlock {
    const block = this.blocks.get(blockId);
    assert(block !== undefined, `block ${blockId} is not in use`);
    return block;
  }

  private addTenant(block: PhysicalBlock, tenant: BlockTenant, usedBytes: number): void {
    if (isRowTenant(tenant)) {
      assert(block.kind !== BlockKind.LARGE_VALUE);
      if (block.kind === BlockKind.ROW) assert(block.rows.size === 0, 'private block shared');
      block.rows.add(tenant);
    } else {
      assert(block.kind === BlockKind.LARGE_VALUE && block.chunk === undefined);
      block.chunk = tenant;
    }
    block.usedBytes += tenantCostBytes(block.kind, usedBytes);
    this.tenantBytes += usedBytes;
  }

  private sharable(owner: BlockOwner, usedBytes: number): boolean {
    return !owner.unique && usedBytes <= this.shareBytesMax;
  }

  private sharedBlockWithRoom(group: string, usedBytes: number): PhysicalBlock {
    const needBytes = tenantCostBytes(BlockKind.SHARED, usedBytes);
    const fits = (block: PhysicalBlock) => block.usedBytes + needBytes <= this.blockSizeBytes;
    const reusable = this.reusableBlocks.get(group) ?? [];
    const reuse = reusable.find(fits);
    if (reuse !== undefined) return reuse;
    const open = this.openBlocks.get(group);
    if (open !== undefined && fits(open)) return open;
    const block = this.newBlock(BlockKind.SHARED, group);
    this.openBlocks.set(group, block);
    return block;
  }

  /** Keeps a partly freed shared block in its group's bounded reuse list. */
  private remember(block: PhysicalBlock): void {
    if (this.openBlocks.get(block.group) === block) return;
    const reusable = this.reusableBlocks.get(block.group) ?? [];
    if (reusable.includes(block)) return;
    reusable.push(block);
    if (reusable.length > SHARED_BLOCK_REUSE_COUNT_MAX) reusable.shift();
    this.reusableBlocks.set(block.group, reusable);
  }

  private newBlock(kind: BlockKind, group: string): PhysicalBlock {
    const id = this.freeIds.pop() ?? toBlockId(this.nextId++);
    assert(id <= BLOCK_ID_MAX, 'block ids exhausted');
    assert(!this.blocks.has(id));
    const block = physicalBlock(id, kind, group);
    this.blocks.set(id, block);
    this.checkpoint.allocated(id);
    this.pool?.admit(block, this);
    return block;
  }

  private free(block: PhysicalBlock): void {
    // While the block is still live: a checkpoint in flight may need its snapshot image.
    const reusable = this.checkpoint.willFree(block.id, block.kind);
    if (block.frameIndex >= 0) this.pool!.remove(block);
    if (block.image !== undefined) this.dropImage(block);
    if (block.swapImage) this.backing!.dropSwap(block.id);
    this.blocks.delete(block.id);
    if (reusable) this.freeIds.push(block.id);
    if (this.openBlocks.get(block.group) === block) this.openBlocks.delete(block.group);
    const reusableBlocks = this.reusableBlocks.get(block.group);
    if (reusableBlocks !== undefined) {
      const index = reusableBlocks.indexOf(block);
      if (index >= 0) reusableBlocks.splice(index, 1);
      if (reusableBlocks.length === 0) this.reusableBlocks.delete(block.group);
    }
  }

  /** O(blocks): the invariants at the top of this file. */
  checkInvariants(): void {
    let overheadBytes = 0;
    let usedBytes = 0;
    for (const block of this.blocks.values()) {
      assert(block.usedBytes <= this.blockSizeBytes, `block ${block.id} over its size`);
      assert(block.rows.size > 0 || block.chunk !== undefined, `block ${block.id} without tenants`);
      if (block.kind === BlockKind.ROW) assert(block.rows.size === 1, `private block ${block.id}`);
      if (block.kind === BlockKind.LARGE_VALUE) assert(block.rows.size === 0);
      if (block.kind !== BlockKind.LARGE_VALUE) assert(block.chunk === undefined);
      usedBytes += block.usedBytes;
      const rowsResident = block.resident && block.image === undefined;
      for (const row of block.rows) {
        assert(row.resident === rowsResident, `block ${block.id} half evicted`);
      }
      if (block.image !== undefined) assert(block.kind === BlockKind.ROW && block.resident);
      if (block.chunk !== undefined) assert(block.chunk.value.resident === block.resident);
      if (this.pool !== undefined) assert((block.frameIndex >= 0) === block.resident, `block ${block.id} resident ${block.resident} frame ${block.frameIndex} kind ${block.kind}`);
      if (block.kind === BlockKind.SHARED) {
        overheadBytes += SHARED_PAGE_HEADER_BYTES + block.rows.size * SHARED_PAGE_ENTRY_BYTES;
      }
    }
    assert(usedBytes - overheadBytes === this.tenantBytes, 'block space bytes drift');
    for (const id of this.freeIds) assert(!this.blocks.has(id) && id < this.nextId);
    this.checkpoint.checkInvariants();
  }
}

function groupOf(owner: BlockOwner): string {
  return owner.affinity ?? '';
}
