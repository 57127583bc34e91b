// The in-process socket pair (lib/server/in-process-socket.ts): what one end writes the other
// reads, as a copy (the writer may reuse its memory at once); a reader that stops reading holds
// the writer back (writableLength grows, write() says wait, 'drain' follows the reader); an end
// or a destroy on either side closes both. The transaction server's use of it is tested through
// the node's web API (test/unit/node/node-webapi.test.ts).

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { inProcessSocketPair } from '../../../lib/server/in-process-socket.ts';

/** Lets the ticks of a write, a read and a close run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('in-process socket pair', { timeout: 60_000 }, () => {
  it('delivers every write in order, as a copy the writer may overwrite', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 20 }),
      async (chunks) => {
        const { client, server } = inProcessSocketPair();
        const received: Buffer[] = [];
        server.on('data', (chunk: Buffer) => received.push(chunk));
        const reused = new Uint8Array(300);
        for (const chunk of chunks) {
          reused.set(chunk);
          client.write(reused.subarray(0, chunk.length));
          reused.fill(0xee); // what a reused request writer does next
        }
        await settled();
        assert.deepEqual(new Uint8Array(Buffer.concat(received)),
          new Uint8Array(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)))));
        client.destroy();
      }), { numRuns: 50 });
  });

  it('holds the writer back while the reader does not read, and drains when it does',
    async () => {
      const { client, server } = inProcessSocketPair();
      server.pause();
      const chunk = new Uint8Array(16 * 1024);
      let accepted = true;
      let writes = 0;
      while (accepted && writes < 100) {
        accepted = client.write(chunk);
        writes++;
      }
      assert.equal(accepted, false, 'a reader that never reads never made the writer wait');
      await settled();
      assert.ok(client.writableLength > 0);
      let receivedBytes = 0;
      server.on('data', (data: Buffer) => (receivedBytes += data.length));
      const drained = once(client, 'drain');
      server.resume();
      await drained;
      await settled();
      assert.equal(client.writableLength, 0);
      assert.equal(receivedBytes, writes * chunk.length);
      client.destroy();
    });

  it('closes both ends when either ends or is destroyed', async () => {
    for (const how of ['client end', 'server end', 'client destroy', 'server destroy']) {
      const { client, server } = inProcessSocketPair();
      client.resume();
      server.resume();
      const closed = Promise.all([once(client, 'close'), once(server, 'close')]);
      const [side, verb] = how.split(' ');
      const socket = side === 'client' ? client : server;
      if (verb === 'end') socket.end();
      else socket.destroy();
      await closed;
      assert.ok(client.destroyed && server.destroyed, how);
    }
  });

  it('says connect to the client end once, on the next tick', async () => {
    const { client } = inProcessSocketPair();
    let connects = 0;
    client.on('connect', () => connects++);
    assert.equal(connects, 0);
    await settled();
    assert.equal(connects, 1);
    client.destroy();
  });
});
