// The client's connections to a node: at most connectionPoolSize, requests spread over them (a
// connection carries many requests at once), opened when needed, dropped when they break.
//
// Retry: a request whose connection broke before its answer came (ConnectionLostError) is sent
// again, the very same request, on another connection, until failoverTimeoutMs after the first
// attempt. That is safe for every request: reads change nothing, and writes carry statement ids,
// so the node answers a write it already applied with its first outcome (lib/server/
// statement-results.ts). Errors the node gave (wrong password, a lock timeout, …) and request
// timeouts are not retried.

import { randomBytes } from 'node:crypto';
import { StorageError } from '../base/errors.ts';
import { CONNECTION_REQUESTS_IN_FLIGHT_MAX } from '../base/limits.ts';
import { systemClock } from '../io/clock.ts';
import { CLIENT_ID_BYTES } from '../protocol/auth-proof.ts';
import type { MessageCodec } from '../protocol/message-codec.ts';
import type { AuthReply } from '../protocol/messages-connection.ts';
import { ClientConnection, ConnectionLostError, addressText } from './client-connection.ts';
import type { ClientOptions, NodeAddress } from './client-properties.ts';
import { providerAddresses } from './client-provider.ts';

/** Between attempts to reach a node: doubling from the first to the last. */
const RETRY_DELAY_MS_FIRST = 20;
const RETRY_DELAY_MS_LAST = 1000;
/** Requests one connection carries before the pool prefers to open another. */
const CONNECTION_SHARE_REQUEST_COUNT = 8;

export class ConnectionPool {
  private readonly connections: ClientConnection[] = [];
  private opening: Promise<ClientConnection> | undefined;
  private closed = false;
  /** The client's identity for statement ids: the same on every connection. */
  readonly clientId = new Uint8Array(randomBytes(CLIENT_ID_BYTES));
  /** What the node said at the first AUTH: partition count, block size, message limit. */
  node: AuthReply | undefined;

  constructor(private readonly options: ClientOptions) {}

  /** Sends a request, on `connection` when given and open, retrying after a broken connection. */
  async request<Request, Reply>(
    codec: MessageCodec<Request, Reply>,
    request: Request,
    connection?: ClientConnection,
  ): Promise<Reply> {
    return (await this.exchange(codec, request, connection)).reply;
  }

  /** As request(), and says which connection answered (query results live on it). */
  async exchange<Request, Reply>(
    codec: MessageCodec<Request, Reply>,
    request: Request,
    connection?: ClientConnection,
  ): Promise<{ reply: Reply; connection: ClientConnection }> {
    const deadlineMs = systemClock.monotonicMs() + this.options.failoverTimeoutMs;
    let delayMs = RETRY_DELAY_MS_FIRST;
    let chosen = connection?.isOpen === true ? connection : undefined;
    for (;;) {
      try {
        // A connection with room is taken at once; only opening one needs waiting for.
        const target = chosen ?? this.choose() ?? await this.opened();
        chosen = undefined;
        return { reply: await target.request(codec, request), connection: target };
      } catch (error) {
        if (!(error instanceof ConnectionLostError) || this.closed) throw error;
        const remainingMs = deadlineMs - systemClock.monotonicMs();
        if (remainingMs <= 0) {
          throw new StorageError('CONNECTION_FAILED', `${error.message}; no node answered ` +
            `within the failover timeout of ${this.options.failoverTimeoutMs} ms`,
          { cause: error });
        }
        await sleep(Math.min(delayMs, remainingMs));
        delayMs = Math.min(delayMs * 2, RETRY_DELAY_MS_LAST);
      }
    }
  }

  /** A connection with room: the least busy, or a new one while the pool is not full. */
  async acquire(): Promise<ClientConnection> {
    return this.choose() ?? this.opened();
  }

  /**
   * The least busy open connection, when it has room and the pool should not grow; undefined when
   * a connection is to be opened. CLOSED once the pool is closed; LIMIT_EXCEEDED when every
   * connection of a full pool carries the most requests it may.
   */
  private choose(): ClientConnection | undefined {
    if (this.closed) throw new StorageError('CLOSED', 'the store is closed');
    this.prune();
    let least: ClientConnection | undefined;
    for (const candidate of this.connections) {
      if (least === undefined || candidate.requestsInFlight < least.requestsInFlight) {
        least = candidate;
      }
    }
    const full = this.connections.length >= this.options.connectionPoolSize;
    if (least === undefined) return undefined;
    if (!full && least.requestsInFlight >= CONNECTION_SHARE_REQUEST_COUNT) return undefined;
    if (least.requestsInFlight >= CONNECTION_REQUESTS_IN_FLIGHT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `more than ` +
        `${this.options.connectionPoolSize} × ${CONNECTION_REQUESTS_IN_FLIGHT_MAX} requests ` +
        'in flight; wait for some to finish');
    }
    return least;
  }

  /** A new connection; callers asking while one is being opened share it. */
  private opened(): Promise<ClientConnection> {
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  close(): void {
    this.closed = true;
    for (const connection of this.connections) connection.close();
    this.connections.length = 0;
  }

  /** Opens a connection to the first node that answers. */
  private async open(): Promise<ClientConnection> {
    const addresses = await this.addresses();
    let lastError: unknown;
    for (const address of addresses) {
      try {
        const connection = await ClientConnection.open(address, this.options, this.clientId);
        if (this.closed) {
          connection.close();
          throw new StorageError('CLOSED', 'the store is closed');
        }
        this.node ??= connection.node;
        this.connections.push(connection);
        return connection;
      } catch (error) {
        if (!(error instanceof ConnectionLostError)) throw error;
        lastError = error;
      }
    }
    throw lastError instanceof ConnectionLostError ? lastError : new ConnectionLostError(
      `no node to connect to (${addresses.map(addressText).join(', ') || 'none listed'})`);
  }

  private async addresses(): Promise<NodeAddress[]> {
    const { locator } = this.options;
    if (locator.kind === 'members') return locator.members;
    return providerAddresses(locator.url, this.options);
  }

  private prune(): void {
    for (let i = this.connections.length - 1; i >= 0; i--) {
      if (!this.connections[i]!.isOpen) this.connections.splice(i, 1);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
