// The side of the engine/thread workload that holds the Store: it carries out the requests of
// engine-thread-messages.ts. The very same code runs in the calling thread (InThreadEngine calls
// it directly) and in a worker (engine-worker.ts calls it per message), so the two differ only in
// where the Store runs and in the messages between threads.

import { assert } from '../lib/base/assert.ts';
import { storageOptions } from '../lib/base/options.ts';
import type { ContainerHandle } from '../lib/engine/session.ts';
import { Store } from '../lib/engine/store.ts';
import { TsbsRowBytes, type EngineRequest } from './engine-thread-messages.ts';
import { tsbsContainerDefinition } from './tsbs.ts';

export class EngineHost {
  private store: Store | undefined;
  /** One per container, each on a session of its own (as separate clients would have). */
  private handles: ContainerHandle[] = [];
  private readonly rowBytes = new TsbsRowBytes();

  /** Carries out the request; a count request's answer is the value. */
  async execute(request: EngineRequest): Promise<number | undefined> {
    switch (request.kind) {
      case 'open': {
        assert(this.store === undefined);
        const store = await Store.open(
          { home: request.home, options: storageOptions(request.options) });
        this.store = store;
        for (const name of request.containerNames) {
          await store.createContainer(tsbsContainerDefinition(name));
        }
        this.handles = request.containerNames.map((name) => store.session().container(name));
        return undefined;
      }
      case 'put': {
        const handle = this.handles[request.containerIndex];
        assert(handle !== undefined);
        const rows = this.rowBytes.decode(request.bytes, request.rowCount);
        if (rows.length === 1) await handle.put(rows[0]!);
        else await handle.multiPut(rows);
        return undefined;
      }
      case 'count': {
        const handle = this.handles[request.containerIndex];
        assert(handle !== undefined);
        return handle.count();
      }
      case 'logSyncCount': {
        assert(this.store !== undefined);
        return this.store.stats().log.flushCount;
      }
      case 'close': {
        const { store } = this;
        assert(store !== undefined);
        this.store = undefined;
        this.handles = [];
        await store.close();
        return undefined;
      }
    }
  }
}
