// An engine thread: a worker_threads worker that holds a Store of its partition group
// (engine-core.ts) and is driven only by messages (engine-messages.ts). Requests run as they
// arrive, many at once, and each reply goes back with its id when it is ready. Started through
// engine-worker-boot.mjs.

import { parentPort } from 'node:worker_threads';
import { assert } from '../../base/assert.ts';
import type { SqlPeers } from '../../server/sql-peers.ts';
import { EngineCore } from './engine-core.ts';
import { errorData, type FromEngine, type ToEngine } from './engine-messages.ts';
import { errorFromData } from './worker-engine.ts';

const port = parentPort;
assert(port !== null, 'engine-worker.ts runs only as a worker thread');
const post = (message: FromEngine, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

// This engine's SQL asks the other groups through the main thread; answers come back by id.
const peerAnswers = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
let nextPeerCallId = 1;
const sqlPeers: SqlPeers = {
  call: (call) => new Promise((resolve, reject) => {
    const id = nextPeerCallId++;
    peerAnswers.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post({ kind: 'sqlPeer', id, call });
  }),
};

const core = new EngineCore({
  sqlPeers,
  checkpoint: (notice) => post({ kind: 'checkpoint', notice }),
  warning: (message) => post({ kind: 'warning', message }),
  slowQuery: (record) => post({ kind: 'slowQuery', record }),
  // Fail-stop: the error escapes every promise, so this thread dies before anything else runs in
  // it (no checkpoint of half-applied state); the main thread sees the death with this error.
  failed: (error) => process.nextTick(() => {
    throw error;
  }),
});

port.on('message', (message: ToEngine) => {
  switch (message.kind) {
    case 'request': {
      const { id } = message;
      const running = message.check === true
        ? core.check(message.connectionId, message) : core.request(message.connectionId, message);
      running.then((outcome) => {
        const bytes = outcome.bytes;
        post({ kind: 'reply', id, bytes, ...(outcome.closeReason === undefined
          ? {} : { closeReason: outcome.closeReason }) }, [bytes.buffer as ArrayBuffer]);
      }, (error: unknown) => post({ kind: 'failed', id, error: errorData(error) }));
      return;
    }
    case 'connectionOpened':
      core.connectionOpened(message.connectionId, message.setup);
      return;
    case 'connectionClosed':
      core.connectionClosed(message.connectionId);
      return;
    case 'sqlPeerAnswer': {
      const pending = peerAnswers.get(message.id);
      if (pending === undefined) return;
      peerAnswers.delete(message.id);
      if (message.error !== undefined) pending.reject(errorFromData(message.error));
      else pending.resolve(message.value);
      return;
    }
    default: {
      const { id } = message;
      core.call(message).then(
        (value) => post({ kind: 'done', id, value }),
        (error: unknown) => post({ kind: 'failed', id, error: errorData(error) }),
      );
    }
  }
});
