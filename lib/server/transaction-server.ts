// The transaction server: the client protocol (lib/protocol/) on the transaction port, and beside
// it GridDB's NoSQL protocol (griddb/), told apart by a connection's first four bytes
// (first-bytes.ts; why one port: docs/internals.md). It runs each connection of store's protocol
// in a ServerConnection, and each of GridDB's in a GriddbConnection. Connections count against two budgets: those not yet
// authenticated against the unauthenticated limits, in total and per address (one more is closed
// at once, unauthenticated-connections.ts), and authenticated ones against connectionLimit (one
// more is told LIMIT_EXCEEDED and closed, at accept when the limit is already reached, else when
// it authenticates). So a flood of idle sockets cannot keep authenticated clients out. The reply
// bytes queued for all connections are bounded together (reply-buffers.ts), and listening fixes
// malloc's mmap threshold (lib/io/malloc-tuning.ts), so that those replies, megabytes each, are
// given back to the kernel when dropped instead of leaving RSS behind. A ServerConnection
// hands authenticated requests to the engine's RequestRunner
// (request-runner.ts: the handlers, sessions and the outcomes of write statements, so a client's
// retry on a new connection is not applied twice).
//
//   const server = new TransactionServer({ engine: store, host: '127.0.0.1', port: 10001,
//     clusterName: 'myCluster', lookupPasswordDigest: (user) => users.get(user) });
//   const { port } = await server.listen();
//   ...
//   await server.close();
//
// The node passes the routing runner over its engine threads (lib/node/engine-thread/); given a
// Store, the requests run in this thread.

import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { FrameStatus, REQUEST_ID_NONE, encodeFrame } from '../protocol/frame.ts';
import type { MessageType } from '../protocol/message-types.ts';
import { errorWrite } from '../protocol/wire-error.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { fixMallocMmapThreshold } from '../io/malloc-tuning.ts';
import type { RequestRunner } from './request-runner.ts';
import { ReplyBuffers } from './reply-buffers.ts';
import { FirstBytesWait } from './first-bytes.ts';
import { inProcessSocketPair } from './in-process-socket.ts';
import { GriddbConnection, type GriddbConnectionHost } from './griddb/griddb-connection.ts';
import { ServerConnection, type ConnectionHost } from './server-connection.ts';
import { UnauthenticatedConnections } from './unauthenticated-connections.ts';
import {
  resolveServerOptions, type ResolvedServerOptions, type TransactionServerOptions,
} from './server-options.ts';

/** What the server holds for a socket: a connection of either protocol, or the wait for it. */
interface HostedConnection {
  destroy(reason: string): void;
}

/** How long a refused connection has to read its error before it is cut. */
const REFUSED_LINGER_MS = 1000;

export class TransactionServer implements ConnectionHost, GriddbConnectionHost {
  readonly options: ResolvedServerOptions;
  readonly runner: RequestRunner;
  readonly replyBuffers: ReplyBuffers;
  private readonly connections = new Set<HostedConnection>();
  /** The address each connection not yet authenticated is counted under. */
  private readonly unauthenticatedAddresses = new Map<HostedConnection, string>();
  private readonly unauthenticated: UnauthenticatedConnections;
  private authenticatedCount = 0;
  /** Sockets refused at the connection limit, until they have read why. */
  private readonly refused = new Set<Socket>();
  private readonly server: Server;
  private nextConnectionId = 1;
  private state: 'new' | 'listening' | 'closed' | 'failed' = 'new';
  /** Why malloc's mmap threshold was not fixed (no addon, not glibc); undefined when it was. */
  private mallocUntunedReason: string | undefined;

  constructor(options: TransactionServerOptions) {
    this.options = resolveServerOptions(options);
    this.runner = this.options.runner;
    this.replyBuffers = new ReplyBuffers(this.options.replyTotalLimitBytes);
    this.unauthenticated = new UnauthenticatedConnections(
      this.options.unauthenticatedConnectionLimit,
      this.options.unauthenticatedConnectionLimitPerAddress,
      (reason) => this.options.onEvent?.({ kind: 'refused', remoteAddress: '*', reason }));
    this.server = createServer({ noDelay: true }, (socket) => this.accepted(socket));
  }

  /** Open connections, authenticated or not. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** What the server holds and has refused, for tests and the node's status. */
  get stats(): {
    authenticatedCount: number; unauthenticatedCount: number; unauthenticatedRefusedCount: number;
    replyBytesQueued: number; replyBytesQueuedPeak: number; replyOverflowCloseCount: number;
  } {
    return {
      authenticatedCount: this.authenticatedCount,
      unauthenticatedCount: this.unauthenticated.count,
      unauthenticatedRefusedCount: this.unauthenticated.refusedCount,
      replyBytesQueued: this.replyBuffers.totalBytes,
      replyBytesQueuedPeak: this.replyBuffers.peakBytes,
      replyOverflowCloseCount: this.replyBuffers.overflowCloseCount,
    };
  }

  /** Why listening did not fix malloc's mmap threshold, for the node's log; undefined if it did. */
  get mallocThresholdUnsetReason(): string | undefined {
    return this.mallocUntunedReason;
  }

  async listen(): Promise<{ host: string; port: number }> {
    assert(this.state === 'new');
    this.mallocUntunedReason = fixMallocMmapThreshold();
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      throw new StorageError('IO', `cannot listen on ${this.options.host}:${this.options.port}: ` +
        `${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    this.state = 'listening';
    const address = this.server.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  /**
   * A connection from this process (in-process-socket.ts): the client end of a socket pair whose
   * server end is taken as an accepted TCP connection is, under the same limits and handshake.
   * Before listen() and after close() the connection is closed at once, as a refused one is.
   */
  connectInProcess(): Socket {
    const { client, server } = inProcessSocketPair();
    this.accepted(server);
    return client;
  }

  /** Stops listening and closes every connection (their open transactions are aborted). */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'failed') return;
    const wasListening = this.destroyAll('closed', 'the server closed');
    if (wasListening) {
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  /** Enters `state` and destroys every connection; whether the server was listening. */
  private destroyAll(state: 'closed' | 'failed', reason: string): boolean {
    const wasListening = this.state === 'listening';
    this.state = state;
    for (const connection of [...this.connections]) connection.destroy(reason);
    for (const socket of this.refused) socket.destroy();
    this.unauthenticated.close();
    return wasListening;
  }

  connectionAuthenticated(connection: HostedConnection): StorageError | undefined {
    if (this.authenticatedCount >= this.options.connectionLimit) return this.connectionLimitError();
    this.countAuthenticated(connection);
    return undefined;
  }

  connectionClosed(connection: HostedConnection): void {
    if (!this.connections.delete(connection)) return;
    const address = this.unauthenticatedAddresses.get(connection);
    if (address !== undefined) {
      this.unauthenticatedAddresses.delete(connection);
      this.unauthenticated.left(address);
    } else {
      this.authenticatedCount--;
      assert(this.authenticatedCount >= 0);
    }
  }

  private countAuthenticated(connection: HostedConnection): void {
    const address = this.unauthenticatedAddresses.get(connection);
    assert(address !== undefined);
    this.unauthenticatedAddresses.delete(connection);
    this.unauthenticated.left(address);
    this.authenticatedCount++;
  }

  private connectionLimitError(): StorageError {
    return new StorageError('LIMIT_EXCEEDED', `the node accepts at most ` +
      `${this.options.connectionLimit} connections (connectionLimit)`);
  }

  /**
   * Fail-stop: the engine failed on a bug. Every connection closes at once with no reply (what
   * was acknowledged is in the log; nothing else is claimed), the server accepts no more, and
   * onEngineFailure is told once; the owner ends the process.
   */
  engineFailed(error: unknown): void {
    if (this.state === 'failed') return;
    this.abort('the engine failed');
    this.options.onEngineFailure(error);
  }

  /** Closes every connection at once, answering nothing, and stops listening (fail-stop). */
  abort(reason: string): void {
    if (this.state === 'failed') return;
    if (this.destroyAll('failed', reason)) this.server.close();
  }

  private accepted(socket: Socket): void {
    if (this.state !== 'listening') {
      socket.destroy();
      return;
    }
    if (this.authenticatedCount >= this.options.connectionLimit) {
      this.refuse(socket, this.connectionLimitError());
      return;
    }
    const address = socket.remoteAddress ?? '?';
    const refusal = this.unauthenticated.admit(address);
    if (refusal !== undefined) {
      this.refuseAtOnce(socket, new StorageError('LIMIT_EXCEEDED', refusal));
      return;
    }
    // Until its first bytes say which protocol it speaks, the socket is held by the wait, which
    // counts as an unauthenticated connection like any other (first-bytes.ts).
    const id = this.nextConnectionId++;
    const remoteAddress = `${address}:${socket.remotePort ?? '?'}`;
    this.options.onEvent?.({ kind: 'accepted', connectionId: id, remoteAddress });
    const wait: FirstBytesWait = new FirstBytesWait(socket, this.options.handshakeTimeoutMs,
      (protocol) => {
        if (protocol === 'closed' || protocol === 'timeout') {
          this.options.onEvent?.({ kind: 'closed', connectionId: id, remoteAddress,
            reason: protocol === 'timeout'
              ? `not authenticated within ${this.options.handshakeTimeoutMs} ms`
              : 'the client closed the connection' });
          this.connectionClosed(wait);
          return;
        }
        if (this.state !== 'listening') {
          socket.destroy();
          return;
        }
        const connection = protocol === 'griddb'
          ? new GriddbConnection(id, socket, this) : new ServerConnection(id, socket, this);
        this.connections.delete(wait);
        this.unauthenticatedAddresses.delete(wait);
        this.connections.add(connection);
        this.unauthenticatedAddresses.set(connection, address);
        socket.resume();
      });
    this.connections.add(wait);
    this.unauthenticatedAddresses.set(wait, address);
  }

  /**
   * Refuses a connection over the unauthenticated limits: the error goes into the socket's send
   * buffer and the socket is closed at once, holding nothing (the refusal was counted, and is
   * reported to the event log in batches).
   */
  private refuseAtOnce(socket: Socket, error: StorageError): void {
    socket.on('error', () => undefined);
    socket.end(refusalFrame(error));
    socket.destroy();
  }

  private refuse(socket: Socket, error: StorageError): void {
    this.options.onEvent?.({
      kind: 'refused', remoteAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      reason: error.message,
    });
    socket.on('error', () => undefined);
    // Read (and drop) what the peer sends, or its close would never be noticed.
    socket.resume();
    this.refused.add(socket);
    socket.on('close', () => this.refused.delete(socket));
    socket.end(refusalFrame(error));
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  }
}

function refusalFrame(error: StorageError): Uint8Array {
  return encodeFrame(
    { messageType: 0 as MessageType, status: FrameStatus.ERROR, requestId: REQUEST_ID_NONE },
    (writer) => errorWrite(writer, error), PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX);
}

export type { TransactionServerOptions };
