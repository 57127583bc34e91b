// The soak's hostile client (issue 12, point 7): a raw socket to the node's transaction port that
// does a real handshake (HELLO, AUTH with the admin's proof, as lib/client/client-connection.ts
// does), then pipelines `SELECT *` queries over a container whose every answer is a multi-MB
// reply, and never reads another byte. What the node does with the replies it cannot send is the
// point: buffer them all (before the fix) or stop reading and close the connection (after).
//
// One connection at a time. Each one sends HOSTILE_QUERIES_PER_CONNECTION queries at once, then a
// PING every HOSTILE_PING_INTERVAL_MS (also unread): with reads paused, a write is the only way
// to learn that the node has closed the connection (it fails with EPIPE or ECONNRESET). The
// hostile closes a connection itself after holdMs, so a node that never closes it still gets a
// fresh burst every holdMs; a connection the node closed is counted, and the next one opened as
// soon as HOSTILE_CONNECTION_INTERVAL_MS_MIN has passed since the last one opened (a burst a
// second at most). Every loop ends at the run's deadline and after HOSTILE_CONNECTION_COUNT_MAX
// connections.
//
// The container's rows are sized so that one SELECT * reply holds them all (under the node's
// FETCH_REPLY_BYTES_TARGET): each result closes at once on the node, and the connection's limit of
// open results never turns a query into a small error reply. hostileReplyProbe checks that once.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { assert } from '../lib/base/assert.ts';
import { FETCH_ROW_COUNT_MAX, PROTOCOL_MESSAGE_BYTES_MAX } from '../lib/base/limits.ts';
import { CLIENT_VERSION } from '../lib/client/client-connection.ts';
import { authProof, CLIENT_ID_BYTES, passwordDigestHex } from '../lib/protocol/auth-proof.ts';
import {
  FrameReader, FrameStatus, encodeFrame, type Frame,
} from '../lib/protocol/frame.ts';
import { decodeReply, type MessageCodec } from '../lib/protocol/message-codec.ts';
import { AUTH, HELLO, PING } from '../lib/protocol/messages-connection.ts';
import { QUERY, RESULT_SET_ID_NONE } from '../lib/protocol/messages-query.ts';
import { AUTO_COMMIT_SESSION_ID } from '../lib/protocol/wire-refs.ts';
import { errorDecode } from '../lib/protocol/wire-error.ts';
import { containerPartitionId } from '../lib/schema/partition-hash.ts';
import type { NodeEndpoint } from './node-process.ts';

/** The attack: 150 pipelined SELECT * of about 4 MB each. */
export const HOSTILE_QUERIES_PER_CONNECTION = 150;
const HOSTILE_PING_INTERVAL_MS = 1000;
/** A handshake slower than this counts as refused (the issue saw new handshakes time out). */
const HOSTILE_HANDSHAKE_MS_MAX = 20_000;
/** After a refused handshake, before the next try. */
const HOSTILE_RETRY_DELAY_MS = 1000;
/** A new connection (and its burst) no sooner than this after the previous one opened. */
const HOSTILE_CONNECTION_INTERVAL_MS_MIN = 1000;
/** Connections of one run at most: a run of an hour at one a second. */
const HOSTILE_CONNECTION_COUNT_MAX = 3600;

/** HELLO is request 1 and AUTH request 2. */
const FIRST_REQUEST_ID = 3;

const ADMIN = { user: 'admin', password: 'admin', clusterName: 'myCluster', database: 'public' };

export interface HostileSettings {
  endpoint: NodeEndpoint;
  containerName: string;
  /** The hostile closes a connection the node has not closed after this. */
  holdMs: number;
  /** performance.now() at which the run ends. */
  untilMs: number;
}

export interface HostileCounts {
  connections: number;
  /** Connections the node closed (or reset) while the hostile held them. */
  closedByNode: number;
  /** Connections the hostile closed itself after holdMs (or at the end of the run). */
  closedByHostile: number;
  handshakeFailures: number;
  queriesSent: number;
}

interface Handshaken {
  socket: Socket;
  partitionNum: number;
  messageBytesMax: number;
}

/**
 * Runs the hostile client until settings.untilMs or stop(); resolves with its counts once its
 * last connection is closed.
 */
export class HostileClient {
  readonly counts: HostileCounts = {
    connections: 0, closedByNode: 0, closedByHostile: 0, handshakeFailures: 0, queriesSent: 0,
  };
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly done: Promise<void>;

  constructor(private readonly settings: HostileSettings) {
    assert(settings.holdMs > 0);
    this.done = this.run();
  }

  /** Ends the run early (or at its deadline) and waits for the last connection to close. */
  async stop(): Promise<HostileCounts> {
    this.stopped = true;
    this.wake?.();
    await this.done;
    return this.counts;
  }

  private get running(): boolean {
    return !this.stopped && performance.now() < this.settings.untilMs;
  }

  private async run(): Promise<void> {
    while (this.running && this.counts.connections < HOSTILE_CONNECTION_COUNT_MAX) {
      const openedMs = performance.now();
      let handshaken: Handshaken;
      try {
        handshaken = await handshake(this.settings.endpoint, HOSTILE_HANDSHAKE_MS_MAX);
      } catch {
        this.counts.handshakeFailures++;
        await this.sleep(HOSTILE_RETRY_DELAY_MS);
        continue;
      }
      this.counts.connections++;
      await this.attack(handshaken);
      const waitMs = Math.min(openedMs + HOSTILE_CONNECTION_INTERVAL_MS_MIN,
        this.settings.untilMs) - performance.now();
      if (waitMs > 0 && this.running) await this.sleep(waitMs);
    }
  }

  /** One connection: the burst of queries, then pings until the node or the hold closes it. */
  private async attack({ socket, partitionNum, messageBytesMax }: Handshaken): Promise<void> {
    let selfClosed = false;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {}); // EPIPE / ECONNRESET: the 'close' that follows counts it
    // Request ids from FIRST_REQUEST_ID on, as a client numbers them after HELLO and AUTH.
    socket.write(Buffer.concat(Array.from({ length: HOSTILE_QUERIES_PER_CONNECTION }, (_, q) =>
      queryFrame(this.settings.containerName, { partitionNum, messageBytesMax },
        FIRST_REQUEST_ID + q))));
    this.counts.queriesSent += HOSTILE_QUERIES_PER_CONNECTION;
    let nextRequestId = FIRST_REQUEST_ID + HOSTILE_QUERIES_PER_CONNECTION;
    const holdUntilMs = Math.min(performance.now() + this.settings.holdMs, this.settings.untilMs);
    const pinger = setInterval(() => {
      if (!socket.destroyed) socket.write(pingFrame(messageBytesMax, nextRequestId++));
    }, HOSTILE_PING_INTERVAL_MS);
    const held = new Promise<void>((resolve) => {
      // stop() may have come during the handshake, when there was nothing to wake.
      const holdMs = this.stopped ? 0 : Math.max(0, holdUntilMs - performance.now());
      const timer = setTimeout(resolve, holdMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    try {
      await Promise.race([closed, held]);
    } finally {
      clearInterval(pinger);
      this.wake = undefined;
    }
    if (!socket.destroyed) {
      selfClosed = true;
      socket.destroy();
    }
    await closed;
    if (selfClosed) this.counts.closedByHostile++;
    else this.counts.closedByNode++;
  }

  private async sleep(delayMs: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }
}

/**
 * Sends one SELECT * over `containerName` and reads its reply: the reply's size in bytes (the
 * frame, header included) and whether the result stayed open on the node (it must not: see the
 * top of this file).
 */
export async function hostileReplyProbe(
  endpoint: NodeEndpoint,
  containerName: string,
): Promise<{ replyBytes: number; resultSetOpen: boolean }> {
  const { socket, partitionNum, messageBytesMax } =
    await handshake(endpoint, HOSTILE_HANDSHAKE_MS_MAX);
  try {
    const reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
    let receivedBytes = 0;
    const frame = nextFrame(socket, reader, HOSTILE_HANDSHAKE_MS_MAX, (sizeBytes) => {
      receivedBytes += sizeBytes;
    });
    socket.write(queryFrame(containerName, { partitionNum, messageBytesMax }, FIRST_REQUEST_ID));
    const reply = replyOf(QUERY, await frame);
    return { replyBytes: receivedBytes, resultSetOpen: reply.resultSetId !== RESULT_SET_ID_NONE };
  } finally {
    socket.destroy();
  }
}

/** Connects and logs in as the admin; the socket is returned paused, with no listener on it. */
async function handshake(endpoint: NodeEndpoint, timeoutMs: number): Promise<Handshaken> {
  const socket = connect({ host: endpoint.host, port: endpoint.port });
  socket.on('error', () => {}); // a failure shows as the close nextFrame reports
  try {
    await withTimeout(once(socket, 'connect'), timeoutMs, 'connect');
    const reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
    const helloFrame = nextFrame(socket, reader, timeoutMs);
    socket.write(encodeFrame({ messageType: HELLO.type, status: FrameStatus.REQUEST, requestId: 1 },
      (writer) => HELLO.writeRequest(writer, { clientVersion: CLIENT_VERSION }),
      PROTOCOL_MESSAGE_BYTES_MAX));
    const hello = replyOf(HELLO, await helloFrame);
    const clientId = new Uint8Array(randomBytes(CLIENT_ID_BYTES));
    const transcript = { nonce: hello.nonce, clientId, user: ADMIN.user,
      clusterName: ADMIN.clusterName, database: ADMIN.database };
    const authFrame = nextFrame(socket, reader, timeoutMs);
    socket.write(encodeFrame({ messageType: AUTH.type, status: FrameStatus.REQUEST, requestId: 2 },
      (writer) => AUTH.writeRequest(writer, {
        ...transcript, applicationName: 'soak-hostile', transactionTimeoutMs: 0,
        proof: authProof(passwordDigestHex(ADMIN.password), transcript),
      }), PROTOCOL_MESSAGE_BYTES_MAX));
    const auth = replyOf(AUTH, await authFrame);
    socket.pause();
    return {
      socket, partitionNum: auth.partitionNum,
      messageBytesMax: Math.min(auth.messageBytesMax, PROTOCOL_MESSAGE_BYTES_MAX),
    };
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** The next whole frame the socket brings; the data listener is removed once it is there. */
function nextFrame(
  socket: Socket,
  reader: FrameReader,
  timeoutMs: number,
  onBytes: (sizeBytes: number) => void = () => {},
): Promise<Frame> {
  return withTimeout(new Promise<Frame>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      onBytes(chunk.byteLength);
      reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      const frame = reader.next();
      if (frame === undefined) return;
      finish();
      resolve(frame);
    };
    const onClose = () => {
      finish();
      reject(new Error('the node closed the connection'));
    };
    const finish = () => {
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
    };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.resume();
  }), timeoutMs, 'reply');
}

function replyOf<Reply>(codec: MessageCodec<unknown, Reply>, frame: Frame): Reply {
  if (frame.status === FrameStatus.ERROR) throw errorDecode(frame.body);
  return decodeReply(codec, frame.body, frame.messageType);
}

function queryFrame(
  containerName: string,
  node: { partitionNum: number; messageBytesMax: number },
  requestId: number,
): Buffer {
  const { partitionNum, messageBytesMax } = node;
  const request = {
    sessionId: AUTO_COMMIT_SESSION_ID,
    ref: { partitionId: containerPartitionId(containerName, partitionNum), name: containerName },
    tql: 'SELECT *', fetchSize: FETCH_ROW_COUNT_MAX, partialExecution: false, forUpdate: false,
  };
  return Buffer.from(encodeFrame({ messageType: QUERY.type, status: FrameStatus.REQUEST,
    requestId }, (writer) => QUERY.writeRequest(writer, request), messageBytesMax));
}

function pingFrame(messageBytesMax: number, requestId: number): Buffer {
  return Buffer.from(encodeFrame({ messageType: PING.type, status: FrameStatus.REQUEST,
    requestId }, (writer) => PING.writeRequest(writer, {}), messageBytesMax));
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hostile client: no ${what} within ${timeoutMs} ms`)),
      timeoutMs);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
