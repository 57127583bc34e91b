// Shared page images: one physical block holding the small row blocks of several containers
// (block-space.ts packs them), each as its compact row block image (block-format.ts). What a
// checkpoint writes for a SHARED block and recovery reads back.
//
/**
 * Shared page image, little-endian, exactly blockSizeBytes long:
 *
 *   offset size
 *    0     2   magic 0x5350 ("SP")
 *    2     2   format version (SHARED_PAGE_FORMAT_VERSION)
 *    4     4   checksum: CRC-32C of bytes [8, usedBytes) — the rest of the header, the directory
 *              and every tenant
 *    8     1   kind (3 = shared page; 1 is a row block, 2 a large value)
 *    9     3   zero
 *   12     4   this block's id
 *   16     4   tenant count n (>= 1)
 *   20     4   used bytes: 32 + 16 × n + the tenants' bytes
 *   24     8   zero
 *   32         directory, n entries of 16 bytes, in the order the tenants follow:
 *                | container id u32 | offset u32 | length u32 | row count u32 |
 *              offset is from the start of the page. Tenants are contiguous: the first starts at
 *              32 + 16 × n, each next one where the one before ends, the last ends at usedBytes.
 *   32 + 16n   the tenants: each a row block image cut at its used bytes (the compact image), with
 *              its own header and checksum, and block id = this page's id
 *   usedBytes … blockSizeBytes: zero, outside the checksum (a compressed or punched slot drops it)
 *
 * The directory repeats what each tenant's header says (owner, rows, length) so that a tool can
 * list a page without the schemas; the decoder checks that they agree. A tenant's large values
 * keep chains of their own (block-format-large-value.ts). Bump SHARED_PAGE_FORMAT_VERSION to
 * change any of this; decodeSharedPage refuses versions it does not know.
 */

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { containerId as toContainerId, type BlockId, type ContainerId } from '../base/ids.ts';
import { crc32c } from '../encoding/crc32c.ts';
import { encodeRowBlockCompact, rowBlockImageHeader } from './block-format.ts';
import type { RowBlock } from './row-block.ts';
import { ROW_BLOCK_HEADER_BYTES } from './row-block-layout.ts';

export const SHARED_PAGE_MAGIC = 0x5350;
export const SHARED_PAGE_FORMAT_VERSION = 1;
export const BLOCK_KIND_SHARED = 3;
/** A shared page's own header, and the directory entry each tenant row block takes in it. */
export const SHARED_PAGE_HEADER_BYTES = 32;
export const SHARED_PAGE_ENTRY_BYTES = 16;
const CHECKSUM_FROM_OFFSET = 8;

/** The bytes a page of tenants with these used bytes takes. */
export function sharedPageUsedBytes(tenantCount: number, tenantBytes: number): number {
  return SHARED_PAGE_HEADER_BYTES + tenantCount * SHARED_PAGE_ENTRY_BYTES + tenantBytes;
}

/** The image of a shared page holding these row blocks, exactly blockSizeBytes. */
export function encodeSharedPage(
  page: { blockId: BlockId; blockSizeBytes: number; tenants: readonly RowBlock[] },
): Uint8Array {
  const { blockId, blockSizeBytes, tenants } = page;
  assert(tenants.length > 0, `shared page ${blockId} without tenants`);
  let tenantBytes = 0;
  for (const tenant of tenants) {
    assert(tenant.blockSizeBytes === blockSizeBytes);
    assert(tenant.blockId === blockId, `tenant of shared page ${blockId} placed elsewhere`);
    tenantBytes += tenant.usedBytes;
  }
  const usedBytes = sharedPageUsedBytes(tenants.length, tenantBytes);
  assert(usedBytes <= blockSizeBytes, `shared page ${blockId} over its size`);
  const bytes = new Uint8Array(blockSizeBytes);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, SHARED_PAGE_MAGIC, true);
  view.setUint16(2, SHARED_PAGE_FORMAT_VERSION, true);
  view.setUint8(8, BLOCK_KIND_SHARED);
  view.setUint32(12, blockId, true);
  view.setUint32(16, tenants.length, true);
  view.setUint32(20, usedBytes, true);
  let offset = SHARED_PAGE_HEADER_BYTES + tenants.length * SHARED_PAGE_ENTRY_BYTES;
  tenants.forEach((tenant, i) => {
    const entry = SHARED_PAGE_HEADER_BYTES + i * SHARED_PAGE_ENTRY_BYTES;
    const lengthBytes = tenant.usedBytes;
    view.setUint32(entry, tenant.containerId, true);
    view.setUint32(entry + 4, offset, true);
    view.setUint32(entry + 8, lengthBytes, true);
    view.setUint32(entry + 12, tenant.rowCount, true);
    encodeRowBlockCompact(tenant, bytes.subarray(offset, offset + lengthBytes));
    offset += lengthBytes;
  });
  assert(offset === usedBytes);
  view.setUint32(4, crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes)), true);
  return bytes;
}

/** One tenant of a decoded page: its compact row block image, checksum verified. */
export interface SharedPageTenant {
  readonly containerId: ContainerId;
  readonly rowCount: number;
  readonly image: Uint8Array;
}

/**
 * The tenants of a shared page image, in directory order. Checks the page (magic, version,
 * checksum, directory) and each tenant's header against its entry; anything wrong is CORRUPTION
 * naming the block. Decoding a tenant's rows (decodeRowBlockCompact) needs its schema.
 */
export function decodeSharedPage(bytes: Uint8Array, blockId: BlockId): SharedPageTenant[] {
  const fail = (problem: string) =>
    new StorageError('CORRUPTION', `block ${blockId} (shared page): ${problem}`);
  if (bytes.byteLength < SHARED_PAGE_HEADER_BYTES) {
    throw fail(`${bytes.byteLength} bytes is too short`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint16(0, true);
  if (magic !== SHARED_PAGE_MAGIC) throw fail(`bad magic 0x${magic.toString(16)}`);
  const version = view.getUint16(2, true);
  if (version !== SHARED_PAGE_FORMAT_VERSION) throw fail(`unknown format version ${version}`);
  const usedBytes = view.getUint32(20, true);
  if (usedBytes < SHARED_PAGE_HEADER_BYTES || usedBytes > bytes.byteLength) {
    throw fail(`used bytes ${usedBytes} outside the ${bytes.byteLength}-byte block`);
  }
  if (crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes)) !== view.getUint32(4, true)) {
    throw fail('checksum mismatch');
  }
  const kind = view.getUint8(8);
  const zero = view.getUint8(9) | view.getUint16(10, true) | view.getUint32(24, true) |
    view.getUint32(28, true);
  if (kind !== BLOCK_KIND_SHARED || zero !== 0) throw fail(`kind ${kind} is not a shared page`);
  if (view.getUint32(12, true) !== blockId) {
    throw fail(`the image is of block ${view.getUint32(12, true)}`);
  }
  const tenantCount = view.getUint32(16, true);
  const firstBytes = SHARED_PAGE_HEADER_BYTES + tenantCount * SHARED_PAGE_ENTRY_BYTES;
  if (tenantCount === 0 || firstBytes > usedBytes) throw fail(`${tenantCount} tenants`);
  const tenants: SharedPageTenant[] = [];
  let offset = firstBytes;
  for (let i = 0; i < tenantCount; i++) {
    const entry = SHARED_PAGE_HEADER_BYTES + i * SHARED_PAGE_ENTRY_BYTES;
    const containerId = toContainerId(view.getUint32(entry, true));
    const lengthBytes = view.getUint32(entry + 8, true);
    const rowCount = view.getUint32(entry + 12, true);
    if (view.getUint32(entry + 4, true) !== offset || lengthBytes < ROW_BLOCK_HEADER_BYTES ||
      offset + lengthBytes > usedBytes) {
      throw fail(`directory entry ${i} out of place`);
    }
    const image = bytes.subarray(offset, offset + lengthBytes);
    const header = rowBlockImageHeader(image, blockId);
    if (header.containerId !== containerId || header.rowCount !== rowCount ||
      header.usedBytes !== lengthBytes || header.blockId !== blockId) {
      throw fail(`tenant ${i} does not match its directory entry`);
    }
    tenants.push({ containerId, rowCount, image });
    offset += lengthBytes;
  }
  if (offset !== usedBytes) throw fail(`tenants end at ${offset}, used bytes ${usedBytes}`);
  return tenants;
}
