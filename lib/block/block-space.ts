// Block space of one partition: which physical block (BlockId) each row block occupies, and the
// `#unique` rule.
//
// A container whose dataAffinity is `#unique` gets physical blocks of its own (fast scan and drop).
// Any other container's small row blocks (usedBytes <= blockSizeBytes / 4) are packed into shared
// physical blocks, grouped by dataAffinity, so thousands of tiny containers do not each take a
// whole block. A row block that grows past the share moves to a block of its own; one that shrinks
// stays where it is (no ping-pong between shared and private on every put and remove).
//
// This is accounting only: a physical block here is an id and a byte count. A shared block's bytes
// are its tenants' row block images plus a slot entry each (the slotted page that checkpoint will
// write), and never exceed blockSizeBytes.

import { assert } from '../base/assert.ts';
import { blockId as toBlockId, type BlockId, type ContainerId } from '../base/ids.ts';
import { invariants } from '../base/invariants.ts';
import { SHARED_BLOCK_REUSE_COUNT_MAX } from '../base/limits.ts';

export const UNIQUE_AFFINITY = '#unique';
/** A shared block's own header, and the slot entry each tenant row block takes in it. */
export const SHARED_BLOCK_HEADER_BYTES = 32;
export const SHARED_BLOCK_SLOT_BYTES = 16;
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

interface PhysicalBlock {
  readonly id: BlockId;
  readonly shared: boolean;
  readonly group: string;
  /** Tenant row block bytes, plus header and slot entries when shared. */
  usedBytes: number;
  /** Row blocks placed here, by container. */
  readonly tenants: Map<ContainerId, number>;
}

export class BlockSpace {
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

  constructor(options: { blockSizeBytes: number }) {
    assert(options.blockSizeBytes >= 4096);
    this.blockSizeBytes = options.blockSizeBytes;
    this.shareBytesMax = Math.floor(options.blockSizeBytes / 4);
  }

  /** Physical blocks in use. */
  get blockCount(): number {
    return this.blocks.size;
  }

  /** Bytes of the row blocks placed (what their images take), summed over every block. */
  get bytesInUse(): number {
    return this.tenantBytes;
  }

  /** Finds room for a row block of usedBytes and returns the physical block it is in. */
  place(owner: BlockOwner, usedBytes: number): BlockId {
    assert(usedBytes > 0);
    assert(usedBytes <= this.blockSizeBytes);
    const block = this.sharable(owner, usedBytes)
      ? this.sharedBlockWithRoom(groupOf(owner), usedBytes)
      : this.newBlock(false, '');
    block.usedBytes += usedBytes + (block.shared ? SHARED_BLOCK_SLOT_BYTES : 0);
    block.tenants.set(owner.containerId, (block.tenants.get(owner.containerId) ?? 0) + 1);
    this.tenantBytes += usedBytes;
    if (invariants.enabled) this.checkInvariants();
    return block.id;
  }

  /** A placed row block changed size; returns its block, which differs when it had to move. */
  resize(
    owner: BlockOwner, blockId: BlockId, sizes: { fromBytes: number; toBytes: number },
  ): BlockId {
    const { fromBytes, toBytes } = sizes;
    const block = this.blocks.get(blockId);
    assert(block !== undefined, `block ${blockId} is not in use`);
    assert(toBytes > 0 && toBytes <= this.blockSizeBytes);
    const grownBytes = toBytes - fromBytes;
    const stays = !block.shared ||
      (toBytes <= this.shareBytesMax && block.usedBytes + grownBytes <= this.blockSizeBytes);
    if (!stays) {
      this.release(owner, blockId, fromBytes);
      return this.place(owner, toBytes);
    }
    assert((block.tenants.get(owner.containerId) ?? 0) > 0, 'resize by a non-tenant');
    block.usedBytes += grownBytes;
    this.tenantBytes += grownBytes;
    if (grownBytes < 0 && block.shared) this.remember(block);
    return blockId;
  }

  /** A row block of usedBytes left blockId (removed, emptied, or its container dropped). */
  release(owner: BlockOwner, blockId: BlockId, usedBytes: number): void {
    const block = this.blocks.get(blockId);
    assert(block !== undefined, `block ${blockId} is not in use`);
    const tenantCount = block.tenants.get(owner.containerId) ?? 0;
    assert(tenantCount > 0, `container ${owner.containerId} has no row block in ${blockId}`);
    if (tenantCount === 1) block.tenants.delete(owner.containerId);
    else block.tenants.set(owner.containerId, tenantCount - 1);
    block.usedBytes -= usedBytes + (block.shared ? SHARED_BLOCK_SLOT_BYTES : 0);
    this.tenantBytes -= usedBytes;
    assert(block.usedBytes >= 0);
    if (block.tenants.size === 0) this.free(block);
    else if (block.shared) this.remember(block);
    if (invariants.enabled) this.checkInvariants();
  }

  /** Containers with row blocks in blockId (empty when the block is free). */
  tenantsOf(blockId: BlockId): ContainerId[] {
    return [...(this.blocks.get(blockId)?.tenants.keys() ?? [])];
  }

  isShared(blockId: BlockId): boolean {
    return this.blocks.get(blockId)?.shared ?? false;
  }

  private sharable(owner: BlockOwner, usedBytes: number): boolean {
    return !owner.unique && usedBytes <= this.shareBytesMax;
  }

  private sharedBlockWithRoom(group: string, usedBytes: number): PhysicalBlock {
    const needBytes = usedBytes + SHARED_BLOCK_SLOT_BYTES;
    const fits = (block: PhysicalBlock) => block.usedBytes + needBytes <= this.blockSizeBytes;
    const reusable = this.reusableBlocks.get(group) ?? [];
    const reuse = reusable.find(fits);
    if (reuse !== undefined) return reuse;
    const open = this.openBlocks.get(group);
    if (open !== undefined && fits(open)) return open;
    const block = this.newBlock(true, group);
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

  private newBlock(shared: boolean, group: string): PhysicalBlock {
    const id = this.freeIds.pop() ?? toBlockId(this.nextId++);
    assert(id <= BLOCK_ID_MAX, 'block ids exhausted');
    const block: PhysicalBlock = {
      id, shared, group, usedBytes: shared ? SHARED_BLOCK_HEADER_BYTES : 0, tenants: new Map(),
    };
    this.blocks.set(id, block);
    return block;
  }

  private free(block: PhysicalBlock): void {
    this.blocks.delete(block.id);
    this.freeIds.push(block.id);
    if (this.openBlocks.get(block.group) === block) this.openBlocks.delete(block.group);
    const reusable = this.reusableBlocks.get(block.group);
    if (reusable !== undefined) {
      const index = reusable.indexOf(block);
      if (index >= 0) reusable.splice(index, 1);
      if (reusable.length === 0) this.reusableBlocks.delete(block.group);
    }
  }

  /** O(blocks): sizes within bounds, `#unique` never shared, byte totals agree. */
  checkInvariants(): void {
    let overheadBytes = 0;
    let usedBytes = 0;
    for (const block of this.blocks.values()) {
      assert(block.usedBytes <= this.blockSizeBytes, `block ${block.id} over its size`);
      assert(block.tenants.size > 0, `block ${block.id} in use without tenants`);
      if (!block.shared) assert(block.tenants.size === 1, `private block ${block.id} shared`);
      usedBytes += block.usedBytes;
      if (block.shared) {
        let tenantCount = 0;
        for (const count of block.tenants.values()) tenantCount += count;
        overheadBytes += SHARED_BLOCK_HEADER_BYTES + tenantCount * SHARED_BLOCK_SLOT_BYTES;
      }
    }
    assert(usedBytes - overheadBytes === this.tenantBytes, 'block space bytes drift');
  }
}

function groupOf(owner: BlockOwner): string {
  return owner.affinity ?? '';
}
