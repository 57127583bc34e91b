// One connection of the client to a node: connect, HELLO, AUTH, then requests multiplexed by
// request id, each with its own timeout. A request too large for the node is refused here
// (LIMIT_EXCEEDED) and never sent.
//
// When the connection breaks, every request still waiting fails with ConnectionLostError, which
// the pool (client-pool.ts) may retry on another connection. When the node said why it closed the
// connection (an error frame with request id 0: a protocol error, the connection limit, a
// handshake too slow), waiting requests fail with that error instead, and are not retried. An idle
// connection the node closed without a word is simply lost: a request on it is retried.
//
// Per request the connection allocates little: requests are encoded into one writer it keeps
// (lent to the socket, and replaced only when the socket could not take a frame at once), one
// timer serves every request's timeout (request-timer.ts), and the socket reads into one buffer
// that every connection shares (net's onread, in place of a new Buffer and a 'data' event per
// read), where each reply is decoded in place.

import { connect, type Socket } from 'node:net';
import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import {
  PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX, PROTOCOL_MESSAGE_BYTES_MAX,
} from '../base/limits.ts';
import { authProof, passwordDigestHex } from '../protocol/auth-proof.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import {
  FrameReader, FrameStatus, REQUEST_ID_MAX, REQUEST_ID_NONE, encodeFrameInto, frameWriter,
  type Frame,
} from '../protocol/frame.ts';
import { decodeReply, messageName, type MessageCodec } from '../protocol/message-codec.ts';
import { AUTH, HELLO, type AuthReply } from '../protocol/messages-connection.ts';
import { errorDecode } from '../protocol/wire-error.ts';
import type { ClientOptions, NodeAddress } from './client-properties.ts';
import { RequestTimer } from './request-timer.ts';

export const CLIENT_VERSION = 'store-client 0.1.0';
/** A node that does not accept the connection within this is taken as unreachable. */
const CONNECT_TIMEOUT_MS_MAX = 10_000;
/**
 * The request writer keeps its memory between requests up to this size (a batch of 5000
 * time-series rows takes about 450 KiB); after a larger frame it is let go, so that one large
 * multiPut does not leave every connection holding megabytes.
 */
const REQUEST_WRITER_BYTES_RETAINED_MAX = 1024 * 1024;
/**
 * What one read of a socket takes at most (libuv's own read size). Every connection reads into the
 * same buffer: reads run one at a time on this thread, and a read's frames are decoded, and the
 * start of a frame not yet whole copied out (FrameReader.keepBuffered), before the next one.
 */
const RECEIVE_BUFFER_BYTES = 64 * 1024;
let receiveBuffer: Uint8Array | undefined;

/** The connection broke before the answer came: the request may or may not have been applied. */
export class ConnectionLostError extends StorageError {
  constructor(message: string, options?: ErrorOptions) {
    super('CONNECTION_FAILED', message, options);
  }
}

interface PendingRequest {
  codec: MessageCodec<unknown, unknown>;
  resolve: (reply: unknown) => void;
  reject: (error: StorageError) => void;
  deadlineMs: number;
}

export class ClientConnection {
  /** Requests waiting for their answer, in the order they were sent (RequestTimer needs it). */
  private readonly pending = new Map<number, PendingRequest>();
  private readonly timer: RequestTimer<PendingRequest>;
  private readonly reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
  private nextRequestId = REQUEST_ID_NONE + 1;
  private closedBy: StorageError | undefined;
  private messageBytesMax = PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX;
  /** Encodes requests; undefined while the socket holds its memory (or before the first). */
  private writer: ByteWriter | undefined;
  /** What the node said at AUTH; set once open() returns. */
  node: AuthReply | undefined;

  private constructor(
    readonly address: NodeAddress,
    private readonly socket: Socket,
    requestTimeoutMs: number,
  ) {
    this.timer = new RequestTimer(this.pending, requestTimeoutMs, (_, pending) => {
      pending.reject(new StorageError('REQUEST_TIMEOUT', `no answer to ` +
        `${messageName(pending.codec.type)} from ${addressText(address)} within ` +
        `${requestTimeoutMs} ms`));
    });
    socket.setNoDelay(true);
    socket.on('error', (error) => this.broken(new ConnectionLostError(
      `connection to ${addressText(address)} failed: ${error.message}`, { cause: error })));
    socket.on('close', () => this.broken(new ConnectionLostError(
      `connection to ${addressText(address)} closed`)));
  }

  /** Connects and authenticates; the node's refusal is its StorageError (not retried). */
  static async open(
    address: NodeAddress,
    options: ClientOptions,
    clientId: Uint8Array,
  ): Promise<ClientConnection> {
    receiveBuffer ??= new Uint8Array(RECEIVE_BUFFER_BYTES);
    const buffer = receiveBuffer;
    const socket = options.transport !== undefined
      ? options.transport.connect(address, (bytes) => connection.received(bytes))
      : connect({
        host: address.host, port: address.port,
        onread: {
          buffer,
          callback: (sizeBytes) => {
            connection.received(new Uint8Array(buffer.buffer, buffer.byteOffset, sizeBytes));
            return true;
          },
        },
      });
    const connection = new ClientConnection(address, socket, options.requestTimeoutMs);
    try {
      await connection.connected(Math.min(options.requestTimeoutMs, CONNECT_TIMEOUT_MS_MAX));
      const hello = await connection.request(HELLO, { clientVersion: CLIENT_VERSION });
      const transcript = {
        nonce: hello.nonce, clientId, user: options.user, clusterName: options.clusterName,
        database: options.database,
      };
      connection.node = await connection.request(AUTH, {
        ...transcript,
        applicationName: options.applicationName,
        transactionTimeoutMs: options.transactionTimeoutMs,
        proof: authProof(passwordDigestHex(options.password), transcript),
      });
      connection.messageBytesMax = Math.min(connection.node.messageBytesMax,
        PROTOCOL_MESSAGE_BYTES_MAX);
      connection.writer = undefined; // made again for the new limit
      return connection;
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  get isOpen(): boolean {
    return this.closedBy === undefined;
  }

  get requestsInFlight(): number {
    return this.pending.size;
  }

  request<Request, Reply>(codec: MessageCodec<Request, Reply>, request: Request): Promise<Reply> {
    if (this.closedBy !== undefined) return Promise.reject(this.closedBy);
    const requestId = this.requestIdTake();
    let bytes: Uint8Array;
    try {
      this.writer ??= frameWriter(this.messageBytesMax);
      bytes = encodeFrameInto(this.writer,
        { messageType: codec.type, status: FrameStatus.REQUEST, requestId },
        (writer) => codec.writeRequest(writer, request));
    } catch (error) {
      this.writer = undefined; // with whatever memory it grew to for a request too large
      return Promise.reject(error);
    }
    return new Promise<Reply>((resolve, reject) => {
      const pending: PendingRequest = {
        codec: codec as MessageCodec<unknown, unknown>,
        resolve: resolve as (reply: unknown) => void, reject, deadlineMs: this.timer.deadlineMs(),
      };
      this.pending.set(requestId, pending);
      this.timer.started(pending);
      this.send(bytes);
    });
  }

  close(): void {
    this.broken(new ConnectionLostError(`connection to ${addressText(this.address)} closed`));
    this.socket.destroy();
  }

  /**
   * Writes a frame encoded in this.writer. A socket that writes it all at once (the common case:
   * nothing queued) keeps no reference to it, and the writer's memory serves the next request;
   * otherwise the socket queues that very memory, so the writer lets go of it.
   */
  private send(bytes: Uint8Array): void {
    this.socket.write(bytes);
    if (this.socket.writableLength > 0 ||
      this.writer!.capacityBytes > REQUEST_WRITER_BYTES_RETAINED_MAX) {
      this.writer = undefined;
    }
  }

  private connected(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new ConnectionLostError(`cannot connect to ${addressText(this.address)} within ` +
          `${timeoutMs} ms`));
        this.socket.destroy();
      }, timeoutMs);
      this.socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.once('close', () => {
        clearTimeout(timer);
        reject(this.closedBy ?? new ConnectionLostError(
          `cannot connect to ${addressText(this.address)}`));
      });
    });
  }

  /** Answers what `bytes` completes; they are the shared receive buffer's: nothing keeps them. */
  private received(bytes: Uint8Array): void {
    if (this.closedBy !== undefined) return;
    this.reader.push(bytes);
    for (;;) {
      let frame: Frame | undefined;
      try {
        frame = this.reader.next();
      } catch (error) {
        this.broken(isStorageError(error)
          ? error : new StorageError('PROTOCOL_ERROR', String(error)));
        this.socket.destroy();
        return;
      }
      if (frame === undefined) break;
      this.answer(frame);
    }
    this.reader.keepBuffered();
  }

  private answer(frame: Frame): void {
    if (frame.status === FrameStatus.ERROR && frame.requestId === REQUEST_ID_NONE) {
      // The node tells why it is about to close this connection.
      this.closedBy ??= errorOf(frame.body);
      return;
    }
    const pending = this.pending.get(frame.requestId);
    if (pending === undefined) return; // it timed out; its late answer goes nowhere
    this.pending.delete(frame.requestId);
    if (frame.status === FrameStatus.ERROR) {
      pending.reject(errorOf(frame.body));
      return;
    }
    try {
      pending.resolve(decodeReply(pending.codec, frame.body, frame.messageType));
    } catch (error) {
      assert(isStorageError(error));
      pending.reject(error);
    }
  }

  /** Fails every waiting request: with what the node said, else as a lost connection. */
  private broken(error: StorageError): void {
    this.closedBy ??= error;
    this.timer.stop();
    for (const [requestId, pending] of this.pending) {
      this.pending.delete(requestId);
      pending.reject(this.closedBy);
    }
  }

  private requestIdTake(): number {
    // Ids wrap; one still waiting (a request waits at most its timeout) is skipped.
    for (;;) {
      const requestId = this.nextRequestId;
      this.nextRequestId = requestId === REQUEST_ID_MAX ? REQUEST_ID_NONE + 1 : requestId + 1;
      if (!this.pending.has(requestId)) return requestId;
    }
  }
}

/** The error an error reply carries; a malformed one is a PROTOCOL_ERROR, never a throw. */
function errorOf(body: Uint8Array): StorageError {
  try {
    return errorDecode(body);
  } catch (error) {
    assert(isStorageError(error));
    return error;
  }
}

export function addressText(address: NodeAddress): string {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}
