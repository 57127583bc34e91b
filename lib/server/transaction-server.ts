// The transaction server: the client protocol (lib/protocol/) on the transaction port. It accepts
// connections up to connectionLimit (one more is told LIMIT_EXCEEDED and closed) and runs each in a
// ServerConnection, which hands authenticated requests to the engine's RequestRunner
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
import type { RequestRunner } from './request-runner.ts';
import { ServerConnection, type ConnectionHost } from './server-connection.ts';
import {
  resolveServerOptions, type ResolvedServerOptions, type TransactionServerOptions,
} from './server-options.ts';

/** How long a refused connection has to read its error before it is cut. */
const REFUSED_LINGER_MS = 1000;

export class TransactionServer implements ConnectionHost {
  readonly options: ResolvedServerOptions;
  readonly runner: RequestRunner;
  private readonly connections = new Set<ServerConnection>();
  /** Sockets refused at the connection limit, until they have read why. */
  private readonly refused = new Set<Socket>();
  private readonly server: Server;
  private nextConnectionId = 1;
  private state: 'new' | 'listening' | 'closed' | 'failed' = 'new';

  constructor(options: TransactionServerOptions) {
    this.options = resolveServerOptions(options);
    this.runner = this.options.runner;
    this.server = createServer({ noDelay: true }, (socket) => this.accepted(socket));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  async listen(): Promise<{ host: string; port: number }> {
    assert(this.state === 'new');
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

  /** Stops listening and closes every connection (their open transactions are aborted). */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'failed') return;
    const wasListening = this.state === 'listening';
    this.state = 'closed';
    for (const connection of [...this.connections]) connection.destroy('the server closed');
    for (const socket of this.refused) socket.destroy();
    if (wasListening) {
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  connectionClosed(connection: ServerConnection): void {
    this.connections.delete(connection);
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
    const wasListening = this.state === 'listening';
    this.state = 'failed';
    for (const connection of [...this.connections]) connection.destroy(reason);
    for (const socket of this.refused) socket.destroy();
    if (wasListening) this.server.close();
  }

  private accepted(socket: Socket): void {
    if (this.state !== 'listening') {
      socket.destroy();
      return;
    }
    if (this.connections.size >= this.options.connectionLimit) {
      this.refuse(socket, new StorageError('LIMIT_EXCEEDED', `the node accepts at most ` +
        `${this.options.connectionLimit} connections (connectionLimit)`));
      return;
    }
    this.connections.add(new ServerConnection(this.nextConnectionId++, socket, this));
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
    socket.end(encodeFrame(
      { messageType: 0 as MessageType, status: FrameStatus.ERROR, requestId: REQUEST_ID_NONE },
      (writer) => errorWrite(writer, error), PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX));
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  }
}

export type { TransactionServerOptions };
