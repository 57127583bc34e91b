// The node's malloc settings: glibc's mmap threshold, fixed at start (tools/store-node.ts) through
// lib/io/native/malloc_tuning.c. Without the addon, or on another C library, nothing is set and
// the node works as before.
//
// Why: every ArrayBuffer's memory (reply frames, encoded query results, the buffer pool's blocks)
// comes from malloc. glibc serves a request of M_MMAP_THRESHOLD or more (128 KiB at first) with a
// mapping of its own, returned to the kernel when freed. But its threshold slides: each such chunk
// freed raises it to the chunk's size (up to 32 MiB), so after the first 3.6 MB reply is freed,
// the next ones come from the main heap instead. There freed chunks stay in the process, and only
// the heap's top is given back: a burst of large replies (a client pipelining SELECT * and never
// reading, issue 12) leaves holes that RSS keeps until the top happens to drain. Measured on the
// hostile pattern (perf/hostile-memory.ts): the node's RSS swung 186–220 MiB while its JavaScript
// heap and ArrayBuffers sampled the same each second; with the threshold fixed at
// MALLOC_MMAP_THRESHOLD_BYTES the swing was 182–187 MiB (docs/benchmarks.md, Soak).
//
// The cost: each buffer of a MiB or more is a mmap and munmap of its own (its pages zeroed by the
// kernel), a few hundred microseconds per MiB at most, against the reply's encoding and sending.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import { nativeAddonPaths } from './native-addon-paths.ts';

/**
 * Buffers of this size or more get a mapping of their own, whatever was freed before. Below the
 * encoded-rows chunk (ENCODED_ROWS_CHUNK_BYTES, exactly 1 MiB plus malloc's header) and a page of
 * replies; above the buffer pool's blocks and most rows' buffers, which stay in the heap.
 */
export const MALLOC_MMAP_THRESHOLD_BYTES = 1024 * 1024;

/** What lib/io/native/malloc_tuning.c exports. */
export interface MallocTuningAddon {
  /** mallopt(M_MMAP_THRESHOLD, bytes): false where there is nothing to set (not glibc). */
  mmapThresholdSet(bytes: number): boolean;
  /** mallinfo2().hblkhd: bytes in chunks of their own mapping; -1 where not glibc. */
  mappedBytes(): number;
}

/** The addon, or why there is none; loaded once. */
let loaded: MallocTuningAddon | string | undefined;

/** Loads the addon from the first of `addonPaths` that exists; never throws. */
export function loadMallocTuning(addonPaths: readonly string[]): MallocTuningAddon | string {
  const addonPath = addonPaths.find((candidate) => fs.existsSync(candidate));
  if (addonPath === undefined) {
    return `addon not built (${addonPaths.length === 0 ? 'nowhere to look' : `no ${addonPaths[0]}`})`;
  }
  try {
    const addon = createRequire(import.meta.url)(addonPath) as Partial<MallocTuningAddon> | null;
    if (typeof addon?.mmapThresholdSet !== 'function' || typeof addon.mappedBytes !== 'function') {
      return `${addonPath} does not export mmapThresholdSet and mappedBytes`;
    }
    return addon as MallocTuningAddon;
  } catch (cause) {
    return `${addonPath} failed to load: ${cause instanceof Error ? cause.message : String(cause)}`;
  }
}

function addon(): MallocTuningAddon | string {
  loaded ??= loadMallocTuning(nativeAddonPaths('malloc_tuning'));
  return loaded;
}

/**
 * Fixes malloc's mmap threshold at MALLOC_MMAP_THRESHOLD_BYTES for this process. Undefined when
 * set; otherwise why not (no addon, not glibc), for the caller to log.
 */
export function fixMallocMmapThreshold(): string | undefined {
  const tuning = addon();
  if (typeof tuning === 'string') return tuning;
  return tuning.mmapThresholdSet(MALLOC_MMAP_THRESHOLD_BYTES) ? undefined :
    'the C library is not glibc';
}

/** The bytes malloc holds in mappings of their own; undefined without the addon or glibc. */
export function mallocMappedBytes(): number | undefined {
  const tuning = addon();
  if (typeof tuning === 'string') return undefined;
  const bytes = tuning.mappedBytes();
  return bytes < 0 ? undefined : bytes;
}
