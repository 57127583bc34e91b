// Recovery of a partition's rows from the block images of its last checkpoint: every image is
// decoded, large-value references are read through the LARGE_VALUE images, and each container's
// row blocks go to its RowStore in key order, in the physical blocks they were in (ids are stable:
// the cplog maps them to slots). The BlockSpace then allocates above the highest id; every block
// restored is clean.
//
// Decisions:
// - A row block whose container has no RowStore (it was dropped and the images disagree with the
//   catalog) cannot even be decoded: its columns come from the schema. It is not restored; its
//   physical block (a whole ROW block, or a shared page left without tenants) and the large-value
//   blocks nobody else references are reported in orphanBlockIds and freed by the next checkpoint
//   set. A shared page that keeps other tenants is restored without it, dirty. Callers that
//   consider this impossible check orphanBlockIds.length.
// - Anything wrong with an image is CORRUPTION naming the block: bad bytes, a wrong size, an
//   unknown kind, an image that says it is another block, a row block written under another schema
//   version than its container has, key ranges of one container that overlap, a missing or shared
//   large-value block, a `#unique` container in a shared page.
// - A keyless store's next rowId is derived: the largest restored rowId + 1
//   (RowStore.restoreBlock). Rows only append in keyless containers today, so that is exact; a
//   catalog that keeps the counter may raise it (RowStore.raiseNextRowId).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import type { Value } from '../schema/column-type.ts';
import {
  decodeLargeValue, decodeRowBlock, decodeRowBlockCompact, LARGE_VALUE_MAGIC, ROW_BLOCK_MAGIC,
  rowBlockImageHeader, type LargeValueRef,
} from './block-format.ts';
import { decodeSharedPage, SHARED_PAGE_MAGIC } from './block-format-shared.ts';
import { BLOCK_ID_MAX, BlockKind, UNIQUE_AFFINITY, type BlockSpace } from './block-space.ts';
import { LargeValue, type StoredValue } from './large-value.ts';
import type { RowBlock } from './row-block.ts';
import type { RowStore } from './row-store.ts';

export interface RestorePartitionOptions {
  /** Every block the last checkpoint describes: id → image of exactly blockSizeBytes. */
  images: ReadonlyMap<BlockId, Uint8Array>;
  /**
   * The empty store of a container as of the checkpoint (its schema decodes the images); all on
   * the BlockSpace restored into. undefined: no such container.
   */
  rowStoreOf(containerId: ContainerId): RowStore | undefined;
}

export interface RestorePartitionResult {
  rowBlockCount: number;
  largeValueCount: number;
  /** Blocks not restored because their container does not exist; the next set frees them. */
  orphanBlockIds: BlockId[];
}

interface Restored {
  block: RowBlock;
  kind: BlockKind;
}

/** Restores a partition's rows into its stores and `space`, which must be unused. */
export function restorePartition(
  space: BlockSpace, options: RestorePartitionOptions,
): RestorePartitionResult {
  assert(space.blockCount === 0, 'restoring into a space in use');
  const { blockSizeBytes } = space;
  const chains = new LargeValueChains();
  const rowImages: Array<[BlockId, Uint8Array]> = [];
  const pageImages: Array<[BlockId, Uint8Array]> = [];
  for (const [id, image] of [...options.images].sort(([a], [b]) => a - b)) {
    const fail = (problem: string) => new StorageError('CORRUPTION', `block ${id}: ${problem}`);
    if (!Number.isInteger(id) || id < 0 || id > BLOCK_ID_MAX) throw fail('bad block id');
    if (image.byteLength !== blockSizeBytes) throw fail(`image of ${image.byteLength} bytes`);
    const magic = readU32(image, 0) & 0xffff;
    if (magic === ROW_BLOCK_MAGIC) rowImages.push([id, image]);
    else if (magic === SHARED_PAGE_MAGIC) pageImages.push([id, image]);
    else if (magic === LARGE_VALUE_MAGIC) chains.add(id, image);
    else throw fail(`unknown magic 0x${magic.toString(16)}`);
  }
  const restored = new Map<ContainerId, Restored[]>();
  const stores = new Map<ContainerId, RowStore | undefined>();
  const storeOf = (containerId: ContainerId) => {
    if (!stores.has(containerId)) stores.set(containerId, openStore(options, containerId, space));
    return stores.get(containerId);
  };
  const keep = (block: RowBlock, kind: BlockKind) => {
    const list = restored.get(block.containerId) ?? [];
    list.push({ block, kind });
    restored.set(block.containerId, list);
  };
  const orphanBlockIds: BlockId[] = [];
  const changedPageIds: BlockId[] = [];
  for (const [id, image] of rowImages) {
    // Unverified until decoded; a wrong owner fails the checksum there.
    const store = storeOf(readU32(image, 12) as ContainerId);
    if (store === undefined) {
      // Checksummed: a damaged owner id is corruption, not a dropped container.
      rowBlockImageHeader(image, id);
      orphanBlockIds.push(id);
      continue;
    }
    keep(decodeTenant(store, image, { blockId: id, compact: false, chains }), BlockKind.ROW);
  }
  for (const [id, image] of pageImages) {
    const tenants = decodeSharedPage(image, id);
    let keptCount = 0;
    for (const tenant of tenants) {
      const store = storeOf(tenant.containerId);
      if (store === undefined) continue;
      if (store.schema.dataAffinity === UNIQUE_AFFINITY) {
        throw new StorageError('CORRUPTION',
          `block ${id}: container ${tenant.containerId} is #unique, yet in a shared page`);
      }
      const args = { blockId: id, compact: true, chains };
      keep(decodeTenant(store, tenant.image, args), BlockKind.SHARED);
      keptCount++;
    }
    if (keptCount === 0) orphanBlockIds.push(id);
    else if (keptCount < tenants.length) changedPageIds.push(id);
  }
  let rowBlockCount = 0;
  for (const [containerId, list] of restored) {
    const store = storeOf(containerId)!;
    for (const { block, kind } of keyOrder(list)) store.restoreBlock(block, { kind });
    rowBlockCount += list.length;
  }
  orphanBlockIds.push(...chains.unusedIds());
  orphanBlockIds.sort((a, b) => a - b);
  space.restoreFinish({ freedIds: orphanBlockIds });
  for (const id of changedPageIds) space.willChange(id);
  return { rowBlockCount, largeValueCount: chains.valueCount, orphanBlockIds };
}

function openStore(
  options: RestorePartitionOptions, containerId: ContainerId, space: BlockSpace,
): RowStore | undefined {
  const store = options.rowStoreOf(containerId);
  if (store === undefined) return undefined;
  assert(store.containerId === containerId);
  assert(store.blockSizeBytes === space.blockSizeBytes);
  assert(store.count() === 0 && store.blockCount === 0, 'restoring into a store in use');
  return store;
}

/** Decodes a row block image of store's container; its large values get their chains. */
function decodeTenant(
  store: RowStore, image: Uint8Array,
  at: { blockId: BlockId; compact: boolean; chains: LargeValueChains },
): RowBlock {
  const { blockId, chains } = at;
  const found = new Map<string, BlockId[]>();
  const resolveLargeValue = (ref: LargeValueRef): Value => {
    const chain = chains.read(ref, { blockId, containerId: store.containerId });
    found.set(`${ref.columnIndex}:${ref.rowIndex}`, chain.blockIds);
    return chain.value;
  };
  const { schema } = store;
  const block = at.compact
    ? decodeRowBlockCompact(schema, image,
      { blockSizeBytes: store.blockSizeBytes, blockId, resolveLargeValue })
    : decodeRowBlock(schema, image, blockId, resolveLargeValue);
  const fail = (problem: string) => new StorageError('CORRUPTION',
    `block ${blockId} of container ${store.containerId}: ${problem}`);
  if (block.containerId !== store.containerId) throw fail(`owned by ${block.containerId}`);
  if (block.blockId !== blockId) throw fail(`the image is of block ${block.blockId}`);
  if (block.rowCount === 0) throw fail('no rows');
  const version = readU32(image, 28);
  if (version !== schema.schemaVersion) {
    throw fail(`written under schema version ${version}, ` +
      `the container has ${schema.schemaVersion}`);
  }
  for (const c of block.layout.varColumnIndexes) {
    const values = block.columns[c]!.values as StoredValue[];
    for (let i = 0; i < block.rowCount; i++) {
      const value = values[i];
      if (!(value instanceof LargeValue)) continue;
      const blockIds = found.get(`${c}:${i}`);
      assert(blockIds !== undefined, 'large value decoded without its chain');
      value.blockIds = blockIds;
    }
  }
  return block;
}

/** One container's row blocks by first key; overlapping ranges are corruption. */
function keyOrder(list: Restored[]): Restored[] {
  const compare = list[0]!.block.layout.keys.compare;
  list.sort((a, b) => compare(a.block.firstKey(), b.block.firstKey()));
  for (let i = 1; i < list.length; i++) {
    const previous = list[i - 1]!.block;
    const next = list[i]!.block;
    if (previous.compareAt(previous.rowCount - 1, next.firstKey()) >= 0) {
      throw new StorageError('CORRUPTION', `blocks ${previous.blockId} and ${next.blockId} of ` +
        `container ${next.containerId} overlap in key range`);
    }
  }
  return list;
}

/** The LARGE_VALUE images, read chain by chain as references name them. */
class LargeValueChains {
  private readonly images = new Map<BlockId, Uint8Array>();
  private readonly used = new Set<BlockId>();
  valueCount = 0;

  add(blockId: BlockId, image: Uint8Array): void {
    this.images.set(blockId, image);
  }

  /** The value a reference names and its chain's ids; each block may be in one chain only. */
  read(
    ref: LargeValueRef, owner: { blockId: BlockId; containerId: ContainerId },
  ): { value: Value; blockIds: BlockId[] } {
    const where = `block ${owner.blockId} of container ${owner.containerId}, column ` +
      `${ref.columnIndex} row ${ref.rowIndex}`;
    const fail = (problem: string) => new StorageError('CORRUPTION', `${where}: ${problem}`);
    if (ref.firstBlockId === undefined) throw fail('large value was never placed');
    const blockIds: BlockId[] = [];
    const chain: Uint8Array[] = [];
    let id = ref.firstBlockId;
    // Bounded by the reference's block count, which its size sets; `used` stops a cycle early.
    for (let k = 0; k < ref.blockCount; k++) {
      const image = this.images.get(id);
      if (image === undefined) throw fail(`large-value block ${id} is missing`);
      if (this.used.has(id)) throw fail(`large-value block ${id} is in two chains`);
      this.used.add(id);
      blockIds.push(id);
      chain.push(image);
      id = readU32(image, 28) as BlockId;
    }
    const value = decodeLargeValue(chain, ref);
    if (readU32(chain[0]!, 12) !== owner.containerId) throw fail('large value of another owner');
    this.valueCount++;
    return { value, blockIds };
  }

  /** LARGE_VALUE blocks no restored row references. */
  unusedIds(): BlockId[] {
    return [...this.images.keys()].filter((id) => !this.used.has(id));
  }
}

function readU32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, true);
}
