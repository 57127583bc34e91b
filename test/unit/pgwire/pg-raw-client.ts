// A PostgreSQL frontend written out byte by byte, for tests that need what no client library
// sends on purpose: message builders, SCRAM-SHA-256's client side, and a reader of backend
// messages that checks their framing. Also an in-process PgServer over a fake SQL backend.

import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { ScramVerifier } from '../../../lib/config/scram-verifiers.ts';
import { systemClock } from '../../../lib/io/clock.ts';
import { PgServer, type PgServerOptions } from '../../../lib/pgwire/pg-server.ts';
import type { PgSqlBackend, PgSqlResult } from '../../../lib/pgwire/pg-sql-backend.ts';
import { StorageError } from '../../../lib/base/errors.ts';

export function frame(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.byteLength + 4, 1);
  return Buffer.concat([header, body]);
}

export function cstring(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.of(0)]);
}

function int16(n: number): Buffer { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; }
function int32(n: number): Buffer { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }

export const msg = {
  startup(parameters: Record<string, string>): Buffer {
    const body = Buffer.concat([int32(196_608), ...Object.entries(parameters).flatMap(([k, v]) => [cstring(k), cstring(v)]),
      Buffer.of(0)]);
    return Buffer.concat([int32(body.byteLength + 4), body]);
  },
  sslRequest: (): Buffer => Buffer.concat([int32(8), int32(80_877_103)]),
  query: (text: string): Buffer => frame('Q', cstring(text)),
  parse: (name: string, text: string, oids: number[] = []): Buffer =>
    frame('P', Buffer.concat([cstring(name), cstring(text), int16(oids.length), ...oids.map(int32)])),
  bind: (portal: string, statement: string, values: (Buffer | null)[], resultFormats: number[] = []): Buffer =>
    frame('B', Buffer.concat([cstring(portal), cstring(statement), int16(0), int16(values.length),
      ...values.flatMap((v) => v === null ? [int32(-1)] : [int32(v.byteLength), v]),
      int16(resultFormats.length), ...resultFormats.map(int16)])),
  describe: (kind: 'S' | 'P', name: string): Buffer => frame('D', Buffer.concat([Buffer.from(kind), cstring(name)])),
  execute: (portal: string, rowCountMax: number): Buffer => frame('E', Buffer.concat([cstring(portal), int32(rowCountMax)])),
  close: (kind: 'S' | 'P', name: string): Buffer => frame('C', Buffer.concat([Buffer.from(kind), cstring(name)])),
  sync: (): Buffer => frame('S', Buffer.alloc(0)),
  flush: (): Buffer => frame('H', Buffer.alloc(0)),
  terminate: (): Buffer => frame('X', Buffer.alloc(0)),
};

export interface BackendMessage { type: string; body: Buffer }

/** Cuts backend bytes into messages; throws when the framing is wrong. `rest` is an incomplete tail. */
export function backendMessages(bytes: Buffer): { messages: BackendMessage[]; rest: Buffer } {
  const messages: BackendMessage[] = [];
  let offset = 0;
  while (offset + 5 <= bytes.byteLength) {
    const length = bytes.readInt32BE(offset + 1);
    if (length < 4) throw new Error(`backend message of length ${length}`);
    if (offset + 1 + length > bytes.byteLength) break;
    messages.push({ type: String.fromCharCode(bytes[offset]!), body: bytes.subarray(offset + 5, offset + 1 + length) });
    offset += 1 + length;
  }
  return { messages, rest: bytes.subarray(offset) };
}

/** An ErrorResponse's fields by their code letter. */
export function errorFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let offset = 0;
  while (offset < body.byteLength && body[offset] !== 0) {
    const code = String.fromCharCode(body[offset]!);
    const end = body.indexOf(0, offset + 1);
    fields[code] = body.toString('utf8', offset + 1, end);
    offset = end + 1;
  }
  return fields;
}

/** A verifier of `password` with few iterations, so that tests log in thousands of times. */
export function testVerifier(password: string, iterations = 2): ScramVerifier {
  const salt = Buffer.from('fixed salt 16 b!');
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return {
    iterations, saltBase64: salt.toString('base64'),
    storedKey: createHash('sha256').update(clientKey).digest(),
    serverKey: createHmac('sha256', salted).update('Server Key').digest(),
  };
}

/** A connected socket with its received bytes gathered; `next()` waits for the next message. */
export class RawConnection {
  private received = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;
  readonly done: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    this.done = new Promise((resolve) => socket.on('close', () => {
      this.closed = true;
      this.wake();
      resolve();
    }));
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Every byte received so far. */
  get bytes(): Buffer {
    return this.received;
  }

  /** The next backend message; undefined when the connection closed first. */
  async next(): Promise<BackendMessage | undefined> {
    for (;;) {
      const { messages } = backendMessages(this.received);
      if (messages.length > 0) {
        const first = messages[0]!;
        this.received = this.received.subarray(5 + first.body.byteLength);
        return first;
      }
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Messages up to and including one of `type` (or the close). */
  async until(type: string): Promise<BackendMessage[]> {
    const out: BackendMessage[] = [];
    for (;;) {
      const message = await this.next();
      if (message === undefined) return out;
      out.push(message);
      if (message.type === type) return out;
    }
  }

  /** Startup and SCRAM-SHA-256; resolves after the first ReadyForQuery (throws on an error). */
  async login(user: string, password: string): Promise<BackendMessage[]> {
    this.send(msg.startup({ user, database: 'public', application_name: 'raw' }));
    const sasl = await this.next();
    if (sasl?.type !== 'R' || sasl.body.readInt32BE(0) !== 10) throw new Error(`expected SASL, got ${sasl?.type}`);
    const clientNonce = randomBytes(12).toString('base64');
    const clientFirstBare = `n=${user},r=${clientNonce}`;
    const first = Buffer.from(`n,,${clientFirstBare}`);
    this.send(frame('p', Buffer.concat([cstring('SCRAM-SHA-256'), int32(first.byteLength), first])));
    const cont = await this.next();
    if (cont?.type !== 'R') throw new Error(`expected SASLContinue, got ${cont?.type}`);
    const serverFirst = cont.body.subarray(4).toString();
    const fields = Object.fromEntries(serverFirst.split(',').map((f) => [f[0], f.slice(2)]));
    const salted = pbkdf2Sync(password, Buffer.from(fields.s!, 'base64'), Number(fields.i), 32, 'sha256');
    const clientKey = createHmac('sha256', salted).update('Client Key').digest();
    const storedKey = createHash('sha256').update(clientKey).digest();
    const withoutProof = `c=biws,r=${fields.r}`;
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = createHmac('sha256', storedKey).update(authMessage).digest();
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
    this.send(frame('p', Buffer.from(`${withoutProof},p=${proof.toString('base64')}`)));
    const rest = await this.until('Z');
    const error = rest.find((m) => m.type === 'E');
    if (error !== undefined) throw Object.assign(new Error(errorFields(error.body).M), { code: errorFields(error.body).C });
    return rest;
  }

  end(): void {
    this.socket.end();
  }
}

/**
 * A fake engine: `SELECT n` gives rows 1..n of one LONG column; `BAD` a syntax error; others 1 row
 * changed. `WAIT ` before a statement holds it in the engine until the test calls one of `held`.
 */
export function fakeBackend(): PgSqlBackend & { openCount: () => number; held: Array<() => void> } {
  const open = new Set<number>();
  const held: Array<() => void> = [];
  return {
    openCount: () => open.size,
    held,
    open: (id) => { open.add(id); },
    close: (id) => { open.delete(id); },
    async execute(_id, request): Promise<PgSqlResult> {
      let sql = request.sql;
      if (sql.startsWith('WAIT ')) {
        await new Promise<void>((resolve) => held.push(resolve));
        sql = sql.slice('WAIT '.length);
      }
      const rows = /^SELECT (\d+)$/.exec(sql);
      if (rows !== null) {
        let next = 1;
        const count = Number(rows[1]);
        return { kind: 'rows', columns: [{ name: 'n', type: 'LONG' }], rows: {
          async next(max) {
            const page = [];
            while (page.length < max && next <= count) page.push([BigInt(next++)]);
            return { rows: page, done: next > count };
          },
          async close() { next = count + 1; },
        } };
      }
      if (sql.startsWith('BAD')) {
        throw new StorageError('SQL_COMPILE_SYNTAX_ERROR', 'syntax error at line 1, column 1: expected a statement, found "BAD"');
      }
      return { kind: 'update', updateCount: request.parameters.length };
    },
    async cancel() { /* the fake engine's statements end when the test releases them */ },
    containerInfo: async () => undefined,
    rowValidator: () => (row) => row,
    async putRows() {
      throw new StorageError('NOT_SUPPORTED', 'the fake engine has no containers');
    },
  };
}

export async function startTestServer(overrides: Partial<PgServerOptions> = {}):
  Promise<{ server: PgServer; port: number; backend: ReturnType<typeof fakeBackend> }> {
  const backend = fakeBackend();
  const verifier = testVerifier('pw');
  const server = new PgServer({
    host: '127.0.0.1', port: 0, backend, clock: systemClock, connectionLimit: 100,
    messageBytesMax: 64 * 1024, statementsPerQueryMax: 10, idleTimeoutMs: 60_000, statementTimeoutMs: 0,
    serverVersion: '15.0 (store test)',
    credentials: (user) => ({ verifier: user === 'admin' ? verifier : undefined, checkPassword: (p) => user === 'admin' && p === 'pw' }),
    ...overrides,
  });
  const { port } = await server.listen();
  return { server, port, backend };
}
