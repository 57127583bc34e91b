// CRC-32C (Castagnoli), the checksum of xlog records and block images. Hardware-accelerated through
// @node-rs/crc32 (SSE4.2 / ARMv8 CRC instructions).

import { crc32c as nativeCrc32c } from '@node-rs/crc32';

export function crc32c(bytes: Uint8Array, initial = 0): number {
  return nativeCrc32c(bytes, initial) >>> 0;
}
