// The PostgreSQL listener in this process over a fake SQL backend (pg-raw-client.ts), spoken to
// byte by byte: the extended protocol's order of replies and PortalSuspended, errors skipping to
// Sync, the limits (statements per Query, message size, connections, idle time), SCRAM's 28P01,
// and a fuzz run of random, truncated, mis-sized and out-of-order messages after which the
// server still serves, holds no connection and no more memory than before.

import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { PgServer } from '../../../lib/pgwire/pg-server.ts';
import {
  backendMessages, errorFields, frame, msg, RawConnection, startTestServer, type fakeBackend,
} from './pg-raw-client.ts';

const types = (messages: { type: string }[]): string => messages.map((m) => m.type).join('');

describe('PgServer', { timeout: 300_000 }, () => {
  let server: PgServer;
  let port: number;
  let backend: ReturnType<typeof fakeBackend>;

  before(async () => {
    ({ server, port, backend } = await startTestServer());
  });

  after(async () => {
    await server?.close();
  });

  async function session(): Promise<RawConnection> {
    const connection = await RawConnection.open(port);
    const startup = await connection.login('admin', 'pw');
    assert.ok(startup.some((m) => m.type === 'K'), 'BackendKeyData');
    return connection;
  }

  it('answers the extended protocol in order and suspends a portal at its row limit', async () => {
    const c = await session();
    c.send(Buffer.concat([msg.parse('s1', 'SELECT 5'), msg.bind('p1', 's1', []), msg.describe('P', 'p1'),
      msg.execute('p1', 2), msg.execute('p1', 2), msg.execute('p1', 0), msg.sync()]));
    const replies = await c.until('Z');
    assert.equal(types(replies), '12TDDsDDsDCZ');
    assert.equal(replies.at(-2)!.body.toString('utf8', 0, 8), 'SELECT 5');
    c.end();
    await c.done;
  });

  it('skips to Sync after an error, then serves; a simple Query runs statements until one fails', async () => {
    const c = await session();
    c.send(Buffer.concat([msg.bind('', 'nope', []), msg.execute('', 0), msg.parse('', 'SELECT 1'), msg.sync(),
      msg.query('SELECT 1; BAD; SELECT 2')]));
    const first = await c.until('Z');
    assert.equal(types(first), 'EZ');
    assert.equal(errorFields(first[0]!.body).C, '26000');
    const second = await c.until('Z');
    assert.equal(types(second), 'TDCEZ');
    assert.equal(errorFields(second[3]!.body).C, '42601');
    assert.equal(errorFields(second[3]!.body).P, '1');
    c.end();
  });

  it('answers a FunctionCall as PostgreSQL does for an unknown function (42883), then ReadyForQuery', async () => {
    const c = await session();
    const call = (body: Buffer) => frame('F', body);
    const oid = Buffer.alloc(4);
    oid.writeInt32BE(954);
    // oid 954 (lo_open's), one text format, two arguments (4 bytes, NULL), text result.
    c.send(call(Buffer.concat([oid, Buffer.from([0, 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff, 0, 0])])));
    const unknown = await c.until('Z');
    assert.equal(types(unknown), 'EZ');
    assert.equal(errorFields(unknown[0]!.body).C, '42883');
    assert.equal(errorFields(unknown[0]!.body).M, 'function with OID 954 does not exist');
    c.send(call(oid));
    const truncated = await c.until('Z');
    assert.equal(types(truncated), 'EZ');
    assert.equal(errorFields(truncated[0]!.body).C, '08P01');
    c.send(msg.query('SELECT 1'));
    assert.equal(types(await c.until('Z')), 'TDCZ');
    c.end();
  });

  it('a CancelRequest that arrives while the engine computes the first page ends the statement with 57014', async () => {
    const c = await RawConnection.open(port);
    const key = (await c.login('admin', 'pw')).find((m) => m.type === 'K')!.body;
    c.send(msg.query('WAIT SELECT 3000'));
    while (backend.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const cancel = await RawConnection.open(port);
    cancel.send(Buffer.concat([Buffer.from([0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e]), key]));
    await cancel.done;
    backend.held.shift()!();
    const replies = await c.until('Z');
    assert.equal(types(replies), 'TEZ');
    assert.equal(errorFields(replies[1]!.body).C, '57014');
    c.send(msg.query('SELECT 2'));
    assert.equal(types(await c.until('Z')), 'TDDCZ');
    c.end();
  });

  it('bounds the statements of one Query and the size of one message', async () => {
    const c = await session();
    c.send(msg.query(Array.from({ length: 11 }, () => 'SELECT 1').join(';')));
    const replies = await c.until('Z');
    assert.equal(errorFields(replies[0]!.body).C, '54000');
    c.send(msg.query('x'.repeat(70 * 1024)));
    const fatal = await c.until('Z');
    assert.equal(errorFields(fatal[0]!.body).C, '54000');
    assert.equal(errorFields(fatal[0]!.body).S, 'FATAL');
    await c.done;
  });

  it('refuses a wrong password with 28P01 and an unknown user the same way', async () => {
    for (const user of ['admin', 'nobody']) {
      const c = await RawConnection.open(port);
      await assert.rejects(c.login(user, 'wrong'), { code: '28P01' });
      await c.done;
    }
  });

  it('refuses a connection over the limit with 53300 and closes an idle one', async () => {
    const small = await startTestServer({ connectionLimit: 1, idleTimeoutMs: 50 });
    try {
      const first = await RawConnection.open(small.port);
      await first.login('admin', 'pw');
      const second = await RawConnection.open(small.port);
      const refused = await second.until('E');
      assert.equal(errorFields(refused[0]!.body).C, '53300');
      const idle = await first.until('E');
      assert.equal(errorFields(idle.at(-1)!.body).C, '57P05');
      await first.done;
    } finally {
      await small.server.close();
    }
  });

  it('answers SSLRequest with N when no certificate is configured', async () => {
    const c = await RawConnection.open(port);
    c.send(msg.sslRequest());
    await new Promise<void>((resolve) => c.socket.once('data', () => resolve()));
    assert.equal(c.bytes.toString('latin1'), 'N');
    c.end();
  });

  it('survives random, truncated, mis-sized and out-of-order messages (fuzz)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const validMessage = fc.oneof(
      fc.constantFrom(msg.query('SELECT 3'), msg.query('BAD'), msg.query(''), msg.sync(), msg.flush(),
        msg.parse('', 'SELECT 2'), msg.parse('a', 'SELECT $1'), msg.bind('', '', []), msg.bind('p', 'a', [Buffer.from('7')]),
        msg.describe('S', 'a'), msg.describe('P', 'p'), msg.execute('', 1), msg.execute('p', 0),
        msg.close('S', 'a'), msg.close('P', 'p'), msg.query('BEGIN'), msg.query('COMMIT'), msg.query('SHOW x')),
      // Bodies of plausible pieces (names, counts, lengths, bytes), so that reading goes deep.
      fc.tuple(fc.constantFrom(...'PBDECSHQdcfFXpz?'), fc.array(fc.oneof(
        fc.constantFrom(Buffer.of(0), Buffer.from('SP'), Buffer.from('a\0'), Buffer.from('SELECT 4\0')),
        fc.integer({ min: -2, max: 3 }).map((n) => Buffer.of(n >> 8 & 0xff, n & 0xff)),
        fc.integer({ min: -2, max: 70_000 }).map((n) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }),
        fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
      ), { maxLength: 10 })).map(([type, parts]) => frame(type, Buffer.concat(parts))),
    );
    const damage = fc.oneof(
      fc.constant((b: Buffer) => b),
      fc.nat().map((n) => (b: Buffer) => b.subarray(0, n % (b.byteLength + 1))),
      fc.integer().map((length) => (b: Buffer) => {
        const copy = Buffer.from(b);
        if (copy.byteLength >= 5) copy.writeInt32BE(length, 1);
        return copy;
      }),
      fc.uint8Array({ minLength: 1, maxLength: 32 }).map((noise) => (b: Buffer) => Buffer.concat([b, Buffer.from(noise)])),
    );
    const scenario = fc.record({
      login: fc.boolean(),
      startupNoise: fc.uint8Array({ maxLength: 40 }),
      messages: fc.array(fc.tuple(validMessage, damage), { minLength: 1, maxLength: 12 }),
    }, { noNullPrototype: true });
    let heapBeforeBytes = 0;
    let runCount = 0;
    await fc.assert(fc.asyncProperty(scenario, async ({ login, startupNoise, messages }) => {
      runCount++;
      if (runCount === 50) {
        gc();
        heapBeforeBytes = process.memoryUsage().heapUsed;
      }
      const c = await RawConnection.open(port);
      if (login) await c.login('admin', 'pw');
      else c.send(Buffer.from(startupNoise));
      for (const [message, hurt] of messages) c.send(hurt(message));
      c.end();
      await c.done;
      // Whatever came back is whole, well-framed backend messages.
      const { messages: replies, rest } = backendMessages(c.bytes);
      if (login || rest.byteLength !== 1) assert.equal(rest.byteLength, 0);
      for (const reply of replies) {
        assert.ok('RSKZTDCEINnst123vG'.includes(reply.type), `reply type ${reply.type}`);
        if (reply.type !== 'E') continue;
        // A SQLSTATE, and never XX000: bad input is the client's error, not an internal one.
        assert.match(errorFields(reply.body).C ?? '', /^[0-9A-Z]{5}$/);
        assert.notEqual(errorFields(reply.body).C, 'XX000', errorFields(reply.body).M ?? '');
      }
    }), { numRuns: 2000, seed: 18 });
    // Every connection is gone, engine side included, and the server still serves.
    for (let i = 0; i < 100 && (server.connectionCount > 0 || backend.openCount() > 0); i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(server.connectionCount, 0);
    assert.equal(backend.openCount(), 0);
    const c = await session();
    c.send(msg.query('SELECT 2'));
    assert.equal(types(await c.until('Z')), 'TDDCZ');
    c.end();
    gc();
    const grownBytes = process.memoryUsage().heapUsed - heapBeforeBytes;
    assert.ok(grownBytes < 8 * 1024 * 1024, `heap grew by ${grownBytes} bytes over the fuzz run`);
  });
});
