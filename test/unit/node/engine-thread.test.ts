// The node's engine, in its worker thread and in the main thread: the same requests through a real
// TransactionServer and the client library give the same answers; status, partition LSNs and
// checkpoints cross the thread boundary; a malformed request closes only its connection; a store
// that cannot open fails with its StorageError and leaves no thread behind (else the test process
// would not end).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { storageOptions } from '../../../lib/base/options.ts';
import type { CheckpointNotice } from '../../../lib/node/engine-thread/engine-messages.ts';
import {
  openNodeEngine, type EngineThread, type NodeEngine,
} from '../../../lib/node/engine-thread/node-engine.ts';
import { errorFromData } from '../../../lib/node/engine-thread/worker-engine.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { passwordDigestHex } from '../../../lib/protocol/auth-proof.ts';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { TransactionServer } from '../../../lib/server/transaction-server.ts';
import { clientFor } from '../client/client-test-helpers.ts';
import { CLUSTER, RawClient, USERS } from '../server/server-test-helpers.ts';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'store-engine-thread-'));
  homes.push(home);
  return home;
}

const OPTIONS = storageOptions({
  partitionNum: 8, concurrency: 2, logWriteMode: 0, checkpointIntervalMs: 3_600_000,
});

interface Running {
  engine: NodeEngine;
  server: TransactionServer;
  port: number;
  notices: CheckpointNotice[];
  failures: unknown[];
}

async function start(thread: EngineThread, home: string): Promise<Running> {
  const notices: CheckpointNotice[] = [];
  const failures: unknown[] = [];
  const engine = await openNodeEngine(thread, {
    home, options: OPTIONS, releaseUnusedFileBlocks: false,
    messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
  }, {
    checkpoint: (notice) => notices.push(notice),
    internalError: (error) => failures.push(errorFromData(error)),
    failed: (error) => failures.push(error),
  });
  const server = new TransactionServer({
    engine: engine.runner, host: '127.0.0.1', port: 0, clusterName: CLUSTER,
    lookupPasswordDigest: (user) =>
      USERS[user] === undefined ? undefined : passwordDigestHex(USERS[user]),
  });
  const { port } = await server.listen();
  return { engine, server, port, notices, failures };
}

async function stop(running: Running): Promise<void> {
  await running.server.close();
  await running.engine.close();
}

for (const thread of ['worker', 'main'] as const) {
  describe(`the engine in the ${thread} thread`, () => {
    it('serves the client, reports status and checkpoints, and keeps rows over a restart',
      async () => {
        const home = newHome();
        const first = await start(thread, home);
        assert.equal(first.engine.thread, thread);
        assert.equal(first.engine.runner.info.partitionNum, 8);
        const client = clientFor(first.port);
        try {
          await client.putContainer({
            name: 'sensor', type: 'TIME_SERIES',
            columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }],
          });
          const container = (await client.getContainer('sensor'))!;
          await container.multiPut(Array.from({ length: 100 },
            (_, i) => [Date.UTC(2026, 0, 1, 0, 0, i), i]));
          const count = await container.query('SELECT COUNT(*)').fetch();
          assert.equal(count.aggregationValue(), 100n);
          const status = await first.engine.status();
          assert.ok(status.stats.rows.writeCount >= 100);
          assert.ok(status.sessionCount >= 1);
          assert.equal(status.periodicCheckpointEnabled, true);
          await first.engine.setPeriodicCheckpoint(false);
          assert.equal((await first.engine.status()).periodicCheckpointEnabled, false);
          const lsns = await first.engine.partitionLsns();
          assert.equal(lsns.length, 8);
          assert.ok(lsns.some((lsn) => lsn > 0));
          await first.engine.checkpoint('requested');
          assert.ok(first.notices.some((notice) => notice.kind === 'completed'));
        } finally {
          await client.close();
          await stop(first);
        }
        assert.deepEqual(first.failures, []);
        const second = await start(thread, home);
        const again = clientFor(second.port);
        try {
          assert.equal((await again.getContainerInfo('sensor'))?.rowCount, 100);
        } finally {
          await again.close();
          await stop(second);
        }
      });

    it('closes only the connection that sends a malformed request', async () => {
      const running = await start(thread, newHome());
      try {
        const bad = await RawClient.ready(running.port);
        const good = await RawClient.ready(running.port);
        bad.send(encodeFrame({
          messageType: MessageType.CONTAINER_INFO, status: FrameStatus.REQUEST, requestId: 7,
        }, (writer) => writer.u8(1), PROTOCOL_MESSAGE_BYTES_MAX));
        const answer = await bad.frame();
        assert.equal(answer.status, FrameStatus.ERROR);
        assert.equal(answer.requestId, 7);
        await bad.waitClosed();
        assert.deepEqual(await good.call(PING, {}), {});
        good.socket.destroy();
      } finally {
        await stop(running);
      }
    });

    it('fails to open a home it cannot use with its StorageError', async () => {
      const home = join(newHome(), 'not-a-directory');
      writeFileSync(home, 'a file where the home should be');
      await assert.rejects(start(thread, home), (error: unknown) => isStorageError(error));
    });
  });
}

describe('errors across the thread boundary', () => {
  it('keep a StorageError code and stack; other errors stay plain', () => {
    const storage = errorFromData({ message: 'gone', code: 'CLOSED', stack: 'StorageError: gone' });
    assert.ok(isStorageError(storage, 'CLOSED'));
    assert.equal(storage.stack, 'StorageError: gone');
    const plain = errorFromData({ message: 'bug', code: 'ENOENT' });
    assert.ok(!isStorageError(plain));
    assert.equal(plain.message, 'bug');
  });
});
