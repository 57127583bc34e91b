// GridDB's sessions on a node, through frames as the C client lays them out: a write of a
// session retried on another connection of the same GridStore (its LOGIN's client UUID, the
// same session and statement ids) applies once, as the client's failover retry expects; a
// transaction ends with its connection, so its CONTINUE elsewhere gets TM_SESSION_NOT_FOUND
// (110003, which the client reports as a lost transaction) and its rows are gone; a COMMIT
// retried after a broken connection is answered with its first outcome. PUT_ROW's "existed" is
// decided with the put, after it waited for another transaction's lock on the row.
// CLOSE_MULTIPLE_SESSIONS closes the sessions it names, aborting their transactions.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../server-test-helpers.ts';
import {
  CLIENT_UUID, TRANSACTION_MODE, createContainer, errorCode, frame, loginWithClientId, putRowFrame,
  type Container, startRecordedServer,
} from './griddb-raw-frames.ts';
import { RECORDED_CONNECT, griddbExchange } from './recorded-handshake.ts';

const COMMIT_TRANSACTION = 118;
const CLOSE_MULTIPLE_SESSIONS = 146;
const TM_SESSION_NOT_FOUND = 110003;

function commitFrame(container: Container, sessionId: bigint, statementId: bigint): Buffer {
  const body = Buffer.alloc(8 + 8 + 16 + 4);
  body.writeBigInt64LE(container.containerId, 0);
  body.writeBigInt64LE(sessionId, 8);
  CLIENT_UUID.copy(body, 16);
  return frame(COMMIT_TRANSACTION, container.pId, statementId, body);
}

describe('GridDB protocol: sessions and statement ids on a node', { timeout: 60_000 }, () => {
  let test: TestServer;
  const login = loginWithClientId(CLIENT_UUID);

  before(async () => {
    test = await startRecordedServer();
  });
  after(async () => test.stop());

  const create = (name: string, keyed: boolean) => createContainer(test.port, name, keyed);

  it('applies a session\'s write retried on another connection once', async () => {
    const container = await create('Retried01', false);
    const write = putRowFrame(container,
      { sessionId: 5n, statementId: 7n, mode: TRANSACTION_MODE.AUTO }, [1, 'once']);
    for (let attempt = 0; attempt < 2; attempt++) {
      const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login, write]);
      assert.equal(replies[2]?.result, 0);
    }
    assert.equal(await test.store.session().container('Retried01').count(), 1);
    // The next statement of the session is a new write.
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      putRowFrame(container, { sessionId: 5n, statementId: 8n, mode: TRANSACTION_MODE.AUTO },
        [2, 'next'])]);
    assert.equal(replies[2]?.result, 0);
    assert.equal(await test.store.session().container('Retried01').count(), 2);
  });

  it('ends a transaction with its connection: CONTINUE elsewhere is TM_SESSION_NOT_FOUND', async () => {
    const container = await create('Lost01', true);
    const first = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      putRowFrame(container, { sessionId: 9n, statementId: 1n, mode: TRANSACTION_MODE.BEGIN },
        [1, 'pending'])]);
    assert.equal(first.replies[2]?.result, 0);
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      putRowFrame(container, { sessionId: 9n, statementId: 2n, mode: TRANSACTION_MODE.CONTINUE },
        [2, 'pending']),
      commitFrame(container, 9n, 3n)]);
    assert.equal(errorCode(replies[2]!), TM_SESSION_NOT_FOUND);
    assert.equal(errorCode(replies[3]!), TM_SESSION_NOT_FOUND);
    assert.equal(await test.store.session().container('Lost01').count(), 0);
  });

  it('answers PUT_ROW\'s existed as of after its lock wait', async () => {
    const container = await create('Existed01', true);
    const holder = test.store.session().container('Existed01');
    await holder.setAutoCommit(false);
    await holder.put([1, 'held']);
    const exchange = griddbExchange(test.port, [RECORDED_CONNECT, login, putRowFrame(container,
      { sessionId: 0n, statementId: 0n, mode: TRANSACTION_MODE.AUTO }, [1, 'after'])]);
    // The put waits for the row's lock whenever it arrives before the commit; either way the
    // row exists when it is put.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.commit();
    const { replies } = await exchange;
    assert.equal(replies[2]?.result, 0);
    assert.equal(replies[2]?.payload[0], 1, 'existed');
    assert.deepEqual(await test.store.session().container('Existed01').get(1), [1, 'after']);
  });

  it('closes the sessions CLOSE_MULTIPLE_SESSIONS names, aborting their transactions', async () => {
    const container = await create('Closed01', true);
    const entries = Buffer.alloc(4 + 2 * 24);
    entries.writeInt32LE(2, 0);
    for (const [i, sessionId] of [21n, 22n].entries()) {
      entries.writeBigInt64LE(2n, 4 + i * 24);
      entries.writeBigInt64LE(container.containerId, 12 + i * 24);
      entries.writeBigInt64LE(sessionId, 20 + i * 24);
    }
    const closeBoth = frame(CLOSE_MULTIPLE_SESSIONS, container.pId, 0n,
      Buffer.concat([CLIENT_UUID, Buffer.alloc(4), entries]));
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      putRowFrame(container, { sessionId: 21n, statementId: 1n, mode: TRANSACTION_MODE.BEGIN },
        [1, 'aborted']),
      putRowFrame(container, { sessionId: 22n, statementId: 1n, mode: TRANSACTION_MODE.BEGIN },
        [2, 'aborted']),
      closeBoth,
      commitFrame(container, 21n, 2n)]);
    assert.deepEqual(replies.slice(0, 5).map((reply) => reply.result), [0, 0, 0, 0, 0]);
    assert.equal(errorCode(replies[5]!), TM_SESSION_NOT_FOUND);
    assert.equal(await test.store.session().container('Closed01').count(), 0);
  });

  it('answers a COMMIT retried on another connection with its first outcome', async () => {
    const container = await create('Committed01', true);
    const commit = commitFrame(container, 11n, 2n);
    const first = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      putRowFrame(container, { sessionId: 11n, statementId: 1n, mode: TRANSACTION_MODE.BEGIN },
        [1, 'kept']), commit]);
    assert.deepEqual(first.replies.map((reply) => reply.result), [0, 0, 0, 0]);
    const retried = await griddbExchange(test.port, [RECORDED_CONNECT, login, commit]);
    assert.equal(retried.replies[2]?.result, 0);
    assert.deepEqual(await test.store.session().container('Committed01').get(1), [1, 'kept']);
  });
});
