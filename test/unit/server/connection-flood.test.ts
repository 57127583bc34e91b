// A flood of idle connections that never authenticate cannot keep authenticated clients out: they
// count against unauthenticatedConnectionLimit (and its per-address share), not connectionLimit;
// beyond those limits a connection is closed at once and counted; the admitted ones are closed at
// the handshake timeout. Real sockets on 127.0.0.1; the flood comes from 127.0.0.2 and 127.0.0.3
// (every 127/8 address is the loopback interface), the real client from 127.0.0.1.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { RawClient, sleepMs, startServer, type TestServer } from './server-test-helpers.ts';

/** Sockets of the flood: well under `ulimit -n` (20,000 here) with both ends in this process. */
const FLOOD_COUNT = 2000;
const CONNECT_BATCH = 200;
const PER_ADDRESS_LIMIT = 150;
const HANDSHAKE_TIMEOUT_MS = 1000;

interface Flood {
  sockets: Socket[];
  closedCount(): number;
}

/** Opens `count` idle sockets from `localAddress`, a batch at a time, each once connected. */
async function flood(port: number, localAddress: string, count: number): Promise<Flood> {
  const sockets: Socket[] = [];
  let closed = 0;
  for (let first = 0; first < count; first += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, count - first) }, () => {
      const socket = connect({ host: '127.0.0.1', port, localAddress });
      socket.on('error', () => undefined);
      socket.on('data', () => undefined);
      socket.on('close', () => closed++);
      sockets.push(socket);
      return new Promise<void>((resolve) => {
        socket.once('connect', resolve);
        socket.once('close', resolve);
      });
    });
    await Promise.all(batch);
  }
  return { sockets, closedCount: () => closed };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let waitedMs = 0; !check(); waitedMs += 20) {
    if (waitedMs > 20_000) throw new Error(`timed out waiting until ${what}`);
    await sleepMs(20);
  }
}

/** Connections closed at the handshake timeout so far. */
function timedOutCount(test: TestServer): number {
  return test.events.filter((event) => event.kind === 'closed' &&
    /not authenticated within/.test(event.reason)).length;
}

/** Whether the server has seen `count` connections: admitted (open or timed out) or refused. */
function settled(test: TestServer, count: number): boolean {
  const { unauthenticatedCount, unauthenticatedRefusedCount } = test.server.stats;
  return unauthenticatedCount + unauthenticatedRefusedCount + timedOutCount(test) >= count;
}

describe('transaction server: a flood of unauthenticated connections', { timeout: 120_000 }, () => {
  it('keeps authenticated clients getting in, refuses beyond the per-address limit, and times the flood out', async () => {
    const test = await startServer({
      connectionLimit: 10, unauthenticatedConnectionLimit: 1000,
      unauthenticatedConnectionLimitPerAddress: PER_ADDRESS_LIMIT,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
    });
    let attack: Flood | undefined;
    try {
      attack = await flood(test.port, '127.0.0.2', FLOOD_COUNT);
      await until('every flood socket is admitted or refused', () => settled(test, FLOOD_COUNT));
      // Some admitted ones may have timed out while the flood connected, making room for more.
      const stats = test.server.stats;
      const admittedCount = stats.unauthenticatedCount + timedOutCount(test);
      assert.ok(stats.unauthenticatedCount <= PER_ADDRESS_LIMIT);
      assert.equal(stats.unauthenticatedRefusedCount, FLOOD_COUNT - admittedCount);
      assert.ok(stats.unauthenticatedRefusedCount >= FLOOD_COUNT / 2, 'most were refused');
      assert.ok(test.events.some((event) => event.kind === 'refused' &&
        /unauthenticatedConnectionLimitPerAddress/.test(event.reason)), 'the refusal is logged');
      // The refused ones were closed at once: only the admitted ones are still open.
      await until('the refused sockets are closed',
        () => attack!.closedCount() >= stats.unauthenticatedRefusedCount);

      // connectionLimit (10) counts authenticated connections: all of them still get in.
      const clients: RawClient[] = [];
      for (let i = 0; i < 10; i++) clients.push(await RawClient.ready(test.port));
      for (const client of clients) assert.deepEqual(await client.call(PING, {}), {});
      assert.equal(test.server.stats.authenticatedCount, 10);

      // The admitted idle ones are closed at the handshake timeout; the clients stay.
      await until('the idle flood is closed', () => attack!.closedCount() === FLOOD_COUNT &&
        test.server.stats.unauthenticatedCount === 0);
      assert.equal(test.server.connectionCount, 10);
      for (const client of clients) assert.deepEqual(await client.call(PING, {}), {});
      for (const client of clients) client.close();
    } finally {
      for (const socket of attack?.sockets ?? []) socket.destroy();
      await test.stop();
    }
  });

  it('refuses beyond the total unauthenticated limit; connected clients carry on', async () => {
    const test = await startServer({
      unauthenticatedConnectionLimit: 100, unauthenticatedConnectionLimitPerAddress: 80,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
    });
    const floods: Flood[] = [];
    try {
      const client = await RawClient.ready(test.port);
      floods.push(await flood(test.port, '127.0.0.2', 80));
      floods.push(await flood(test.port, '127.0.0.3', 80));
      await until('every flood socket is admitted or refused', () => settled(test, 160));
      assert.equal(test.server.stats.unauthenticatedCount, 100);
      assert.equal(test.server.stats.unauthenticatedRefusedCount, 60);
      assert.ok(test.events.some((event) => event.kind === 'refused' &&
        /at most 100 connections that have not authenticated/.test(event.reason)));
      assert.deepEqual(await client.call(PING, {}), {});
      await until('the idle flood is closed',
        () => floods.every((one) => one.closedCount() === 80));
      // With room again, a new client gets in.
      const next = await RawClient.ready(test.port);
      assert.deepEqual(await next.call(PING, {}), {});
      next.close();
      client.close();
    } finally {
      for (const socket of floods.flatMap((one) => one.sockets)) socket.destroy();
      await test.stop();
    }
  });
});
