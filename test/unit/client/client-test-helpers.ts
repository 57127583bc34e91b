// Helpers of the client tests: a client store for a test server, and a TCP proxy between them that
// can break connections at chosen moments (all at once, or after the node has answered but before
// the answer reaches the client), so reconnection and statement-id retries can be watched, and can
// stop reading what clients send for a while, so that their sockets cannot write at once.

import { createServer, connect, type Server, type Socket } from 'node:net';
import { getStore } from '../../../lib/client/store-factory.ts';
import type { ClientStore } from '../../../lib/client/client-store.ts';
import type { StoreProperties } from '../../../lib/client/client-properties.ts';
import { CLUSTER, USERS, type TestServer } from '../server/server-test-helpers.ts';

export function clientFor(port: number, overrides: StoreProperties = {}): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${port}`, clusterName: CLUSTER, username: 'admin',
    password: USERS.admin!, applicationName: 'client-test', failoverTimeout: 5,
    ...overrides,
  });
}

export function clientOf(test: TestServer, overrides: StoreProperties = {}): ClientStore {
  return clientFor(test.port, overrides);
}

/** A TCP proxy on 127.0.0.1 to a target port. */
export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  /** While set, the node's answers are dropped and the connection is cut when one arrives. */
  cutOnNextReply = false;
  /** Bytes the node sent that were dropped. */
  droppedReplyCount = 0;
  private requestsHeld = false;

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.pipe(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    proxy = new TcpProxy(server, port);
    return proxy;
  }

  get connectionCount(): number {
    return this.pairs.size;
  }

  /**
   * Stops reading what clients send (or starts again): their bytes wait in the kernel's buffers,
   * and once those are full a client's socket queues what it writes.
   */
  holdRequests(held: boolean): void {
    this.requestsHeld = held;
    for (const [client] of this.pairs) {
      if (held) client.pause();
      else client.resume();
    }
  }

  /** Breaks every connection through the proxy. */
  cut(): void {
    for (const [client, node] of this.pairs) {
      client.destroy();
      node.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pipe(client: Socket, targetPort: number): void {
    const node = connect({ host: '127.0.0.1', port: targetPort });
    const pair: [Socket, Socket] = [client, node];
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      node.destroy();
    };
    client.on('data', (chunk) => node.write(chunk));
    if (this.requestsHeld) client.pause();
    node.on('data', (chunk) => {
      if (this.cutOnNextReply) {
        this.cutOnNextReply = false;
        this.droppedReplyCount++;
        end();
        return;
      }
      client.write(chunk);
    });
    for (const socket of pair) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}
