// Punching holes (lib/io/punch-hole.ts): on the real file system through the native addon, on the
// SimFileSystem, through the fallback without the addon, and how each answers "not supported".
// The real-file-system case skips, saying why, only if the addon is not built or the temp file
// system answers EOPNOTSUPP.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isStorageError } from '../../../lib/base/errors.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import {
  holePuncherFromAddon, loadHolePuncher, punchHoleSupport, type PunchHoleAddon,
} from '../../../lib/io/punch-hole.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { fileSystemContract } from '../sim/file-system-contract.ts';

const KiB = 1024;
const FILE_SIZE_BYTES = 1024 * KiB;
const HOLE = { offsetBytes: 256 * KiB, lengthBytes: 512 * KiB };
/** How far from the punched length the released space may be: file systems allocate in blocks. */
const RELEASED_BYTES_SLACK = 64 * KiB;
const ADDON_PATH = fileURLToPath(
  new URL('../../../lib/io/native/build/Release/punch_hole.node', import.meta.url));

function tempDirectory(): { root: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'store-punch-hole-'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

interface PunchOutcome {
  punched: boolean;
  sizeBytes: number;
  bytes: Uint8Array;
  allocatedBytesBefore: number;
  allocatedBytesAfter: number;
}

/** Writes 1 MiB of 0xab, syncs, punches HOLE out of its middle and reads everything back. */
async function punchMiddle(fileSystem: FileSystem, path: string): Promise<PunchOutcome> {
  const handle = fileSystem.open(path, 'create');
  try {
    handle.write(new Uint8Array(FILE_SIZE_BYTES).fill(0xab), 0);
    await handle.datasync();
    const allocatedBytesBefore = handle.allocatedBytes();
    const punched = handle.punchHole(HOLE.offsetBytes, HOLE.lengthBytes);
    await handle.datasync();
    const bytes = new Uint8Array(handle.sizeBytes());
    assert.equal(handle.read(bytes, 0), bytes.length);
    const allocatedBytesAfter = handle.allocatedBytes();
    const sizeBytes = handle.sizeBytes();
    return { punched, sizeBytes, bytes, allocatedBytesBefore, allocatedBytesAfter };
  } finally {
    handle.close();
  }
}

function countDiffering(bytes: Uint8Array, value: number, fromIndex: number, toIndex: number) {
  let count = 0;
  for (let index = fromIndex; index < toIndex; index += 1) count += bytes[index] === value ? 0 : 1;
  return count;
}

function assertPunchedMiddle(outcome: PunchOutcome): void {
  const holeEndBytes = HOLE.offsetBytes + HOLE.lengthBytes;
  assert.equal(outcome.punched, true);
  assert.equal(outcome.sizeBytes, FILE_SIZE_BYTES);
  assert.equal(countDiffering(outcome.bytes, 0, HOLE.offsetBytes, holeEndBytes), 0);
  assert.equal(countDiffering(outcome.bytes, 0xab, 0, HOLE.offsetBytes), 0);
  assert.equal(countDiffering(outcome.bytes, 0xab, holeEndBytes, FILE_SIZE_BYTES), 0);
  assert.ok(outcome.allocatedBytesBefore >= FILE_SIZE_BYTES);
  const releasedBytes = outcome.allocatedBytesBefore - outcome.allocatedBytesAfter;
  assert.ok(Math.abs(releasedBytes - HOLE.lengthBytes) <= RELEASED_BYTES_SLACK,
    `released ${releasedBytes} bytes`);
}

function assertIntact(outcome: PunchOutcome): void {
  assert.equal(outcome.punched, false);
  assert.equal(outcome.sizeBytes, FILE_SIZE_BYTES);
  assert.equal(countDiffering(outcome.bytes, 0xab, 0, FILE_SIZE_BYTES), 0);
}

function skip(t: TestContext, reason: string): void {
  console.log(`punch-hole test skipped: ${reason}`);
  t.skip(reason);
}

describe('punchHole on the real file system', () => {
  it('releases 512 KiB out of the middle of a 1 MiB file', async (t) => {
    if (!punchHoleSupport.available) return skip(t, `no addon: ${punchHoleSupport.reason}`);
    const { root, cleanup } = tempDirectory();
    try {
      const outcome = await punchMiddle(new NodeFileSystem(), join(root, 'f.dat'));
      if (!outcome.punched) return skip(t, `${tmpdir()} answers EOPNOTSUPP to PUNCH_HOLE`);
      assertPunchedMiddle(outcome);
      const releasedBytes = outcome.allocatedBytesBefore - outcome.allocatedBytesAfter;
      t.diagnostic(`released ${releasedBytes} bytes in ${tmpdir()}`);
      assert.equal(statSync(join(root, 'f.dat')).blocks * 512, outcome.allocatedBytesAfter);
    } finally {
      cleanup();
    }
  });

  it('throws errors carrying errno and its text from the addon itself', (t) => {
    if (!punchHoleSupport.available) return skip(t, `no addon: ${punchHoleSupport.reason}`);
    const addon = createRequire(import.meta.url)(ADDON_PATH) as PunchHoleAddon;
    const badFd = 1_000_000;
    assert.throws(() => addon.punchHole(badFd, 0, 4096),
      (error: Error & { errno?: number }) =>
        error.errno === osConstants.errno.EBADF && /Bad file descriptor/.test(error.message));
    assert.throws(() => addon.allocatedBytes(badFd), /fstat: Bad file descriptor/);
    assert.throws(() => addon.punchHole(-1, 0, 4096), TypeError);
  });
});

/** Sizes and punches around block edges, where file systems free a partial block or keep it. */
const EDGE_CASES = [
  { sizeBytes: 10_000, offsetBytes: 8192, lengthBytes: 1024 * KiB }, // past the end: frees it
  { sizeBytes: 10_000, offsetBytes: 4096, lengthBytes: 5904 }, // up to the end: keeps it
  { sizeBytes: 10_000, offsetBytes: 100, lengthBytes: 8192 },
  { sizeBytes: 12_288, offsetBytes: 0, lengthBytes: 12_288 },
  { sizeBytes: 12_288, offsetBytes: 4095, lengthBytes: 4098 },
  { sizeBytes: 12_288, offsetBytes: 20_000, lengthBytes: 4096 },
];

async function edgeCaseAllocatedBytes(fileSystem: FileSystem, root: string): Promise<number[]> {
  const allocatedBytes: number[] = [];
  for (const [index, { sizeBytes, offsetBytes, lengthBytes }] of EDGE_CASES.entries()) {
    const handle = fileSystem.open(`${root}/edge-${index}`, 'create');
    handle.write(new Uint8Array(sizeBytes).fill(9), 0);
    await handle.datasync();
    assert.equal(handle.punchHole(offsetBytes, lengthBytes), true);
    await handle.datasync();
    allocatedBytes.push(handle.allocatedBytes());
    handle.close();
  }
  return allocatedBytes;
}

describe('punchHole on the SimFileSystem', () => {
  it('frees the same blocks as the temp file system, at block edges', async (t) => {
    if (!punchHoleSupport.available) return skip(t, `no addon: ${punchHoleSupport.reason}`);
    const blockSizeBytes = statfsSync(tmpdir()).bsize;
    if (blockSizeBytes !== 4096) return skip(t, `${tmpdir()} has ${blockSizeBytes}-byte blocks`);
    const { root, cleanup } = tempDirectory();
    try {
      const probe = new NodeFileSystem().open(join(root, 'probe'), 'create');
      probe.write(new Uint8Array(8192), 0);
      const supported = probe.punchHole(0, 4096);
      probe.close();
      if (!supported) return skip(t, `${tmpdir()} answers EOPNOTSUPP to PUNCH_HOLE`);
      const real = await edgeCaseAllocatedBytes(new NodeFileSystem(), root);
      const sim = await edgeCaseAllocatedBytes(new SimFileSystem({ seed: 1 }), '/');
      assert.deepEqual(sim, real);
    } finally {
      cleanup();
    }
  });

  it('releases 512 KiB out of the middle of a 1 MiB file, exactly', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const outcome = await punchMiddle(fileSystem, '/f.dat');
    assertPunchedMiddle(outcome);
    assert.equal(outcome.allocatedBytesBefore - outcome.allocatedBytesAfter, HOLE.lengthBytes);
    assert.equal(fileSystem.counters.punchHoleCount, 1);
  });

  it('keeps a punch across a crash only once datasync has returned', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    fileSystem.mkdirp('/d');
    await fileSystem.syncDirectory('/');
    const handle = fileSystem.open('/d/f.dat', 'create');
    handle.write(new Uint8Array(64 * KiB).fill(3), 0);
    await handle.datasync();
    await fileSystem.syncDirectory('/d');
    handle.punchHole(0, 32 * KiB);
    assert.equal(handle.allocatedBytes(), 32 * KiB);
    fileSystem.crash();
    const reopened = fileSystem.open('/d/f.dat', 'readWrite');
    assert.equal(reopened.allocatedBytes(), 64 * KiB);
    assert.equal(countDiffering(fileSystem.fileBytes('/d/f.dat')!, 3, 0, 64 * KiB), 0);
    reopened.punchHole(0, 32 * KiB);
    await reopened.datasync();
    fileSystem.crash();
    const again = fileSystem.open('/d/f.dat', 'read');
    assert.equal(again.allocatedBytes(), 32 * KiB);
    const bytes = fileSystem.fileBytes('/d/f.dat')!;
    assert.equal(countDiffering(bytes, 0, 0, 32 * KiB), 0);
    assert.equal(countDiffering(bytes, 3, 32 * KiB, 64 * KiB), 0);
  });

  it('counts a torn tail kept by a crash as allocated', async () => {
    const fileSystem = new SimFileSystem({ seed: 7 });
    await fileSystem.syncDirectory('/');
    const handle = fileSystem.open('/t.dat', 'create');
    handle.write(new Uint8Array(4 * KiB).fill(1), 0);
    await handle.datasync();
    await fileSystem.syncDirectory('/');
    handle.write(new Uint8Array(40 * KiB).fill(2), 4 * KiB);
    fileSystem.crash({ tornWrites: true });
    const reopened = fileSystem.open('/t.dat', 'read');
    const blockCount = Math.ceil(reopened.sizeBytes() / (4 * KiB));
    assert.equal(reopened.allocatedBytes(), blockCount * 4 * KiB);
  });

  it('answers false and changes nothing where the file system cannot punch', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    fileSystem.setPunchHoleSupported(false);
    const outcome = await punchMiddle(fileSystem, '/f.dat');
    assertIntact(outcome);
    assert.equal(outcome.allocatedBytesAfter, outcome.allocatedBytesBefore);
    assert.equal(fileSystem.counters.punchHoleCount, 0);
  });
});

describe('punchHole without the addon', () => {
  it('reports why, returns false, leaves the data and still counts allocation', async () => {
    const holePuncher = loadHolePuncher(['/nonexistent/punch_hole.node']);
    assert.equal(holePuncher.support.available, false);
    assert.match(holePuncher.support.reason ?? '', /not built/);
    const { root, cleanup } = tempDirectory();
    try {
      const path = join(root, 'f.dat');
      const outcome = await punchMiddle(new NodeFileSystem({ holePuncher }), path);
      assertIntact(outcome);
      assert.equal(outcome.allocatedBytesAfter, statSync(path).blocks * 512);
      assert.ok(outcome.allocatedBytesAfter >= FILE_SIZE_BYTES);
    } finally {
      cleanup();
    }
  });

  it('reports an addon that does not load, without throwing', () => {
    const { root, cleanup } = tempDirectory();
    try {
      const path = join(root, 'punch_hole.node');
      writeFileSync(path, 'not a shared object');
      const holePuncher = loadHolePuncher([path]);
      assert.equal(holePuncher.support.available, false);
      assert.match(holePuncher.support.reason ?? '', /failed to load/);
    } finally {
      cleanup();
    }
  });
});

describe('punchHole errors from the addon', () => {
  /** An addon whose punchHole fails with `errno` and counts its calls. */
  function failingAddon(errno: number, code?: string): PunchHoleAddon & { callCount: number } {
    const addon = {
      callCount: 0,
      punchHole() {
        addon.callCount += 1;
        throw Object.assign(new Error(`fallocate: errno ${errno}`), { errno, code });
      },
      allocatedBytes: () => 0,
    };
    return addon;
  }

  it('treats EOPNOTSUPP as unsupported, and stops asking that handle', async () => {
    const addon = failingAddon(osConstants.errno.EOPNOTSUPP, 'EOPNOTSUPP');
    const holePuncher = holePuncherFromAddon(addon, undefined);
    assert.equal(holePuncher.support.available, true);
    const { root, cleanup } = tempDirectory();
    try {
      const handle = new NodeFileSystem({ holePuncher }).open(join(root, 'f'), 'create');
      handle.write(new Uint8Array(8 * KiB).fill(5), 0);
      assert.equal(handle.punchHole(0, 4 * KiB), false);
      assert.equal(handle.punchHole(4 * KiB, 4 * KiB), false);
      assert.equal(addon.callCount, 1);
      handle.close();
    } finally {
      cleanup();
    }
  });

  it('turns any other errno into StorageError IO with the cause', () => {
    const holePuncher = holePuncherFromAddon(failingAddon(osConstants.errno.EIO), undefined);
    const range = { path: '/x', offsetBytes: 0, lengthBytes: 4096 };
    assert.throws(() => holePuncher.punchHole(3, range),
      (error) => isStorageError(error, 'IO') && error.cause instanceof Error);
  });
});

// The FileSystem contract, again, where holes cannot be punched: nothing may change.
fileSystemContract('NodeFileSystem without the punch-hole addon', () => {
  const { root, cleanup } = tempDirectory();
  const holePuncher = loadHolePuncher([]);
  return { fileSystem: new NodeFileSystem({ holePuncher }), root, cleanup };
});

fileSystemContract('SimFileSystem that cannot punch holes', () => {
  const fileSystem = new SimFileSystem({ seed: 1 });
  fileSystem.setPunchHoleSupported(false);
  fileSystem.mkdirp('/contract');
  return { fileSystem, root: '/contract', cleanup: () => {} };
});
