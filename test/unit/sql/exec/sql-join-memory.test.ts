// A hash join whose build side is far bigger than the work memory, in a child process whose V8
// heap is capped (fixtures/hash-join-build.ts): with /sql/workMemoryLimit at GridDB's default of
// 32 MiB the statement ends with LIMIT_EXCEEDED and the process lives; the same build without the
// limit (1 GB) needs more heap than the cap and the process dies of "heap out of memory". So the
// work memory charged for the build side bounds the heap it takes: never an OOM, a clear error.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const FIXTURE = fileURLToPath(new URL('./fixtures/hash-join-build.ts', import.meta.url));
/** The table's rows: its data fit the heap cap, a hash table of all of them does not. */
const ROW_COUNT = 600_000;
const HEAP_CAP_MB = 140;
const WORK_MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;
const UNLIMITED_BYTES = 1024 * 1024 * 1024;
const CHILD_TIMEOUT_MS = 150_000;

function runChild(workMemoryLimitBytes: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, '--import', 'tsx', FIXTURE, String(ROW_COUNT),
      String(workMemoryLimitBytes)], { timeout: CHILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
    (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? null, stdout, stderr }));
  });
}

describe('a hash join build side past the work memory', { timeout: 2 * CHILD_TIMEOUT_MS + 10_000 }, () => {
  it('ends with LIMIT_EXCEEDED under a capped heap; without the limit the same build runs out of heap', async () => {
    const limited = await runChild(WORK_MEMORY_LIMIT_BYTES);
    assert.equal(limited.code, 0, limited.stderr.slice(-2000));
    assert.deepEqual(JSON.parse(limited.stdout.trim().split('\n').at(-1)!), { code: 'LIMIT_EXCEEDED', rows: [] });
    const unlimited = await runChild(UNLIMITED_BYTES);
    assert.notEqual(unlimited.code, 0, 'the cap is too large to show anything');
    assert.match(unlimited.stderr, /heap out of memory/);
  });
});
