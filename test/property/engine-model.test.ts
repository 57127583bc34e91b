// The storage engine against a model of plain Maps (engine-model.ts): random command sequences of
// creates, drops, puts, multiPuts, removes, gets, scans and counts by three sessions, with manual
// transactions, session closes, checkpoints (some left running under later commands), evictions,
// clean restarts and crashes, on a buffer pool of one block per partition group, so nearly every
// block is swapped out and read back (logWriteMode 0: every acknowledged commit survives a crash,
// open transactions do not; a crash during a multiPut keeps all of it or none). Every answer is compared with assert.deepStrictEqual, which compares numbers with
// Object.is: NaN equals NaN, -0 is not 0.
//
//   STORE_PROPERTY_RUNS=20000 node --import tsx --test test/property/engine-model.test.ts
//
// fast-check prints the seed, the replay path and the shrunk command list of a failure; replay it
// by passing { seed, path, endOnFailure: true } to fc.assert below.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { storageOptions } from '../../lib/base/options.ts';
import { Store } from '../../lib/engine/store.ts';
import { SimFileSystem } from '../sim/sim-file-system.ts';
import { EngineModel } from './engine-model.ts';
import {
  createInitialContainers, engineCommand, initialContainers,
} from './engine-model-commands.ts';
import { HOME, RealStore, verifyCommitted, withinWatchdog } from './engine-model-real.ts';
import { SCHEMA_KINDS, SCHEMAS, type SchemaKind } from './engine-model-schemas.ts';

const RUN_COUNT = Number(process.env['STORE_PROPERTY_RUNS'] ?? 1000);
const COMMAND_COUNT_MAX = 60;
const OPTIONS = storageOptions({ partitionNum: 8, concurrency: 2, logWriteMode: 0 });

/** A store in a new home, its home entry durable, on virtual time. */
async function newStore(seed: number) {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(HOME);
  await fileSystem.syncDirectory('/');
  const open = () => Store.open({
    home: HOME, options: OPTIONS, fileSystem, scheduler: new VirtualTimeScheduler(),
  });
  return { fileSystem, open, store: await open() };
}

/** Swap reads and writes of the final store of every run, summed. */
let swapReadCount = 0;
let swapWriteCount = 0;

/** The property: random commands on a store and on the model answer alike. */
function engineProperty() {
  const kinds: SchemaKind[] = [...SCHEMA_KINDS];
  return fc.asyncProperty(
    fc.nat(),
    initialContainers(kinds),
    fc.commands([engineCommand(kinds)], { maxCommands: COMMAND_COUNT_MAX, size: 'medium' }),
    async (fileSystemSeed, initial, commands) => {
      const real = await RealStore.create(fileSystemSeed);
      const model = new EngineModel();
      try {
        await withinWatchdog(createInitialContainers(model, real, initial), 'set-up');
        await fc.asyncModelRun(() => ({ model, real }), commands);
        await withinWatchdog(verifyCommitted(model, real), 'final check');
        const { swap } = real.store.stats();
        swapReadCount += swap.readCount;
        swapWriteCount += swap.writeCount;
      } finally {
        await withinWatchdog(real.close(), 'close').catch(() => undefined);
      }
    },
  );
}

describe('engine model', () => {
  it(`answers as the model does (${RUN_COUNT} runs)`, { timeout: 600_000 }, async () => {
    assert.ok(Number.isSafeInteger(RUN_COUNT) && RUN_COUNT > 0, 'STORE_PROPERTY_RUNS');
    const property = engineProperty();
    await fc.assert(property, { numRuns: RUN_COUNT, includeErrorInReport: true });
    // The memory limit is one block per group: the runs must have swapped blocks out and in.
    assert.ok(swapWriteCount > 0 && swapReadCount > 0,
      `swap writes ${swapWriteCount}, swap reads ${swapReadCount}`);
  });

  it('keeps acknowledged commits through a crash right after the first open of a new home', async () => {
    const { fileSystem, open, store } = await newStore(7);
    await store.createContainer(structuredClone(SCHEMAS.byName.definition));
    await store.session().container('by_name').put(['a', 1, null, null, null, null]);
    fileSystem.crash();
    const reopened = await open();
    assert.deepStrictEqual(reopened.listContainers(), ['by_name']);
    const row = await reopened.session().container('by_name').get('a');
    assert.deepStrictEqual(row, ['a', 1, null, null, null, null]);
    await reopened.close();
  });

  it('writes into a keyless collection and reads the rows back after a restart', async () => {
    const { store, open } = await newStore(8);
    await store.createContainer(structuredClone(SCHEMAS.keyless.definition));
    const rows = [
      [-1n, 'a', Number.NaN, null, [true], [0]], [2n, null, -0, Uint8Array.of(1), null, null],
    ];
    const handle = store.session().container('log-lines');
    await handle.multiPut(structuredClone(rows));
    assert.deepStrictEqual(await handle.scan({ direction: 'desc' }), [...rows].reverse());
    await store.close();
    const reopened = await open();
    assert.deepStrictEqual(await reopened.session().container('log-lines').scan(), rows);
    await reopened.close();
  });

  // A case found by this property: a background checkpoint's block write in flight while a large
  // BLOB put made the pool drop that (just encoded, so clean) block and read it back before the
  // block map named its slot ("block 3 has no image on disk"). Pinned by its seed and path, which
  // hold as long as the generators above stay as they are.
  it('reads back a block dropped while its checkpoint write is in flight', async () => {
    await fc.assert(engineProperty(), {
      seed: -1697142554, path: '163', endOnFailure: true, includeErrorInReport: true,
    });
  });
});
