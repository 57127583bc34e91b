import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId, generation, lsn, type BlockId } from '../../../lib/base/ids.ts';
import { loadBlockMap, type BlockMapLoad } from '../../../compaction/block-map.ts';
import { cplogFilePath } from '../../../compaction/cplog-files.ts';
import type { CplogEntry } from '../../../compaction/cplog-format.ts';
import { CplogWriter } from '../../../compaction/cplog-writer.ts';
import type { SimFileSystem } from '../../sim/sim-file-system.ts';
import {
  BLOCK_SIZE_BYTES, blockEntry, DATA_ROOT, freeEntry, generations, newSimData, P5, writeCplog,
} from './compaction-test-helpers.ts';

function load(fileSystem: SimFileSystem, partialCheckpointInterval: number): BlockMapLoad {
  return loadBlockMap(fileSystem, { dataRoot: DATA_ROOT, partitionId: P5,
    partialCheckpointInterval });
}

/** blockId → [slot, generation], sorted by block id. */
function mapOf(loaded: BlockMapLoad): Array<[number, number, number]> {
  return [...loaded.blockMap.values()]
    .map((entry): [number, number, number] => [entry.blockId, entry.slot, entry.generation])
    .sort((a, b) => a[0] - b[0]);
}

/** The map as the brief defines it: the generations replayed oldest to newest. */
function replayForward(
  gens: ReadonlyArray<{ generation: number; entries: readonly CplogEntry[] }>,
): Array<[number, number, number]> {
  const map = new Map<BlockId, [number, number, number]>();
  for (const { generation: g, entries } of gens) {
    for (const entry of entries) {
      if (entry.type === 'FREE') map.delete(entry.blockId);
      else map.set(entry.blockId, [entry.blockId, entry.slot, g]);
    }
  }
  return [...map.values()].sort((a, b) => a[0] - b[0]);
}

const SEVEN_GENERATIONS: ReadonlyArray<{ generation: number; entries: CplogEntry[] }> = [
  { generation: 1, entries: [blockEntry(1, 0), blockEntry(2, 1), blockEntry(3, 2)] },
  { generation: 2, entries: [blockEntry(4, 3), blockEntry(1, 4)] },
  { generation: 3, entries: [freeEntry(2), blockEntry(5, 1)] },
  { generation: 4, entries: [blockEntry(3, 2), blockEntry(6, 5)] },
  { generation: 5, entries: [blockEntry(4, 6), freeEntry(5)] },
  { generation: 6, entries: [blockEntry(7, 1), blockEntry(1, 4)] },
  // Block 2, removed in generation 3, is an id in use again; slot 0 was block 1's in generation 1.
  { generation: 7, entries: [blockEntry(2, 7), blockEntry(8, 0)] },
];

describe('loadBlockMap', () => {
  it('replays the last 5 of 7 generations, honouring FREE entries', async () => {
    const fileSystem = await newSimData();
    for (const gen of SEVEN_GENERATIONS) {
      await writeCplog(fileSystem, { ...gen, checkpointLsn: BigInt(gen.generation * 100) });
    }
    const loaded = load(fileSystem, 5);
    assert.deepEqual(loaded.generations, generations(3, 4, 5, 6, 7));
    assert.equal(loaded.checkpointLsn, 700n);
    assert.deepEqual(loaded.incompleteGenerations, []);
    assert.equal(loaded.blockSizeBytes, BLOCK_SIZE_BYTES);
    assert.deepEqual(mapOf(loaded), [
      [1, 4, 6], [2, 7, 7], [3, 2, 4], [4, 6, 5], [6, 5, 4], [7, 1, 6], [8, 0, 7],
    ]);
    assert.deepEqual(mapOf(loaded), replayForward(SEVEN_GENERATIONS.slice(2)));
    const entry = loaded.blockMap.get(blockId(3))!;
    assert.deepEqual(entry, { ...blockEntryFields(3, 2), generation: 4 });
    // With a window of all seven, block 5 is still gone and block 1's first slot is forgotten.
    assert.deepEqual(mapOf(load(fileSystem, 7)), replayForward(SEVEN_GENERATIONS));
  });

  it('skips incomplete generations, reaching back for complete ones', async () => {
    const fileSystem = await newSimData();
    for (const gen of SEVEN_GENERATIONS) {
      await writeCplog(fileSystem, { ...gen, checkpointLsn: BigInt(gen.generation * 100) });
    }
    for (const g of [7, 4]) truncateBy(fileSystem, g, 1);
    const loaded = load(fileSystem, 3);
    assert.deepEqual(loaded.generations, generations(3, 5, 6));
    assert.equal(loaded.checkpointLsn, 600n);
    assert.deepEqual(loaded.incompleteGenerations.map((g) => g.generation), [7, 4]);
    assert.match(loaded.incompleteGenerations[0]!.reason, /torn record/);
    const kept = SEVEN_GENERATIONS.filter((g) => [3, 5, 6].includes(g.generation));
    assert.deepEqual(mapOf(loaded), replayForward(kept));
  });

  it('gives an empty map and LSN 0 when there is no complete cplog', async () => {
    const fileSystem = await newSimData();
    assert.deepEqual(load(fileSystem, 5), {
      blockMap: new Map(), checkpointLsn: 0n, generations: [], incompleteGenerations: [],
      blockSizeBytes: undefined,
    });
    await writeCplog(fileSystem, { generation: 1, checkpointLsn: 1n, entries: [] });
    truncateBy(fileSystem, 1, 3);
    assert.deepEqual(load(fileSystem, 5).generations, []);
  });

  it('equals a forward replay of the last complete generations (model)', async () => {
    const entryArbitrary = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 12 }));
    const genArbitrary = fc.record({
      entries: fc.array(entryArbitrary, { maxLength: 10 }),
      complete: fc.boolean(),
    });
    await fc.assert(fc.asyncProperty(
      fc.array(genArbitrary, { minLength: 0, maxLength: 8 }), fc.integer({ min: 1, max: 6 }),
      async (gens, interval) => {
        const fileSystem = await newSimData();
        const written = gens.map((gen, i) => ({
          generation: i + 1, complete: gen.complete,
          // Slots distinct across every entry, so no two live blocks can meet in one.
          entries: gen.entries.map(([free, id], k) => (free
            ? freeEntry(id)
            : blockEntry(id, (i + 1) * 100 + k))),
        }));
        for (const gen of written) {
          await writeCplog(fileSystem, { ...gen, checkpointLsn: BigInt(gen.generation) });
          if (!gen.complete) truncateBy(fileSystem, gen.generation, 1);
        }
        const window = written.filter((gen) => gen.complete).slice(-interval);
        const loaded = load(fileSystem, interval);
        assert.deepEqual(loaded.generations, window.map((gen) => gen.generation));
        assert.deepEqual(mapOf(loaded), replayForward(window));
        assert.equal(loaded.checkpointLsn, BigInt(window.at(-1)?.generation ?? 0));
      }), { numRuns: 200 });
  });

  it('two live blocks in one slot, or generations that disagree, are CORRUPTION', async () => {
    const isCorruption = (error: unknown) => isStorageError(error, 'CORRUPTION');
    const fileSystem = await newSimData();
    await writeCplog(fileSystem, { generation: 1, checkpointLsn: 10n,
      entries: [blockEntry(1, 0), blockEntry(2, 0)] });
    assert.throws(() => load(fileSystem, 5), /blocks [12] and [12] are both in slot 0/);

    const lsnBack = await newSimData();
    await writeCplog(lsnBack, { generation: 1, checkpointLsn: 10n, entries: [] });
    await writeCplog(lsnBack, { generation: 2, checkpointLsn: 9n, entries: [] });
    assert.throws(() => load(lsnBack, 5), isCorruption);
    assert.deepEqual(load(lsnBack, 1).generations, generations(2), 'only the newest is read');

    const sizes = await newSimData();
    await writeCplog(sizes, { generation: 1, checkpointLsn: 10n, entries: [] });
    const writer = await CplogWriter.create({
      fileSystem: sizes, dataRoot: DATA_ROOT, partitionId: P5, generation: generation(2),
      blockSizeBytes: 2 * BLOCK_SIZE_BYTES, checkpointLsn: lsn(11n),
    });
    await writer.finish();
    assert.throws(() => load(sizes, 5), isCorruption);
  });
});

function blockEntryFields(id: number, slot: number): Record<string, unknown> {
  const { type: _type, ...fields } = blockEntry(id, slot) as Extract<CplogEntry, { type: 'BLOCK' }>;
  return fields;
}

/** Cuts `bytes` off the end of generation `g`'s cplog, as a crash inside its last write would. */
function truncateBy(fileSystem: SimFileSystem, g: number, bytes: number): void {
  const handle = fileSystem.open(cplogFilePath(DATA_ROOT, P5, generation(g)), 'readWrite');
  handle.truncate(handle.sizeBytes() - bytes);
  handle.close();
}
