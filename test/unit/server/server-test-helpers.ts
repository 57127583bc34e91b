// Helpers of the server and client tests: a Store in a temporary directory behind a
// TransactionServer on 127.0.0.1 (port 0), a raw protocol client that sends exactly the bytes a
// test wants, and a small query handler (SELECT * and COUNT(*) over a scan) standing in for TQL.

import assert from 'node:assert/strict';
import type { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StorageError } from '../../../lib/base/errors.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { storageOptions, type StorageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import { authProof, passwordDigestHex } from '../../../lib/protocol/auth-proof.ts';
import {
  FrameReader, FrameStatus, encodeFrame, type Frame,
} from '../../../lib/protocol/frame.ts';
import { decodeBody, type MessageCodec } from '../../../lib/protocol/message-codec.ts';
import { AUTH, HELLO, type AuthReply } from '../../../lib/protocol/messages-connection.ts';
import { CONTAINER_PUT } from '../../../lib/protocol/messages-container.ts';
import { ROW_PUT } from '../../../lib/protocol/messages-row.ts';
import { RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { containerSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { queryResultOfRows, type QueryHandler } from '../../../lib/server/query-handler.ts';
import type { ServerEvent, TransactionServerOptions } from '../../../lib/server/server-options.ts';
import { TransactionServer } from '../../../lib/server/transaction-server.ts';

export const CLUSTER = 'testCluster';
export const USERS: Readonly<Record<string, string>> = { admin: 'admin-secret', 'gs#reader': 'r' };
const DIGESTS = new Map(Object.entries(USERS).map(([user, password]) =>
  [user, passwordDigestHex(password)]));
/** How long a test waits for a frame or a close before failing. */
const WAIT_MS = 5000;

export interface TestServer {
  store: Store;
  server: TransactionServer;
  port: number;
  events: ServerEvent[];
  internalErrors: unknown[];
  stop(): Promise<void>;
}

export async function startServer(
  overrides: Partial<TransactionServerOptions> = {},
  storeOverrides: Partial<StorageOptions> = {},
): Promise<TestServer> {
  const home = mkdtempSync(join(tmpdir(), 'store-server-'));
  const store = await Store.open({ home, options: storageOptions({
    partitionNum: 8, concurrency: 2, logWriteMode: 1, transactionTimeoutLimitMs: 5_000,
    checkpointIntervalMs: 3_600_000, ...storeOverrides,
  }) });
  const events: ServerEvent[] = [];
  const internalErrors: unknown[] = [];
  const server = new TransactionServer({
    engine: store, host: '127.0.0.1', port: 0, clusterName: CLUSTER,
    lookupPasswordDigest: (user) => DIGESTS.get(user),
    queryHandler: scanQueryHandler,
    onEvent: (event) => events.push(event),
    onEngineFailure: (error) => internalErrors.push(error),
    ...overrides,
  });
  const { port } = await server.listen();
  return {
    store, server, port, events, internalErrors,
    async stop() {
      await server.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
      assert.deepEqual(internalErrors, [], 'the server hit no bug');
    },
  };
}

/**
 * A stand-in for TQL: `select *` returns every row (in pages of the handler's choosing),
 * `select count(*)` one LONG, `hang` never answers.
 */
export const scanQueryHandler: QueryHandler = async (request) => {
  const tql = request.tql.trim().toLowerCase();
  if (tql === 'hang') return new Promise(() => undefined);
  if (tql === 'select count(*)') {
    const count = await request.container.count();
    return queryResultOfRows('AGGREGATION',
      [{ name: 'COUNT(*)', type: 'LONG', array: false, notNull: true }], [[BigInt(count)]]);
  }
  if (tql !== 'select *') {
    throw new StorageError('NOT_SUPPORTED', `the test handler runs only "select *", not ${tql}`);
  }
  const rows = await request.container.scan();
  const columns = request.schema.columns.map((column) => ({ ...column }));
  return queryResultOfRows('ROWS', columns, rows);
};

/** A client that speaks frames by hand. */
export class RawClient {
  private readonly reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
  private readonly frames: Frame[] = [];
  private waiting: (() => void) | undefined;
  private nextRequestId = 1;
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.reader.push(chunk);
      for (let frame = this.reader.next(); frame !== undefined; frame = this.reader.next()) {
        this.frames.push(frame);
      }
      this.waiting?.();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.on('close', () => {
      this.isClosed = true;
      this.waiting?.();
      resolve();
    }));
  }

  static async connect(port: number): Promise<RawClient> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  /** Connects and authenticates. */
  static async ready(port: number, options: Partial<Credentials> = {}): Promise<RawClient> {
    const client = await RawClient.connect(port);
    const reply = await client.handshake(options);
    assert.ok(reply.partitionNum > 0);
    return client;
  }

  send(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Sends a request; returns its request id. */
  request<Q, P>(codec: MessageCodec<Q, P>, request: Q, requestId = this.nextRequestId++): number {
    this.send(encodeFrame({ messageType: codec.type, status: FrameStatus.REQUEST, requestId },
      (writer) => codec.writeRequest(writer, request), PROTOCOL_MESSAGE_BYTES_MAX));
    return requestId;
  }

  /** The next frame, within WAIT_MS. */
  async frame(): Promise<Frame> {
    const deadline = Date.now() + WAIT_MS;
    while (this.frames.length === 0) {
      if (this.isClosed) throw new Error('the connection closed before a frame came');
      if (Date.now() > deadline) throw new Error('no frame within the wait');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 50);
      });
    }
    return this.frames.shift()!;
  }

  /** The next frame as `codec`'s reply; an error frame is thrown as its StorageError. */
  async reply<Q, P>(codec: MessageCodec<Q, P>): Promise<P> {
    const frame = await this.frame();
    if (frame.status === FrameStatus.ERROR) throw errorDecode(frame.body);
    assert.equal(frame.status, FrameStatus.REPLY);
    assert.equal(frame.messageType, codec.type);
    return decodeBody(frame.body, codec.readReply, 'reply');
  }

  /** Sends a request and waits for its reply. */
  async call<Q, P>(codec: MessageCodec<Q, P>, request: Q): Promise<P> {
    this.request(codec, request);
    return this.reply(codec);
  }

  async handshake(options: Partial<Credentials> = {}): Promise<AuthReply> {
    const credentials: Partial<Credentials> &
      Omit<Credentials, 'clientId' | 'transactionTimeoutMs'> = {
      user: 'admin', password: USERS.admin!, clusterName: CLUSTER, database: 'public', ...options,
    };
    const hello = await this.call(HELLO, { clientVersion: 'raw' });
    const transcript = {
      nonce: hello.nonce,
      clientId: credentials.clientId ?? new Uint8Array(16).fill(this.socket.localPort! % 256),
      user: credentials.user, clusterName: credentials.clusterName,
      database: credentials.database,
    };
    return this.call(AUTH, {
      ...transcript, applicationName: 'raw-test',
      transactionTimeoutMs: credentials.transactionTimeoutMs ?? 0,
      proof: authProof(passwordDigestHex(credentials.password), transcript),
    });
  }

  /** Waits until the node closes the connection. */
  async waitClosed(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([this.closed, new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the connection stayed open')), WAIT_MS);
      })]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

export interface Credentials {
  user: string;
  password: string;
  clusterName: string;
  database: string;
  /** The client's identity for statement ids; one per connection unless given. */
  clientId: Uint8Array;
  /** The auto-commit session's transaction timeout; 0, the node's limit, unless given. */
  transactionTimeoutMs: number;
}

/** For assert.rejects: a StorageError with this code (and a message matching `message`). */
export { storageError } from '../engine/engine-test-helpers.ts';

export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How many of `refs` still reach their object after a full collection: what a structure keeps
 * alive. node --expose-gc at run time (the test runner does not pass it), then a turn of the
 * event loop first, since a WeakRef read in the current job keeps its object until the job ends.
 */
export async function aliveAfterCollection(refs: readonly WeakRef<object>[]): Promise<number> {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  return refs.filter((ref) => ref.deref() !== undefined).length;
}

/**
 * Puts, through `client`, a keyed collection `ref.name` (id INTEGER, text STRING) in partition
 * `ref.partitionId` holding `rowCount` rows whose text is `valueLength` x's: the wide rows whose
 * `select *` replies the reply-memory tests hold unread.
 */
export async function putWideCollection(client: RawClient, ref: { partitionId: number; name: string },
  rowCount: number, valueLength: number): Promise<void> {
  const info = await client.call(CONTAINER_PUT, {
    statement: { sessionId: 0, statementId: 1 }, partitionId: ref.partitionId,
    modifiable: false, definitionJson: JSON.stringify({ name: ref.name, type: 'COLLECTION',
      rowKey: true, columns: [{ name: 'id', type: 'INTEGER' }, { name: 'text', type: 'STRING' }] }),
  });
  const value = 'x'.repeat(valueLength);
  const rows: Row[] = Array.from({ length: rowCount }, (_, i) => [i, value]);
  await client.call(ROW_PUT, { statement: { sessionId: 0, statementId: 2 },
    ref: { ...ref, containerId: info.containerId, schemaVersion: 1 },
    rows: RowBatch.of(containerSchemaOf(info), rows) });
}
