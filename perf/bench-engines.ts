// Both engines on a fresh temporary home: open, create the per-host containers, load TSBS batches
// with a fixed number of concurrent writers (as TSBS load workers: each takes the next batch of the
// interleaved stream and waits for its acknowledgement), close and remove the home.

import { assert } from '../lib/base/assert.ts';
import { storageOptions, type StorageOptions } from '../lib/base/options.ts';
import type { RowStore } from '../lib/block/row-store.ts';
import type { ContainerHandle } from '../lib/engine/session.ts';
import { Store } from '../lib/engine/store.ts';
import type { BenchConfig } from './bench-config.ts';
import { withTempHome } from './bench-files.ts';
import {
  LevelPeer, PEER_WRITE_BUFFER_SIZE_BYTES_MAX, type LevelPeerOptions,
} from './leveldb-peer.ts';
import { tsbsContainerDefinition, type TsbsBatch, type TsbsDataset } from './tsbs.ts';

/**
 * Periodic checkpoints never come due in a run: the checkpoint workloads start theirs themselves,
 * and the recovery workload's xlog must hold every row.
 */
export const CHECKPOINT_INTERVAL_MS_OFF = 24 * 3_600_000;

/**
 * LevelDB for a large load that stays in memory until a flush or a reopen: the largest write
 * buffer it takes (3,456,000 TSBS rows fill about half of it), so no table is written while
 * loading and its log holds every row, as the store's xlog does.
 */
export const LARGE_PEER_OPTIONS: LevelPeerOptions = {
  writeBufferSizeBytes: PEER_WRITE_BUFFER_SIZE_BYTES_MAX,
};

export interface StoreUnderTest {
  store: Store;
  /** One per host, in host order. */
  handles: ContainerHandle[];
}

/** Runs body on a store with one empty container per host; closes it and removes the home after. */
export async function withStore<T>(
  dataset: TsbsDataset,
  options: Partial<StorageOptions>,
  body: (engine: StoreUnderTest) => Promise<T>,
): Promise<T> {
  return withTempHome('store', async (home) => {
    const store = await Store.open({ home, options: storageOptions(options) });
    try {
      for (const host of dataset.hosts) {
        await store.createContainer(tsbsContainerDefinition(host.containerName));
      }
      const session = store.session();
      const handles = dataset.hosts.map((host) => session.container(host.containerName));
      return await body({ store, handles });
    } finally {
      await store.close();
    }
  });
}

export async function withPeer<T>(
  dataset: TsbsDataset,
  body: (peer: LevelPeer, home: string) => Promise<T>,
  options: LevelPeerOptions = {},
): Promise<T> {
  return withTempHome('leveldb', async (home) => {
    const peer = await LevelPeer.open(home, dataset.hosts, options);
    try {
      return await body(peer, home);
    } finally {
      await peer.close();
    }
  });
}

/**
 * Collects the garbage of earlier runs before a timed one, so it is not billed to whichever run
 * happens to trigger the collection. Needs node --expose-gc (npm run bench passes it); without it,
 * runs still work, only noisier.
 */
export function settleHeap(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
}

/** Sends every batch through `put`, workerCount at a time, in stream order. */
export async function loadBatches(
  batches: readonly TsbsBatch[],
  workerCount: number,
  put: (batch: TsbsBatch) => Promise<void>,
): Promise<void> {
  assert(workerCount > 0);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await put(batches[next++]!);
  };
  await Promise.all(Array.from({ length: workerCount }, worker));
}

export async function loadStore(dataset: TsbsDataset, engine: StoreUnderTest, workerCount: number) {
  await loadBatches(dataset.batches, workerCount,
    (batch) => engine.handles[batch.hostIndex]!.multiPut(batch.rows));
}

export async function loadPeer(
  dataset: TsbsDataset, peer: LevelPeer, options: { workerCount: number; sync: boolean },
) {
  await loadBatches(dataset.batches, options.workerCount,
    (batch) => peer.putBatch(batch, { sync: options.sync }));
}

/**
 * Both engines on fresh homes, loaded with the whole dataset (untimed); body runs with both open.
 * LevelDB is compacted after the load, so it scans a settled tree whose files sit in the page
 * cache: its best case.
 */
export async function withLoadedEngines<T>(
  config: BenchConfig,
  body: (engine: StoreUnderTest, peer: LevelPeer) => Promise<T>,
): Promise<T> {
  const { dataset, ingestWorkerCount: workerCount } = config;
  return withStore(dataset, { logWriteMode: 1 }, async (engine) => {
    await loadStore(dataset, engine, workerCount);
    return withPeer(dataset, async (peer) => {
      await loadPeer(dataset, peer, { workerCount, sync: false });
      await peer.compact();
      return body(engine, peer);
    });
  });
}

/** The RowStore behind a container: the in-memory rows the columnar scan reads without copying. */
export function rowStoreOf(store: Store, containerName: string): RowStore {
  const entry = store.partitionFor(containerName).catalog.lookup(containerName);
  assert(entry !== undefined);
  return entry.rows;
}

/** Checks (untimed) that every host's container holds all its rows. */
export async function checkStoreLoaded(
  dataset: TsbsDataset,
  engine: StoreUnderTest,
): Promise<void> {
  for (let h = 0; h < dataset.hosts.length; h++) {
    assert(await engine.handles[h]!.count() === dataset.rowsByHost[h]!.length);
  }
}
