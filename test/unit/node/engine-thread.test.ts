// The node's engine, in worker threads (one per partition group) and in the main thread: the same
// requests through a real TransactionServer and the client library give the same answers; status,
// partition LSNs and checkpoints cross the thread boundary; a malformed request closes only its
// connection; a store that cannot open fails with its StorageError and leaves no thread behind
// (else the test process would not end). With concurrency 4 there are four workers, and one
// connection uses containers of every group: multi-container puts and gets, the container list,
// transactions, queries paged by fetches, and a retried statement applied once. A worker that dies
// fails its group's requests with CLOSED, tells the node once, and a restart recovers every row it
// acknowledged.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { storageOptions, type StorageOptions } from '../../../lib/base/options.ts';
import type { CheckpointNotice } from '../../../lib/node/engine-thread/engine-messages.ts';
import {
  openNodeEngine, resolveEngineThread, type EngineThread, type NodeEngine,
} from '../../../lib/node/engine-thread/node-engine.ts';
import { errorFromData } from '../../../lib/node/engine-thread/worker-engine.ts';
import { GroupWorkersEngine } from '../../../lib/node/engine-thread/group-workers-engine.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { passwordDigestHex } from '../../../lib/protocol/auth-proof.ts';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { TransactionServer } from '../../../lib/server/transaction-server.ts';
import {
  containerPartitionId, partitionGroupOf, partitionGroupRange,
} from '../../../lib/schema/partition-hash.ts';
import { TcpProxy, clientFor } from '../client/client-test-helpers.ts';
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
const FOUR_GROUPS = { ...OPTIONS, concurrency: 4 };

interface Running {
  engine: NodeEngine;
  server: TransactionServer;
  port: number;
  notices: CheckpointNotice[];
  failures: unknown[];
  /** What the server was told of (onEngineFailure). */
  serverFailures: unknown[];
}

async function start(
  thread: EngineThread,
  home: string,
  options: StorageOptions = OPTIONS,
  settings: { faultAssertOnContainer?: string } = {},
): Promise<Running> {
  const notices: CheckpointNotice[] = [];
  const failures: unknown[] = [];
  const serverFailures: unknown[] = [];
  const engine = await openNodeEngine(thread, {
    home, options, releaseUnusedFileBlocks: false,
    messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX, ...settings,
  }, {
    checkpoint: (notice) => notices.push(notice),
    warning: () => undefined,
    failed: (error) => failures.push(error),
  });
  const server = new TransactionServer({
    engine: engine.runner, host: '127.0.0.1', port: 0, clusterName: CLUSTER,
    lookupPasswordDigest: (user) =>
      USERS[user] === undefined ? undefined : passwordDigestHex(USERS[user]),
    onEngineFailure: (error) => serverFailures.push(error),
  });
  const { port } = await server.listen();
  return { engine, server, port, notices, failures, serverFailures };
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
        assert.equal(first.engine.workerCount, thread === 'worker' ? 2 : 0);
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

    it('stops on an assertion in a request: told once, every connection closed unanswered',
      async () => {
        const home = newHome();
        const running = await start(thread, home, OPTIONS, { faultAssertOnContainer: 'doomed' });
        const client = clientFor(running.port, { failoverTimeout: 0 });
        const bystander = await RawClient.ready(running.port);
        try {
          for (const name of ['doomed', 'fine']) {
            await client.putContainer({ name, type: 'COLLECTION',
              columns: [{ name: 'line', type: 'STRING' }] });
          }
          await (await client.getContainer('fine'))!.put(['acked']);
          const doomed = (await client.getContainer('doomed'))!;
          await assert.rejects(doomed.put(['never']), (error: unknown) =>
            isStorageError(error, 'CONNECTION_FAILED') && /closed/.test((error as Error).message));
          await bystander.waitClosed();
          await assert.rejects(bystander.frame(), /closed before a frame came/);
          // The engine tells the node once, with the failed assertion (its thread died with it).
          while (running.failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
          assert.equal(running.failures.length, 1);
          assert.match((running.failures[0] as Error).message, /injected fault/);
          assert.equal(running.serverFailures.length, 1);
          assert.match((running.serverFailures[0] as Error).message, /injected fault/);
        } finally {
          bystander.close();
          await client.close();
          await stop(running);
        }
        // What was acknowledged is there after a restart.
        const again = await start(thread, home);
        const reader = clientFor(again.port);
        try {
          const rows = await (await (await reader.getContainer('fine'))!.query('SELECT *')
            .fetch()).toArray();
          assert.deepEqual(rows, [['acked']]);
        } finally {
          await reader.close();
          await stop(again);
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

describe('one engine worker per partition group (concurrency 4)', () => {
  const groupOf = (name: string) =>
    partitionGroupOf(containerPartitionId(name, FOUR_GROUPS.partitionNum), FOUR_GROUPS);
  /** A keyless log container in each group (a write applied twice would show as two rows). */
  const names: string[] = [];
  for (let i = 0; names.length < 4; i++) {
    if (groupOf(`log_${i}`) === names.length) names.push(`log_${i}`);
  }
  const LOG_COLUMNS = [{ name: 'line', type: 'STRING' }] as const;

  it('runs four workers, serves every group through one connection, and keeps it all',
    async () => {
      const home = newHome();
      const running = await start('worker', home, FOUR_GROUPS);
      assert.equal(running.engine.workerCount, 4);
      const status = await running.engine.status();
      assert.equal(new Set(status.threadIds).size, 4);
      assert.ok(status.threadIds.every((id) => id > 0), 'none is the main thread');
      const proxy = await TcpProxy.start(running.port);
      const client = clientFor(proxy.port, { connectionPoolSize: 1 });
      try {
        for (const name of names) {
          await client.putContainer({ name, type: 'COLLECTION', columns: [...LOG_COLUMNS] });
        }
        const keyed = ['k_a', 'k_b', 'k_c', 'k_d', 'k_e', 'k_f'];
        for (const name of keyed) {
          await client.putContainer({ name, type: 'COLLECTION', rowKey: true,
            columns: [{ name: 'id', type: 'STRING' }, { name: 'n', type: 'LONG' }] });
        }
        assert.ok(new Set(keyed.map(groupOf)).size > 1);
        assert.deepEqual(await client.getContainerNames(), [...names, ...keyed].sort());
        await client.multiPut(Object.fromEntries(keyed.map((name, i) =>
          [name, [['a', BigInt(i)], ['b', BigInt(10 + i)]]])));
        const got = await client.multiGet(Object.fromEntries(keyed.map((name) =>
          [name, { keys: ['b', 'zz'] }])));
        assert.deepEqual(keyed.map((name) => got.get(name)),
          keyed.map((_, i) => [['b', BigInt(10 + i)]]));

        // A retried multi-put over every group (its answer lost on the way): applied once.
        proxy.cutOnNextReply = true;
        await client.multiPut(Object.fromEntries(names.map((name) => [name, [['once']]])));
        assert.equal(proxy.droppedReplyCount, 1);
        for (const name of names) assert.equal((await client.getContainerInfo(name))?.rowCount, 1);

        // Transactions in two groups of one client: one committed, one aborted.
        const [left, right] = [keyed.find((name) => groupOf(name) === groupOf(keyed[0]!))!,
          keyed.find((name) => groupOf(name) !== groupOf(keyed[0]!))!];
        const leftContainer = (await client.getContainer(left))!;
        const rightContainer = (await client.getContainer(right))!;
        await leftContainer.setAutoCommit(false);
        await rightContainer.setAutoCommit(false);
        await leftContainer.put(['t', 1n]);
        await rightContainer.put(['t', 2n]);
        assert.equal((await running.engine.status()).openTransactionCount, 2);
        await leftContainer.commit();
        await rightContainer.abort();
        const after = await client.multiGet({ [left]: { keys: ['t'] }, [right]: { keys: ['t'] } });
        assert.deepEqual([after.get(left), after.get(right)], [[['t', 1n]], []]);

        // Queries in two groups, paged by fetches of two rows, interleaved.
        const rows = Array.from({ length: 7 }, (_, i) => [`r${i}`]);
        await client.multiPut({ [names[1]!]: rows, [names[3]!]: rows });
        const sets = await Promise.all([names[1]!, names[3]!].map(async (name) =>
          (await client.getContainer(name))!.query('SELECT *').setFetchOption('SIZE', 2)
            .fetch()));
        const counts = await Promise.all(sets.map(async (set) => (await set.toArray()).length));
        assert.deepEqual(counts, [8, 8]);
        const lsns = await running.engine.partitionLsns();
        for (const name of [...names, ...keyed]) {
          assert.ok(lsns[containerPartitionId(name, FOUR_GROUPS.partitionNum)]! > 0);
        }
        const stats = (await running.engine.status()).stats;
        assert.ok(stats.rows.writeCount >= 30);
      } finally {
        await client.close();
        await proxy.close();
        await stop(running);
      }
      assert.deepEqual(running.failures, []);
      // The same home under the main-thread engine (every group in one Store), and back.
      for (const thread of ['main', 'worker'] as const) {
        const again = await start(thread, home, FOUR_GROUPS);
        const reader = clientFor(again.port);
        try {
          assert.equal((await reader.getContainerInfo(names[3]!))?.rowCount, 8);
          assert.equal((await reader.getContainerNames()).length, 10);
        } finally {
          await reader.close();
          await stop(again);
        }
      }
    });

  it('a worker that dies fails its group\'s requests, tells the node, and loses no ack',
    async () => {
      const home = newHome();
      const running = await start('worker', home, FOUR_GROUPS);
      assert.ok(running.engine instanceof GroupWorkersEngine);
      const client = clientFor(running.port);
      const acked = new Map<string, string[]>(names.map((name) => [name, []]));
      const put = async (name: string, line: string) => {
        await (await client.getContainer(name))!.put([line]);
        acked.get(name)!.push(line);
      };
      try {
        for (const name of names) {
          await client.putContainer({ name, type: 'COLLECTION', columns: [...LOG_COLUMNS] });
        }
        await Promise.all(names.flatMap((name) =>
          Array.from({ length: 20 }, (_, i) => put(name, `before ${i}`))));
        // Four loops put into group 2 while its thread dies: each put is acknowledged or fails,
        // and every loop ends at its first failure.
        const dying = (await client.getContainer(names[2]!))!;
        let racingAcked = 0;
        const loops = Array.from({ length: 4 }, async (_, loop) => {
          for (let i = 0; ; i++) {
            const line = `racing ${loop}/${i}`;
            await dying.put([line]);
            acked.get(names[2]!)!.push(line);
            racingAcked++;
          }
        });
        while (racingAcked < 20) await new Promise((resolve) => setTimeout(resolve, 1));
        await running.engine.crashWorker(2);
        for (const settled of await Promise.allSettled(loops)) {
          assert.equal(settled.status, 'rejected');
          if (settled.status === 'rejected') assert.ok(isStorageError(settled.reason, 'CLOSED'));
        }
        assert.equal(running.failures.length, 1, 'the node is told once');
        assert.ok(isStorageError(running.failures[0], 'CLOSED'));
        assert.match((running.failures[0] as Error).message, /engine thread exited/);
        await assert.rejects(put(names[2]!, 'after'), (error: unknown) =>
          isStorageError(error, 'CLOSED'));
        await put(names[0]!, 'after'); // the other groups' threads still answer
      } finally {
        await client.close();
        await stop(running);
      }
      // Every acknowledged row is there after a restart, the dead group's too.
      const again = await start('worker', home, FOUR_GROUPS);
      const reader = clientFor(again.port);
      try {
        for (const name of names) {
          const rows = await (await (await reader.getContainer(name))!.query('SELECT *').fetch())
            .toArray();
          const lines = new Set(rows.map((row) => row[0]));
          for (const line of acked.get(name)!) assert.ok(lines.has(line), `${name}: ${line}`);
          assert.ok(!lines.has('after') || name === names[0], name);
        }
      } finally {
        await reader.close();
        await stop(again);
      }
      assert.deepEqual(again.failures, []);
    });

  it('fails to open when one group cannot, and leaves no worker behind', async () => {
    const home = newHome();
    const running = await start('worker', home, FOUR_GROUPS);
    await stop(running);
    // The data directory of a partition of group 2, a file instead.
    const groupTwoPartition = partitionGroupRange(2, FOUR_GROUPS).startPartitionId;
    const data = join(home, FOUR_GROUPS.dbPath, String(groupTwoPartition));
    rmSync(data, { recursive: true, force: true });
    writeFileSync(data, 'not a directory');
    await assert.rejects(start('worker', home, FOUR_GROUPS), (error: unknown) =>
      isStorageError(error, 'IO') && error.message.includes(data));
  });

  it('auto runs workers only with a core for each group beside the main thread', () => {
    assert.equal(resolveEngineThread('auto', { concurrency: 4, coreCount: 2 }), 'main');
    assert.equal(resolveEngineThread('auto', { concurrency: 4, coreCount: 4 }), 'main');
    assert.equal(resolveEngineThread('auto', { concurrency: 4, coreCount: 5 }), 'worker');
    assert.equal(resolveEngineThread('auto', { concurrency: 1, coreCount: 2 }), 'worker');
    assert.equal(resolveEngineThread('worker', { concurrency: 4, coreCount: 2 }), 'worker');
    assert.equal(resolveEngineThread('main', { concurrency: 1, coreCount: 64 }), 'main');
  });
});
