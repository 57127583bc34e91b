// The write thread (lib/io/write-thread.ts): NodeFileHandle.writeAsync goes through it, takes the
// bytes at the call, and a thread started ahead of any write does not keep the process alive.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { writeThread } from '../../../lib/io/write-thread.ts';

/** A child that starts the thread ahead (as DataFiles.open does) and then just ends. */
const IDLE_CHILD = `
import { NodeFileSystem } from ${JSON.stringify(new URL('../../../lib/io/node-file-system.ts', import.meta.url).href)};
new NodeFileSystem().prepareAsyncWrites();
`;
const CHILD_TIMEOUT_MS = 30_000;

describe('write thread', () => {
  it('carries writeAsync, taking the bytes at the call; a closed handle is IO', async () => {
    const root = mkdtempSync(join(tmpdir(), 'write-thread-'));
    try {
      const path = join(root, 'w.bin');
      const handle = new NodeFileSystem().open(path, 'create');
      const before = writeThread().counters.writeCount;
      const bytes = new Uint8Array(64 * 1024).fill(7);
      const writes = [handle.writeAsync(bytes, 0), handle.writeAsync(Uint8Array.of(1, 2), 70_000)];
      bytes.fill(9); // after the call: must not reach the file
      await Promise.all(writes);
      assert.equal(writeThread().counters.writeCount - before, 2);
      await handle.datasync();
      handle.close();
      const file = readFileSync(path);
      assert.equal(file.length, 70_002);
      assert.ok(file.subarray(0, 64 * 1024).every((byte) => byte === 7));
      assert.deepEqual([...file.subarray(70_000)], [1, 2]);
      await assert.rejects(handle.writeAsync(Uint8Array.of(1), 0),
        (error: unknown) => isStorageError(error) && error.code === 'IO');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('started ahead of any write, does not keep the process alive', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
      IDLE_CHILD], { timeout: CHILD_TIMEOUT_MS, encoding: 'utf8' });
    assert.equal(child.error, undefined, 'the child did not end by itself');
    assert.equal(child.status, 0, child.stderr);
  });
});
