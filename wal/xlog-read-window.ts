// The xlog scan's read buffer: a window over one file that slides forward as the scan moves. It
// reads a whole buffer per call, keeps the unread rest when it slides, and grows only when one
// record is larger than the buffer; that record is at most XLOG_RECORD_BYTES_MAX, so the buffer is
// bounded.

import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import { XLOG_RECORD_BYTES_MAX } from '../lib/base/limits.ts';
import type { FileHandle } from '../lib/io/file-system.ts';
import { XLOG_RECORD_HEADER_BYTES } from './xlog-format.ts';

const WINDOW_BYTES_MAX = XLOG_RECORD_HEADER_BYTES + XLOG_RECORD_BYTES_MAX;

export class XlogReadWindow {
  /** Buffer; bytes[0] is file offset startOffsetBytes. Only its first validBytes are file data. */
  bytes: Uint8Array;
  private handle: FileHandle | undefined;
  private startOffsetBytes = 0;
  private validBytes = 0;

  constructor(chunkBytes: number) {
    assert(Number.isInteger(chunkBytes));
    assert(chunkBytes >= XLOG_RECORD_HEADER_BYTES);
    this.bytes = new Uint8Array(chunkBytes);
  }

  /** Points the window at the start of another file. */
  reset(handle: FileHandle): void {
    this.handle = handle;
    this.startOffsetBytes = 0;
    this.validBytes = 0;
  }

  /**
   * Makes file bytes [offsetBytes, offsetBytes + sizeBytes) readable in `bytes` and returns the
   * index of the first. Offsets never go backwards past the last one loaded. The caller has checked
   * that the file is long enough; a short read means it shrank under the scan, an IO error.
   */
  load(offsetBytes: number, sizeBytes: number): number {
    assert(this.handle !== undefined);
    assert(offsetBytes >= this.startOffsetBytes);
    assert(sizeBytes <= WINDOW_BYTES_MAX);
    const endBytes = offsetBytes + sizeBytes;
    const loadedEndBytes = this.startOffsetBytes + this.validBytes;
    if (endBytes <= loadedEndBytes) return offsetBytes - this.startOffsetBytes;
    this.slideTo(offsetBytes, sizeBytes);
    while (this.validBytes < sizeBytes) {
      const into = this.bytes.subarray(this.validBytes);
      const readBytes = this.handle.read(into, this.startOffsetBytes + this.validBytes);
      if (readBytes === 0) {
        const atBytes = this.startOffsetBytes + this.validBytes;
        throw new StorageError('IO', `${this.handle.path}: file ended at ${atBytes} while ` +
          `reading to ${endBytes}; did it shrink?`);
      }
      this.validBytes += readBytes;
    }
    return 0;
  }

  /** Moves the unread bytes to the front (or into a larger buffer if the record needs one). */
  private slideTo(offsetBytes: number, sizeBytes: number): void {
    const keepFromIndex = Math.min(offsetBytes - this.startOffsetBytes, this.validBytes);
    const keptBytes = this.validBytes - keepFromIndex;
    if (sizeBytes > this.bytes.length) {
      const grownBytes = Math.min(WINDOW_BYTES_MAX, Math.max(sizeBytes, 2 * this.bytes.length));
      const grown = new Uint8Array(grownBytes);
      grown.set(this.bytes.subarray(keepFromIndex, this.validBytes));
      this.bytes = grown;
    } else {
      this.bytes.copyWithin(0, keepFromIndex, this.validBytes);
    }
    this.startOffsetBytes = offsetBytes;
    this.validBytes = keptBytes;
    assert(this.validBytes < sizeBytes);
  }
}
