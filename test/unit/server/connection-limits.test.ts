// What the node does to protect itself, one connection at a time: a malformed frame or body, or an
// oversized message, closes that connection only (the others keep working); connections beyond
// connectionLimit are refused; a connection at its requests-in-flight cap is not read; an idle one
// is closed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import {
  FRAME_MAGIC, FrameStatus, PROTOCOL_VERSION, encodeFrame,
} from '../../../lib/protocol/frame.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { CONTAINER_LIST, CONTAINER_PUT } from '../../../lib/protocol/messages-container.ts';
import { QUERY } from '../../../lib/protocol/messages-query.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { RawClient, sleepMs, startServer, storageError } from './server-test-helpers.ts';

function rawHeader(lengthBytes: number, requestId: number): Uint8Array {
  const bytes = new Uint8Array(13);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, lengthBytes, true);
  view.setUint16(4, FRAME_MAGIC, true);
  bytes[6] = PROTOCOL_VERSION;
  bytes[7] = MessageType.PING;
  bytes[8] = FrameStatus.REQUEST;
  view.setUint32(9, requestId, true);
  return bytes;
}

describe('transaction server: bad frames close one connection', () => {
  it('closes a connection that sends a malformed frame; the others keep working', async () => {
    const test = await startServer();
    try {
      const good = await RawClient.ready(test.port);
      const bad = await RawClient.ready(test.port);
      bad.send(new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n'));
      const frame = await bad.frame();
      assert.equal(frame.status, FrameStatus.ERROR);
      assert.equal(errorDecode(frame.body).code, 'PROTOCOL_ERROR');
      await bad.waitClosed();
      assert.deepEqual(await good.call(PING, {}), {});
      good.close();
    } finally {
      await test.stop();
    }
  });

  it('answers a malformed body with PROTOCOL_ERROR for that request, then closes', async () => {
    const test = await startServer();
    try {
      const good = await RawClient.ready(test.port);
      const bad = await RawClient.ready(test.port);
      bad.send(encodeFrame({ messageType: MessageType.CONTAINER_PUT, status: FrameStatus.REQUEST,
        requestId: 41 }, (writer) => writer.u8(0x80), 1024));
      const frame = await bad.frame();
      assert.equal(frame.requestId, 41);
      assert.match(errorDecode(frame.body).message, /malformed CONTAINER_PUT request/);
      await bad.waitClosed();
      const unknownType = await RawClient.ready(test.port);
      unknownType.send(encodeFrame({ messageType: 99 as MessageType, status: FrameStatus.REQUEST,
        requestId: 5 }, () => undefined, 1024));
      assert.match(errorDecode((await unknownType.frame()).body).message, /message type 99/);
      await unknownType.waitClosed();
      const reply = await RawClient.ready(test.port);
      reply.send(encodeFrame({ messageType: MessageType.PING, status: FrameStatus.REPLY,
        requestId: 5 }, () => undefined, 1024));
      await reply.waitClosed();
      assert.deepEqual(await good.call(PING, {}), {});
      good.close();
    } finally {
      await test.stop();
    }
  });

  it('refuses an oversized message from its header and closes; others keep working', async () => {
    const test = await startServer({ messageBytesMax: PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX });
    try {
      const good = await RawClient.ready(test.port);
      const bad = await RawClient.ready(test.port);
      bad.send(rawHeader(10 * 1024 * 1024, 3));
      const frame = await bad.frame();
      assert.equal(frame.status, FrameStatus.ERROR);
      const error = errorDecode(frame.body);
      assert.equal(error.code, 'LIMIT_EXCEEDED');
      assert.match(error.message, /10485764 bytes is larger than the limit of 65536/);
      await bad.waitClosed();
      assert.deepEqual(await good.call(PING, {}), {});
      // A reply that would be larger than the limit is an error for its request only.
      for (let i = 0; i < 5; i++) {
        const name = `c${i}${'x'.repeat(15_000)}`;
        await good.call(CONTAINER_PUT, { statement: { sessionId: 0, statementId: i + 1 },
          partitionId: containerPartitionId(name, 8), modifiable: false,
          definitionJson: JSON.stringify({ name, type: 'COLLECTION',
            columns: [{ name: 'x', type: 'LONG' }] }) });
      }
      await assert.rejects(good.call(CONTAINER_LIST, { offset: 0, limit: 0 }),
        storageError('LIMIT_EXCEEDED', /CONTAINER_LIST message/));
      assert.equal((await good.call(CONTAINER_LIST, { offset: 0, limit: 2 })).names.length, 2);
      assert.deepEqual(await good.call(PING, {}), {});
      good.close();
    } finally {
      await test.stop();
    }
  });
});

describe('transaction server: limits', () => {
  it('refuses connections beyond connectionLimit with LIMIT_EXCEEDED', async () => {
    const test = await startServer({ connectionLimit: 3 });
    try {
      const clients = [];
      for (let i = 0; i < 3; i++) clients.push(await RawClient.ready(test.port));
      const refused = await RawClient.connect(test.port);
      const frame = await refused.frame();
      assert.equal(frame.requestId, 0);
      const error = errorDecode(frame.body);
      assert.equal(error.code, 'LIMIT_EXCEEDED');
      assert.match(error.message, /at most 3 connections/);
      await refused.waitClosed();
      assert.equal(test.server.connectionCount, 3);
      clients.pop()!.close();
      while (test.server.connectionCount >= 3) await sleepMs(10);
      clients.push(await RawClient.ready(test.port));
      for (const client of clients) assert.deepEqual(await client.call(PING, {}), {});
      for (const client of clients) client.close();
    } finally {
      await test.stop();
    }
  });

  it('stops reading a connection at its requests-in-flight cap', async () => {
    const test = await startServer({ requestsInFlightMax: 2 });
    try {
      const client = await RawClient.ready(test.port);
      await client.call(CONTAINER_PUT, { statement: { sessionId: 0, statementId: 1 },
        partitionId: containerPartitionId('c', 8), modifiable: false,
        definitionJson: JSON.stringify({ name: 'c', type: 'COLLECTION',
          columns: [{ name: 'x', type: 'LONG' }] }) });
      const hang = { sessionId: 0, ref: { partitionId: containerPartitionId('c', 8), name: 'c' },
        tql: 'hang', fetchSize: 10, partialExecution: false, forUpdate: false };
      client.request(QUERY, hang);
      client.request(QUERY, hang);
      const pingId = client.request(PING, {});
      const answered = await Promise.race([client.frame().then(() => true), sleepMs(300)]);
      assert.ok(!answered, 'the PING behind two hanging requests was not read');
      client.close();
      const other = await RawClient.ready(test.port);
      const pings = Array.from({ length: 50 }, () => other.request(PING, {}));
      const seen = [];
      for (let i = 0; i < pings.length; i++) seen.push((await other.frame()).requestId);
      assert.deepEqual(seen.sort((a, b) => a - b), pings);
      assert.ok(pingId > 0);
      other.close();
    } finally {
      await test.stop();
    }
  });

  it('closes an authenticated connection after idleTimeoutMs without traffic', async () => {
    const test = await startServer({ idleTimeoutMs: 300 });
    try {
      const client = await RawClient.ready(test.port);
      for (let i = 0; i < 4; i++) {
        await sleepMs(100);
        assert.deepEqual(await client.call(PING, {}), {}, 'traffic keeps it open');
      }
      await client.waitClosed();
      while (!test.events.some((event) => event.kind === 'closed')) await sleepMs(10);
      const closed = test.events.find((event) => event.kind === 'closed');
      assert.ok(closed?.kind === 'closed' && /idle for 300 ms/.test(closed.reason));
    } finally {
      await test.stop();
    }
  });
});
