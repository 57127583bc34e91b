// One connection of the client under load: requests that time out on the connection's one timer
// do so each its own timeout after it was sent, while others on the same connection are answered;
// and large requests sent together, whose frames the socket cannot take at once, reach the node
// whole (the connection's request writer is never reused while the socket still holds a frame).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { sleepMs, startServer, storageError } from '../server/server-test-helpers.ts';
import { TcpProxy, clientFor, clientOf } from './client-test-helpers.ts';

const LOG: ContainerDefinition = {
  name: 'log', type: 'COLLECTION', columns: [{ name: 'line', type: 'STRING' }],
};
const METER: ContainerDefinition = {
  name: 'meter', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' },
    ...Array.from({ length: 10 }, (_, i) => ({ name: `v${i}`, type: 'DOUBLE' as const }))],
};
const TIMEOUT_MS = 300;
/** Timers count whole milliseconds; a request may expire within this before its deadline. */
const TIMER_SLACK_MS = 2;

describe('client connection', () => {
  it('times each request out its own timeout after it was sent, on one connection', async () => {
    const test = await startServer();
    const store = clientOf(test, { requestTimeoutMs: TIMEOUT_MS, connectionPoolSize: 1 });
    try {
      const log = await store.putContainer(LOG);
      const timedOut = (sentMs: number) => log.query('hang').fetch().then(
        () => assert.fail('a hung query was answered'),
        (error: unknown) => {
          storageError('REQUEST_TIMEOUT', new RegExp(`within ${TIMEOUT_MS} ms`))(error);
          return performance.now() - sentMs;
        });
      const firstSentMs = performance.now();
      const first = timedOut(firstSentMs);
      await sleepMs(TIMEOUT_MS / 2);
      const secondSentMs = performance.now();
      const second = timedOut(secondSentMs);
      for (let i = 0; i < 5; i++) await log.put([`answered while two wait ${i}`]);
      const [firstWaitedMs, secondWaitedMs] = await Promise.all([first, second]);
      assert.ok(firstWaitedMs >= TIMEOUT_MS - TIMER_SLACK_MS, `first waited ${firstWaitedMs} ms`);
      assert.ok(secondWaitedMs >= TIMEOUT_MS - TIMER_SLACK_MS,
        `second waited ${secondWaitedMs} ms`);
      assert.ok(secondSentMs + secondWaitedMs > firstSentMs + firstWaitedMs);
      await log.put(['still works']);
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 6);
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('delivers large requests sent at once on one connection whole', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port, { connectionPoolSize: 1 });
    try {
      const meter = await store.putContainer(METER);
      // About 900 KiB a batch, less than the writer keeps; 7 MiB in all, more than the kernel
      // buffers of a connection hold.
      const batchCount = 8;
      const rowCount = 10_000;
      const batches: Row[][] = Array.from({ length: batchCount }, (_, b) =>
        Array.from({ length: rowCount }, (_, r) => {
          const index = b * rowCount + r;
          return [index * 1000, ...Array.from({ length: 10 }, (_, v) => index + v / 10)];
        }));
      // While the proxy reads nothing, the socket takes only part of the first frame at once and
      // queues the rest: the frames it holds must not be overwritten by the next requests.
      proxy.holdRequests(true);
      const sent = Promise.all([
        ...batches.map((rows) => meter.multiPut(rows)),
        meter.put([batchCount * rowCount * 1000, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      ]);
      await sleepMs(50);
      proxy.holdRequests(false);
      await sent;
      const stored = await (await meter.query('select *').fetch()).toArray();
      assert.equal(stored.length, batchCount * rowCount + 1);
      const expected = [...batches.flat(), [batchCount * rowCount * 1000, 0, 1, 2, 3, 4, 5, 6,
        7, 8, 9]];
      stored.forEach((row, i) => assert.deepEqual(row, expected[i], `row ${i}`));
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });
});
