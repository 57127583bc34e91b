// The PostgreSQL protocol (version 3) on the node's SQL port, `/sql/servicePort` (docs/postgres.md):
// a listener of its own beside the transaction service, started and stopped by the node
// (lib/node/store-node.ts), that runs SQL through the same engine side as the transaction port's
// clients (pg-sql-backend.ts). It is a module of its own rather than a mode of the transaction
// server because nothing of the framing, authentication or sessions is shared: only the engine.
//
// Owns: the connections (at most /sql/connectionLimit, authenticated or not; one more is told
// 53300 and closed), their backend keys for CancelRequest, and the TLS context when a certificate
// is configured. Connection ids count from PG_CONNECTION_ID_BASE (the runner's id space is shared
// with the transaction server); the process id a client sees is the id's low 30 bits.

import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { assert } from '../base/assert.ts';
import type { Clock } from '../io/clock.ts';
import type { ServerEvent } from '../server/server-options.ts';
import { PgConnection, type PgConnectionHost } from './pg-connection.ts';
import { PG_CONNECTION_ID_BASE, type PgSqlBackend } from './pg-sql-backend.ts';

export interface PgServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  backend: PgSqlBackend;
  clock: Clock;
  connectionLimit: number;
  messageBytesMax: number;
  statementsPerQueryMax: number;
  idleTimeoutMs: number;
  /** 0: the SQL default. */
  statementTimeoutMs: number;
  /** PEM text of the certificate and key; absent: SSLRequest is answered 'N'. */
  tls?: { certificatePem: string; keyPem: string };
  /** `version()`'s text; its first word is server_version. */
  serverVersion: string;
  credentials: PgConnectionHost['credentials'];
  loginCheck?: PgConnectionHost['loginCheck'];
  onEvent?: (event: ServerEvent) => void;
}

export class PgServer {
  private readonly server: Server;
  private readonly connections = new Map<number, PgConnection>();
  private nextId = PG_CONNECTION_ID_BASE;
  private readonly tls: SecureContext | undefined;
  private readonly host: PgConnectionHost;

  constructor(private readonly options: PgServerOptions) {
    assert(options.connectionLimit >= 1);
    this.tls = options.tls === undefined ? undefined
      : createSecureContext({ cert: options.tls.certificatePem, key: options.tls.keyPem });
    const self = this;
    this.host = {
      backend: options.backend, clock: options.clock, messageBytesMax: options.messageBytesMax,
      statementsPerQueryMax: options.statementsPerQueryMax, idleTimeoutMs: options.idleTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs, serverVersion: options.serverVersion, tls: this.tls,
      credentials: options.credentials,
      loginCheck: options.loginCheck,
      cancel: (processId, secretKey) => {
        const target = self.connections.get(processId + PG_CONNECTION_ID_BASE);
        if (target !== undefined && target.secretKey === secretKey) target.signalCancel();
      },
      event: (event) => options.onEvent?.(event),
      closed: (connection) => self.connections.delete(connection.id),
    };
    this.server = createServer((socket) => this.accept(socket));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    if (this.connections.size >= this.options.connectionLimit) {
      const message = 'sorry, too many clients already';
      const body = Buffer.from(`SFATAL\0VFATAL\0C53300\0M${message}\0\0`);
      const frame = Buffer.alloc(5);
      frame.write('E');
      frame.writeInt32BE(body.byteLength + 4, 1);
      socket.end(Buffer.concat([frame, body]));
      this.options.onEvent?.({ kind: 'refused', remoteAddress: `${socket.remoteAddress}:${socket.remotePort}`,
        reason: `${this.options.connectionLimit} connections (/sql/connectionLimit)` });
      return;
    }
    const id = this.nextId;
    this.nextId = this.nextId >= 0x7fff_fff0 ? PG_CONNECTION_ID_BASE : this.nextId + 1;
    this.connections.set(id, new PgConnection(id, socket, this.host, id - PG_CONNECTION_ID_BASE));
  }

  listen(): Promise<{ host: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        assert(address !== null && typeof address === 'object');
        resolve({ host: this.options.host, port: address.port });
      });
    });
  }

  /** Takes no more connections and ends every one (their results are let go). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of [...this.connections.values()]) connection.end('the node is stopping');
    await closed;
  }
}

