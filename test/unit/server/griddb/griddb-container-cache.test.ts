// A GridDB connection's cache of its row statements' container look-ups
// (griddb-container-cache.ts) against a node: a statement after the first runs on the cached
// container; a container dropped and created again by another connection is never written
// through the stale entry, the statement gets what an uncached look-up answers
// (TXN_CONTAINER_NOT_FOUND), and the next statements look the container up again; a retried
// statement through the cache applies once.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../server-test-helpers.ts';
import {
  CLIENT_UUID, TRANSACTION_MODE, containerKeyTypeBody, createContainer, errorCode, frame,
  loginWithClientId, putRowFrame, type Container, startRecordedServer,
} from './griddb-raw-frames.ts';
import {
  RECORDED_CONNECT, collectGriddbReplies, griddbExchange,
  type GriddbReply,
} from './recorded-handshake.ts';

const DROP_CONTAINER = 144;
const TXN_CONTAINER_NOT_FOUND = 10016;

/** One connection on which frames are sent one at a time, each after the reply to the one before. */
async function connection(port: number):
  Promise<{ send: (frame: Buffer) => Promise<GriddbReply>; close: () => void }> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const replies: GriddbReply[] = [];
  let waiting: (() => void) | undefined;
  collectGriddbReplies(socket, replies, () => waiting?.());
  socket.once('close', () => waiting?.());
  return {
    send: async (frame) => {
      const answered = new Promise<void>((resolve) => (waiting = resolve));
      socket.write(frame);
      await answered;
      const reply = replies.shift();
      assert(reply !== undefined, 'answered before the node closed');
      return reply;
    },
    close: () => socket.destroy(),
  };
}

describe('GridDB protocol: container look-ups cached per connection', { timeout: 60_000 }, () => {
  let test: TestServer;
  const login = loginWithClientId(CLIENT_UUID);

  before(async () => {
    test = await startRecordedServer();
  });
  after(async () => test.stop());

  const create = (name: string) => createContainer(test.port, name);

  async function drop(container: Container): Promise<void> {
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      frame(DROP_CONTAINER, container.pId, 1n, containerKeyTypeBody(container.name, 0xff))]);
    assert.equal(replies[2]?.result, 0);
  }

  const put = (container: Container, statementId: bigint, row: [number, string]) =>
    putRowFrame(container, { sessionId: 5n, statementId, mode: TRANSACTION_MODE.AUTO }, row);
  const rowsOf = (name: string) => test.store.session().container(name).count();

  it('never writes a container created again through the stale entry', async () => {
    const old = await create('Cached01');
    const client = await connection(test.port);
    try {
      assert.equal((await client.send(RECORDED_CONNECT)).result, 0);
      assert.equal((await client.send(login)).result, 0);
      assert.equal((await client.send(put(old, 1n, [1, 'looked up']))).result, 0);
      assert.equal((await client.send(put(old, 2n, [2, 'cached']))).result, 0);
      assert.equal((await client.send(put(old, 2n, [2, 'cached']))).result, 0, 'retried');
      assert.equal(await rowsOf('Cached01'), 2, 'the retried statement applied once');

      // Another connection drops the container and creates it again (a new id).
      await drop(old);
      const recreated = await create('Cached01');
      assert.notEqual(recreated.containerId, old.containerId);
      const stale = await client.send(put(old, 3n, [3, 'stale']));
      assert.equal(errorCode(stale), TXN_CONTAINER_NOT_FOUND, 'as an uncached look-up answers');
      assert.equal(await rowsOf('Cached01'), 0, 'nothing written through the stale entry');
      const again = await client.send(put(old, 4n, [4, 'stale again']));
      assert.equal(errorCode(again), TXN_CONTAINER_NOT_FOUND);

      assert.equal((await client.send(put(recreated, 5n, [5, 'new']))).result, 0);
      assert.equal((await client.send(put(recreated, 6n, [6, 'new, cached']))).result, 0);
      assert.equal(await rowsOf('Cached01'), 2);
    } finally {
      client.close();
    }
  });
});
