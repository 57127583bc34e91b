// The partition checkpointer against a model: blocks are written and freed, checkpoints run, and the
// file system crashes at random moments, also in the middle of a checkpoint. After every crash the
// reopened block map must hold exactly the images of the last complete checkpoint (or of the one in
// flight, if its END record became durable before the crash), and no checkpoint may ever write into
// a slot the last complete checkpoint references.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { blockId, lsn, type BlockId, type Lsn } from '../../../lib/base/ids.ts';
import {
  checkpointWriteWindowCount, PartitionCheckpointer, type CheckpointSource,
  type PartitionCheckpointerOptions,
} from '../../../compaction/checkpoint.ts';
import { Prng } from '../../sim/prng.ts';
import type { SimFileSystem } from '../../sim/sim-file-system.ts';
import { BLOCK_SIZE_BYTES, DATA_ROOT, newSimData, P5 } from './compaction-test-helpers.ts';

const BLOCK_ID_COUNT = 24;
const STEP_COUNT = 60;
const SEED_COUNT = 30;

/** Live block images; images are replaced, never changed in place, so a snapshot is a Map copy. */
class ModelSource implements CheckpointSource {
  readonly images = new Map<BlockId, Uint8Array>();
  private dirty = new Set<BlockId>();
  private freed = new Set<BlockId>();
  private snapshot: Map<BlockId, Uint8Array> | undefined;

  write(id: BlockId, fill: number): void {
    const image = new Uint8Array(BLOCK_SIZE_BYTES).fill(fill);
    new DataView(image.buffer).setUint32(0, id, true);
    this.images.set(id, image);
    this.dirty.add(id);
    this.freed.delete(id);
  }

  remove(id: BlockId): void {
    if (!this.images.delete(id)) return;
    this.dirty.delete(id);
    this.freed.add(id);
  }

  takeCheckpointSet() {
    const set = { dirty: [...this.dirty], freed: [...this.freed] };
    this.snapshot = new Map(this.images);
    this.dirty = new Set();
    this.freed = new Set();
    return set;
  }

  encodeBlock(id: BlockId): Uint8Array {
    const image = this.snapshot!.get(id);
    assert.ok(image !== undefined, `block ${id} is not in the snapshot`);
    return image;
  }

  blockKind(): number {
    return 1;
  }

  finishCheckpointSet(): void {
    this.snapshot = undefined;
  }

  abandonCheckpointSet(): void {
    this.snapshot = undefined;
    this.recovered([]);
  }

  /**
   * After a crash, as the engine after recovery: every live block is due again, and every block the
   * recovered map still holds but the model no longer has is freed.
   */
  recovered(onDisk: Iterable<BlockId>): void {
    for (const id of this.images.keys()) this.dirty.add(id);
    for (const id of onDisk) if (!this.images.has(id)) this.freed.add(id);
  }

  get lastSnapshot(): Map<BlockId, Uint8Array> | undefined {
    return this.snapshot;
  }
}

function options(
  fileSystem: SimFileSystem, compress: boolean, fileFlushSizeBytes = 0,
): PartitionCheckpointerOptions {
  return {
    fileSystem, dataRoot: DATA_ROOT, partitionId: P5, blockSizeBytes: BLOCK_SIZE_BYTES,
    partialCheckpointInterval: 3, compress, splitCount: 2, fileFlushSizeBytes,
  };
}

/** Fails the test if a checkpoint writes into a slot the last complete checkpoint references. */
function guardReferencedSlots(checkpointer: PartitionCheckpointer, referenced: () => Set<number>) {
  const files = checkpointer.dataFiles;
  const writeSlot = files.writeSlot.bind(files);
  files.writeSlot = (slot, image, writeOptions) => {
    assert.ok(!referenced().has(slot), `slot ${slot} of the last complete checkpoint overwritten`);
    return writeSlot(slot, image, writeOptions);
  };
  const writeSlotAsync = files.writeSlotAsync.bind(files);
  files.writeSlotAsync = (slot, image, writeOptions) => {
    assert.ok(!referenced().has(slot), `slot ${slot} of the last complete checkpoint overwritten`);
    return writeSlotAsync(slot, image, writeOptions);
  };
}

/**
 * Makes each checkpoint write resolve `turns` turns of the loop after it was issued (the bytes
 * land at once), failing the one numbered `failAt`; counts the writes in flight and their peak.
 */
function slowWrites(checkpointer: PartitionCheckpointer, turns: number, failAt?: number) {
  const files = checkpointer.dataFiles;
  const writeSlotAsync = files.writeSlotAsync.bind(files);
  const counts = { inFlight: 0, peak: 0, issued: 0 };
  files.writeSlotAsync = async (slot, image, writeOptions) => {
    const n = counts.issued++;
    counts.inFlight++;
    counts.peak = Math.max(counts.peak, counts.inFlight);
    try {
      const stored = await writeSlotAsync(slot, image, writeOptions);
      for (let turn = 0; turn < (n === failAt ? 1 : turns); turn++) await nextTurn();
      if (n === failAt) throw new StorageError('IO', 'injected write failure');
      return stored;
    } finally {
      counts.inFlight--;
    }
  };
  return counts;
}

function imagesOf(checkpointer: PartitionCheckpointer): Map<BlockId, Uint8Array> {
  const images = new Map<BlockId, Uint8Array>();
  for (const id of checkpointer.blockMap.keys()) images.set(id, checkpointer.readCheckpointImage(id));
  return images;
}

function sameImages(a: Map<BlockId, Uint8Array>, b: Map<BlockId, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, image] of a) {
    const other = b.get(id);
    if (other === undefined || Buffer.compare(image, other) !== 0) return false;
  }
  return true;
}

async function runSeed(
  seed: number, compress: boolean, fileFlushSizeBytes: number,
): Promise<{ crashes: number; midCheckpoint: number }> {
  const prng = new Prng(seed);
  const fileSystem = await newSimData(seed);
  const source = new ModelSource();
  let checkpointer = await PartitionCheckpointer.open(
    options(fileSystem, compress, fileFlushSizeBytes));
  let complete = new Map<BlockId, Uint8Array>();
  let referenced = new Set<number>();
  guardReferencedSlots(checkpointer, () => referenced);
  let checkpointLsn: Lsn = lsn(0n);
  let crashes = 0;
  let midCheckpoint = 0;
  for (let step = 0; step < STEP_COUNT; step++) {
    const id = blockId(prng.nextIndex(BLOCK_ID_COUNT));
    if (prng.nextFloat() < 0.75) source.write(id, prng.nextIndex(256));
    else source.remove(id);
    if (prng.nextFloat() >= 0.3) continue;
    checkpointLsn = lsn(checkpointLsn + 1n);
    const running = checkpointer.checkpoint(source, checkpointLsn);
    const inFlight = source.lastSnapshot!;
    const outcome = running.then(() => 'done' as const, () => 'failed' as const);
    const crashAfterTurns = prng.nextFloat() < 0.35 ? prng.nextIndex(6) : undefined;
    if (crashAfterTurns === undefined) {
      assert.equal(await outcome, 'done', `seed ${seed}: checkpoint failed without a fault`);
      complete = inFlight;
      referenced = new Set([...checkpointer.blockMap.values()].map((entry) => entry.slot));
      continue;
    }
    for (let turn = 0; turn < crashAfterTurns; turn++) await nextTurn();
    fileSystem.crash({ tornWrites: true });
    crashes++;
    const finished = await Promise.race([outcome, nextTurn().then(() => 'pending' as const)]);
    if (finished !== 'done') midCheckpoint++;
    checkpointer = await PartitionCheckpointer.open(
      options(fileSystem, compress, fileFlushSizeBytes));
    const recovered = imagesOf(checkpointer);
    const matches = sameImages(recovered, complete) || sameImages(recovered, inFlight);
    assert.ok(matches, `seed ${seed}, step ${step}: recovered blocks match no complete checkpoint`);
    complete = recovered;
    referenced = new Set([...checkpointer.blockMap.values()].map((entry) => entry.slot));
    guardReferencedSlots(checkpointer, () => referenced);
    // The model's live blocks are not all on disk any more; write them again at the next checkpoint.
    source.abandonCheckpointSet();
    source.recovered(checkpointer.blockMap.keys());
    await outcome;
  }
  checkpointer.close();
  return { crashes, midCheckpoint };
}

describe('partition checkpointer', () => {
  it('keeps the last complete checkpoint through crashes, also mid-checkpoint', async (t) => {
    let crashes = 0;
    let midCheckpoint = 0;
    for (let seed = 1; seed <= SEED_COUNT; seed++) {
      // Every third seed also syncs the data files every two blocks (checkpointFileFlushSize).
      const fileFlushSizeBytes = seed % 3 === 0 ? 2 * BLOCK_SIZE_BYTES : 0;
      const result = await runSeed(seed, seed % 2 === 0, fileFlushSizeBytes);
      crashes += result.crashes;
      midCheckpoint += result.midCheckpoint;
    }
    t.diagnostic(`${crashes} crashes, ${midCheckpoint} of them while a checkpoint was running`);
    assert.ok(midCheckpoint > 0, 'no crash hit a running checkpoint');
  });

  it('recovers every live block from the split cplogs of the last generations', async () => {
    const fileSystem = await newSimData(7);
    const source = new ModelSource();
    let checkpointer = await PartitionCheckpointer.open(options(fileSystem, false));
    for (let id = 0; id < BLOCK_ID_COUNT; id++) source.write(blockId(id), id);
    await checkpointer.checkpoint(source, lsn(1n));
    // Ten more generations touch only block 0: the others survive through re-logging alone.
    for (let round = 0; round < 10; round++) {
      source.write(blockId(0), 100 + round);
      const report = await checkpointer.checkpoint(source, lsn(BigInt(round + 2)));
      assert.equal(report.writtenBlockCount, 1);
      assert.ok(report.reloggedBlockCount < BLOCK_ID_COUNT - 1, 'a partial checkpoint logged all');
    }
    checkpointer.close();
    checkpointer = await PartitionCheckpointer.open(options(fileSystem, false));
    assert.equal(checkpointer.recovered.generations.length, 3);
    assert.ok(sameImages(imagesOf(checkpointer), source.images));
    checkpointer.close();
  });

  it('checkpointFileFlushSize: syncs the data files each time that many bytes went out', async () => {
    const blockCount = 10;
    const syncCounts: number[] = [];
    for (const fileFlushSizeBytes of [0, 3 * BLOCK_SIZE_BYTES]) {
      const fileSystem = await newSimData(11);
      const source = new ModelSource();
      const checkpointer = await PartitionCheckpointer.open(
        options(fileSystem, false, fileFlushSizeBytes));
      for (let id = 0; id < blockCount; id++) source.write(blockId(id), id + 1);
      await checkpointer.checkpoint(source, lsn(1n));
      syncCounts.push(checkpointer.dataFiles.counters.flushCount);
      assert.ok(sameImages(imagesOf(checkpointer), source.images));
      checkpointer.close();
    }
    // Off: once before the END. Every 3 blocks of 10: after blocks 3, 6 and 9, then before END.
    assert.deepStrictEqual(syncCounts, [1, 4]);
  });

  it('keeps a window of block writes in flight, never more, and logs every block', async () => {
    const fileSystem = await newSimData(12);
    const source = new ModelSource();
    const checkpointer = await PartitionCheckpointer.open(options(fileSystem, false));
    const window = checkpointWriteWindowCount(BLOCK_SIZE_BYTES);
    const blockCount = 2 * window + 3;
    for (let id = 0; id < blockCount; id++) source.write(blockId(id), id + 1);
    const counts = slowWrites(checkpointer, 3 * window);
    const report = await checkpointer.checkpoint(source, lsn(1n));
    assert.equal(report.writtenBlockCount, blockCount);
    assert.equal(counts.peak, window);
    assert.ok(window > 1);
    checkpointer.close();
    fileSystem.crash();
    const reopened = await PartitionCheckpointer.open(options(fileSystem, false));
    assert.ok(sameImages(imagesOf(reopened), source.images));
    reopened.close();
  });

  it('a failed block write fails the checkpoint once no other write is in flight', async () => {
    const fileSystem = await newSimData(13);
    const source = new ModelSource();
    const checkpointer = await PartitionCheckpointer.open(options(fileSystem, false));
    for (let id = 0; id < 40; id++) source.write(blockId(id), id + 1);
    const counts = slowWrites(checkpointer, 8, 5);
    const outcome = await checkpointer.checkpoint(source, lsn(1n)).then(
      () => 'done', (error: unknown) => (error as Error).message);
    assert.equal(outcome, 'injected write failure');
    assert.equal(counts.inFlight, 0);
    assert.equal(checkpointer.counters.failedCount, 1);
    checkpointer.close();
  });
});
