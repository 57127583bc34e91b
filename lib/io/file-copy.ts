// Copying one file to another through a FileSystem, a chunk at a time: what a backup and a restore
// do with every file. The source may be growing while it is copied (an xlog a commit appends to,
// a data file a swap write extends): the copy takes the bytes up to the size it had when the copy
// began, which is what the caller pinned. Each chunk's write goes through the thread pool
// (writeAsync), so an engine thread that copies still serves its commits between chunks.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { FileSystem } from './file-system.ts';

/** One read and one write of a copy: the memory a copy holds. */
export const FILE_COPY_CHUNK_BYTES = 1024 * 1024;

/**
 * Copies the first `sizeBytes` of `fromPath` (its size now when absent) to `toPath`, which must
 * not exist, and makes it durable (data synced; the caller syncs the directory). Returns the
 * bytes copied. `onChunk` is told of each chunk's bytes as it is written.
 */
export async function copyFileChunked(
  fileSystem: FileSystem,
  paths: { fromPath: string; toPath: string },
  options: { sizeBytes?: number; onChunk?: (bytes: number) => void } = {},
): Promise<number> {
  assert(paths.fromPath !== paths.toPath);
  if (fileSystem.exists(paths.toPath)) {
    throw new StorageError('IO', `copy: ${paths.toPath} exists already`);
  }
  const source = fileSystem.open(paths.fromPath, 'read');
  try {
    const sizeBytes = Math.min(options.sizeBytes ?? source.sizeBytes(), source.sizeBytes());
    const target = fileSystem.open(paths.toPath, 'create');
    try {
      let offsetBytes = 0;
      while (offsetBytes < sizeBytes) {
        // A new buffer a chunk: writeAsync needs its bytes unchanged until it resolves.
        const chunk = new Uint8Array(Math.min(FILE_COPY_CHUNK_BYTES, sizeBytes - offsetBytes));
        const readBytes = source.read(chunk, offsetBytes);
        if (readBytes === 0) break; // Cut shorter meanwhile: what is there is all there is.
        await target.writeAsync(chunk.subarray(0, readBytes), offsetBytes);
        offsetBytes += readBytes;
        options.onChunk?.(readBytes);
      }
      assert(offsetBytes <= sizeBytes);
      await target.datasync();
      return offsetBytes;
    } finally {
      target.close();
    }
  } finally {
    source.close();
  }
}
