// The worker thread of the engine/thread workload: an EngineHost driven by messages. Each request
// runs as soon as it arrives (many may be in flight, as on the network thread's side) and is
// answered with its id when it completes.
//
// Started through engine-worker-boot.mjs, which gives the worker tsx's loader first.

import { parentPort } from 'node:worker_threads';
import { assert } from '../lib/base/assert.ts';
import { EngineHost } from './engine-thread-host.ts';
import type { EngineReply, EngineRequest } from './engine-thread-messages.ts';

const port = parentPort;
assert(port !== null, 'engine-worker.ts runs only as a worker thread');
const host = new EngineHost();

port.on('message', (request: EngineRequest) => {
  host.execute(request).then(
    (value) => port.postMessage(
      (value === undefined ? { id: request.id } : { id: request.id, value }) satisfies EngineReply),
    (error: unknown) => port.postMessage({
      id: request.id, error: error instanceof Error ? error.stack ?? error.message : String(error),
    } satisfies EngineReply),
  );
});
