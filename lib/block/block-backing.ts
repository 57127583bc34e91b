// Where an evicted block's image is kept: the partition's data files (compaction/checkpoint.ts
// implements this). The block layer only asks for images by block id; slots are not its business.
//
// A block's image on disk is its swap image when it has one (written when it was evicted after a
// change since the last checkpoint set), otherwise the image its last checkpoint wrote. Both are
// exactly the block as it is while evicted, except that a shared page's image may still hold
// tenants of containers dropped since it was written (BlockSpace skips those when loading).

import type { BlockId } from '../base/ids.ts';

export interface BlockBacking {
  /**
   * Writes the image of a block changed since the last checkpoint set, to a slot that no
   * checkpoint references; replaces the block's earlier swap image. Returns the bytes written.
   */
  swapOut(blockId: BlockId, image: Uint8Array, kind: number): number;
  /**
   * The block's image, exactly blockSizeBytes: its swap image if it has one, else its
   * checkpoint's; in `into` when given. The caller decodes it, which verifies its checksum.
   */
  readImage(blockId: BlockId, into?: Uint8Array): Uint8Array;
  /** The block's swap image is stale (it changed) or unneeded (it was freed): release its slot. */
  dropSwap(blockId: BlockId): void;
}
