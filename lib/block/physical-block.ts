// A physical block of a partition's BlockSpace: its kind, what it holds, and its image.
//
//   ROW          a private row block: one row block of one container (`#unique`, or too large to
//                share); its image is the row block image (block-format.ts)
//   SHARED       a shared page: small row blocks of several containers of one affinity group;
//                its image packs their compact images (block-format-shared.ts)
//   LARGE_VALUE  one block of a large value's chain (block-format-large-value.ts)
//
// The kind numbers are the images' kind bytes, which the cplog copies.

import { assert } from '../base/assert.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import { BLOCK_KIND_ROW, encodeRowBlock } from './block-format.ts';
import {
  BLOCK_KIND_LARGE_VALUE, encodeLargeValueBlock, largeValuePayload,
} from './block-format-large-value.ts';
import {
  BLOCK_KIND_SHARED, encodeSharedPage, SHARED_PAGE_ENTRY_BYTES, SHARED_PAGE_HEADER_BYTES,
} from './block-format-shared.ts';
import type { RowBlockImage } from './block-format-row-image.ts';
import type { LargeValue } from './large-value.ts';
import type { RowBlock } from './row-block.ts';

export const BlockKind = {
  ROW: BLOCK_KIND_ROW, LARGE_VALUE: BLOCK_KIND_LARGE_VALUE, SHARED: BLOCK_KIND_SHARED,
} as const;
export type BlockKind = (typeof BlockKind)[keyof typeof BlockKind];

/** Block `sequence` of a large value's chain, as a tenant of its physical block. */
export interface LargeValueChunk {
  readonly containerId: ContainerId;
  readonly value: LargeValue;
  readonly sequence: number;
}

/** What a physical block holds: row blocks (ROW, SHARED) or a large-value chunk. */
export type BlockTenant = RowBlock | LargeValueChunk;

export function isRowTenant(tenant: BlockTenant): tenant is RowBlock {
  return !('sequence' in tenant);
}

export interface PhysicalBlock {
  readonly id: BlockId;
  readonly kind: BlockKind;
  /** Affinity group of a shared page; '' otherwise. */
  readonly group: string;
  /** Tenant bytes, plus the header and a directory entry each when shared. */
  usedBytes: number;
  /** ROW: its one row block; SHARED: every tenant; LARGE_VALUE: none. */
  readonly rows: Set<RowBlock>;
  /** LARGE_VALUE: the chunk it holds. */
  chunk: LargeValueChunk | undefined;
  /**
   * The tenants' data is in memory (buffer-pool.ts), decoded or as the image; when false only
   * their outlines are.
   */
  resident: boolean;
  /** Its place in the buffer pool while resident; -1 otherwise. */
  frameIndex: number;
  /** CLOCK's reference bit. */
  referenced: boolean;
  /** The pool operation that last used it: held until the next one. */
  usedEpoch: number;
  /**
   * A swap write put its current image on disk (it changed since the last checkpoint set, then
   * was evicted); cleared when it changes again or a checkpoint adopts that image.
   */
  swapImage: boolean;
  /**
   * ROW only: while resident for point reads only (BlockSpace.useForRead), the block's image read
   * back from disk, and its row block still evicted; a use() decodes it. undefined otherwise.
   */
  image: RowBlockImage | undefined;
}

export function physicalBlock(
  id: BlockId, kind: BlockKind, group: string, resident = true,
): PhysicalBlock {
  const usedBytes = kind === BlockKind.SHARED ? SHARED_PAGE_HEADER_BYTES : 0;
  return {
    id, kind, group, usedBytes, rows: new Set(), chunk: undefined,
    resident, frameIndex: -1, referenced: false, usedEpoch: 0, swapImage: false, image: undefined,
  };
}

/** Bytes a tenant of `usedBytes` adds to a physical block of this kind. */
export function tenantCostBytes(kind: BlockKind, usedBytes: number): number {
  return usedBytes + (kind === BlockKind.SHARED ? SHARED_PAGE_ENTRY_BYTES : 0);
}

/**
 * Encodes physical blocks. Keeps the payload of the last large value it encoded: the blocks of one
 * chain are usually encoded one after another, and a payload (a string's or an array's bytes)
 * costs the whole value to build.
 */
export class PhysicalBlockEncoder {
  private lastPayload: { value: LargeValue; payload: Uint8Array } | undefined;

  constructor(private readonly blockSizeBytes: number) {}

  /**
   * The image of a block as its tenants are now, exactly blockSizeBytes; a ROW block's in `into`
   * when given (a caller that writes the image at once reuses one buffer, sparing the GC).
   */
  encode(block: PhysicalBlock, into?: Uint8Array): Uint8Array {
    const { blockSizeBytes } = this;
    if (block.kind === BlockKind.LARGE_VALUE) {
      const chunk = block.chunk;
      assert(chunk !== undefined, `large-value block ${block.id} holds no chunk`);
      assert(chunk.value.blockIds[chunk.sequence] === block.id, 'chunk placed elsewhere');
      const payload = this.payloadOf(chunk.value);
      // Chains are encoded in order: after the last block, hold on to no value.
      if (chunk.sequence === chunk.value.blockIds.length - 1) this.lastPayload = undefined;
      return encodeLargeValueBlock(chunk.value,
        { containerId: chunk.containerId, blockSizeBytes, sequence: chunk.sequence, payload });
    }
    if (block.kind === BlockKind.ROW) {
      assert(block.rows.size === 1, `row block ${block.id} with ${block.rows.size} tenants`);
      const [row] = block.rows;
      assert(row!.blockId === block.id, `row block of ${block.id} placed elsewhere`);
      assert(row!.usedBytes === row!.spaceBytes, `row block ${block.id} encoded unsettled`);
      return encodeRowBlock(row!, into);
    }
    const tenants = [...block.rows];
    let tenantBytes = 0;
    for (const tenant of tenants) tenantBytes += tenantCostBytes(block.kind, tenant.usedBytes);
    // The page as accounted: a tenant changed without telling the BlockSpace would differ.
    assert(SHARED_PAGE_HEADER_BYTES + tenantBytes === block.usedBytes,
      `shared page ${block.id} is not as accounted`);
    return encodeSharedPage({ blockId: block.id, blockSizeBytes, tenants });
  }

  private payloadOf(value: LargeValue): Uint8Array {
    if (this.lastPayload?.value !== value) {
      this.lastPayload = { value, payload: largeValuePayload(value) };
    }
    return this.lastPayload.payload;
  }
}
