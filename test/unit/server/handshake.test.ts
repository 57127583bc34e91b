// Opening a connection: HELLO and AUTH, and every way to be refused. A refusal is a clear error and
// a closed connection; a wrong user and a wrong password are told apart by nothing.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import { HELLO, PING } from '../../../lib/protocol/messages-connection.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import {
  CLUSTER, RawClient, startServer, storageError, type TestServer,
} from './server-test-helpers.ts';

describe('transaction server: handshake', () => {
  let test: TestServer;
  before(async () => {
    test = await startServer();
  });
  after(async () => {
    await test.stop();
  });

  it('authenticates and tells the client what it needs to route and encode', async () => {
    const client = await RawClient.connect(test.port);
    const reply = await client.handshake();
    assert.deepEqual(reply, {
      partitionNum: 8, storeBlockSizeBytes: 64 * 1024, messageBytesMax: 65 * 1024 * 1024,
      transactionTimeoutMs: 5000,
    });
    assert.deepEqual(await client.call(PING, {}), {});
    const connected = test.events.find((event) => event.kind === 'connected');
    assert.ok(connected?.kind === 'connected' && connected.applicationName === 'raw-test' &&
      connected.user === 'admin');
    client.close();
  });

  it('gives a fresh nonce to every connection', async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const client = await RawClient.connect(test.port);
      const { nonce } = await client.call(HELLO, { clientVersion: 't' });
      nonces.push(Buffer.from(nonce).toString('hex'));
      client.close();
    }
    assert.notEqual(nonces[0], nonces[1]);
  });

  it('refuses a wrong password and a wrong user with the same error, and closes', async () => {
    const messages: string[] = [];
    for (const credentials of [{ password: 'wrong' }, { user: 'nobody' }, { user: 'gs#reader' }]) {
      const client = await RawClient.connect(test.port);
      await assert.rejects(client.handshake(credentials), (error: unknown) => {
        storageError('AUTHENTICATION_FAILED')(error);
        messages.push((error as Error).message);
        return true;
      });
      await client.waitClosed();
    }
    assert.equal(new Set(messages).size, 1, 'one message, whatever was wrong');
    assert.doesNotMatch(messages[0]!, /nobody|user .* does not exist/);
  });

  it('refuses a wrong cluster name and a wrong database, and closes', async () => {
    const wrongCluster = await RawClient.connect(test.port);
    await assert.rejects(wrongCluster.handshake({ clusterName: 'otherCluster' }),
      storageError('CLUSTER_NAME_INVALID', /"otherCluster"/));
    await wrongCluster.waitClosed();
    const wrongDatabase = await RawClient.connect(test.port);
    await assert.rejects(wrongDatabase.handshake({ database: 'sales' }),
      storageError('DATABASE_NOT_FOUND', /"sales".*public/));
    await wrongDatabase.waitClosed();
    const upperCase = await RawClient.connect(test.port);
    await upperCase.handshake({ database: 'PUBLIC' });
    upperCase.close();
    assert.notEqual(CLUSTER, 'otherCluster');
  });

  it('refuses any request before authentication, and a second HELLO', async () => {
    const early = await RawClient.connect(test.port);
    early.request(PING, {});
    await assert.rejects(early.reply(PING), storageError('PROTOCOL_ERROR', /expected HELLO/));
    await early.waitClosed();
    const twice = await RawClient.connect(test.port);
    await twice.call(HELLO, { clientVersion: 't' });
    twice.request(HELLO, { clientVersion: 't' });
    await assert.rejects(twice.reply(HELLO), storageError('PROTOCOL_ERROR', /expected AUTH/));
    await twice.waitClosed();
  });

  it('refuses a large frame before authentication', async () => {
    const client = await RawClient.connect(test.port);
    client.send(encodeFrame({ messageType: MessageType.HELLO, status: FrameStatus.REQUEST,
      requestId: 1 }, (writer) => writer.string('x'.repeat(100_000)), 1024 * 1024));
    const frame = await client.frame();
    assert.equal(frame.status, FrameStatus.ERROR);
    assert.equal(errorDecode(frame.body).code, 'LIMIT_EXCEEDED');
    await client.waitClosed();
  });
});

describe('transaction server: handshake timeout', () => {
  it('closes a connection that does not authenticate in time', async () => {
    const test = await startServer({ handshakeTimeoutMs: 100 });
    try {
      const client = await RawClient.connect(test.port);
      await client.call(HELLO, { clientVersion: 't' });
      const frame = await client.frame();
      assert.match(errorDecode(frame.body).message, /not authenticated within 100 ms/);
      await client.waitClosed();
    } finally {
      await test.stop();
    }
  });
});
