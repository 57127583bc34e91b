// The disk's own sequential write rate, the reference a checkpoint's MB/s is held against: a new
// file in a fresh directory under os.tmpdir() (where every benchmark home lives, so the same file
// system and device) written in 1 MiB writes with an fdatasync after each, then removed. Each MiB
// is on the device before the next is written, so the page cache cannot absorb the run: this is
// what the device sustains for a writer that waits for durability, about what a checkpoint must
// do before its cplog END. Synchronous calls, so the figure is the device's, not the event loop's.

import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { MiB } from '../lib/base/units.ts';
import { withTempHome } from './bench-files.ts';
import { megabytesPerS } from './bench-result.ts';

const CHUNK_SIZE_BYTES = MiB;

/** Writes sizeBytes (rounded up to whole MiB) with fdatasync after every MiB; returns MB/s. */
export async function diskSequentialWriteMBPerS(sizeBytes: number): Promise<number> {
  assert(sizeBytes > 0);
  const chunkCount = Math.ceil(sizeBytes / CHUNK_SIZE_BYTES);
  // Not zeros: a device or a virtual disk may treat zero blocks specially.
  const chunk = Buffer.alloc(CHUNK_SIZE_BYTES);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 131 + 17) & 0xff;
  return withTempHome('disk', async (directory) => {
    const fd = openSync(join(directory, 'sequential.bin'), 'w');
    try {
      const startMs = performance.now();
      for (let i = 0; i < chunkCount; i++) {
        const writtenBytes = writeSync(fd, chunk);
        assert(writtenBytes === CHUNK_SIZE_BYTES);
        fdatasyncSync(fd);
      }
      return megabytesPerS(chunkCount * CHUNK_SIZE_BYTES, performance.now() - startMs);
    } finally {
      closeSync(fd);
    }
  });
}
