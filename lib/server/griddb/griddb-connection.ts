// One connection speaking GridDB's NoSQL protocol (v15) on the transaction port: frames in
// (griddb-frame.ts), one statement at a time (a GridDB client has one request outstanding per
// connection), replies out. The transaction server hands a socket here when its first four bytes
// are GridDB's check code (transaction-server.ts).
//
// Life: CONNECT → LOGIN → ready (→ LOGOUT → LOGIN again) → closing. Until LOGIN succeeds the
// connection counts against the unauthenticated limits, its frames may be at most
// PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX, and it must log in within handshakeTimeoutMs; after, it
// counts against connectionLimit and is closed when idle for idleTimeoutMs.
//
// Statements so far: CONNECT, LOGIN, LOGOUT, DISCONNECT (no reply; the node closes),
// GET_PARTITION_ADDRESS, answered as a one-node cluster: this node is the master and owns every
// partition, under the address the client reached it at; and the container statements
// GET_CONTAINER_PROPERTIES, GET_CONTAINER (griddb-container-get.ts), PUT_CONTAINER and
// DROP_CONTAINER, the row statements
// (griddb-row-statements.ts) and the session statements CREATE_SESSION, CLOSE_SESSION,
// COMMIT_TRANSACTION, ABORT_TRANSACTION and CLOSE_MULTIPLE_SESSIONS (griddb-sessions.ts), the
// query statements QUERY_TQL, FETCH_ROW_SET, CLOSE_ROW_SET, UPDATE_ROW_BY_ID and DELETE_ROW_BY_ID
// (griddb-query.ts, with this connection's row sets: griddb-row-sets.ts), EXECUTE_MULTIPLE_QUERIES
// and CREATE_MULTIPLE_SESSIONS (griddb-multi-query.ts), PUT_MULTIPLE_CONTAINER_ROWS
// (griddb-multi-put.ts), GET_MULTIPLE_CONTAINER_ROWS (griddb-multi-get.ts), the time-series
// statements (griddb-time-series.ts; the range and sampling queries in griddb-query.ts) and
// CREATE/DROP_INDEX_DETAIL (griddb-index.ts) and GET_PARTITION_CONTAINER_NAMES
// (griddb-partition-names.ts), which run in the engine as store's own requests (griddb-engine.ts),
// and DROP_USER, PUT/DROP_DATABASE and PUT/DROP_PRIVILEGE, which run as store's SQL access
// statements (griddb-access-statements.ts), and GET_USERS and GET_DATABASES, answered from the
// access catalog (griddb-access-lists.ts). Any other statement is answered with GridDB's
// STATEMENT_ERROR, naming the call that sent it (griddb-statements-refused.ts), and the
// connection carries on.
//
// Errors: a frame whose head or body cannot be read (griddb-frame.ts) closes this connection at
// once, unanswered (its statement id may be unknown); a refused CONNECT or LOGIN is answered with
// GridDB's error and closes; nothing a peer sends reaches the engine or another connection.

import type { Socket } from 'node:net';
import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.ts';
import { isStorageError } from '../../base/errors.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../../base/limits.ts';
import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import type { StorageError } from '../../base/errors.ts';
import type { ResolvedServerOptions } from '../server-options.ts';
import type { RequestRunner } from '../request-runner.ts';
import type { Principal } from '../../access/access-catalog.ts';
import { CONTAINER_DROP, CONTAINER_INFO, CONTAINER_PUT } from '../../protocol/messages-container.ts';
import { containerPartitionId } from '../../schema/partition-hash.ts';
import {
  containerPropertiesDecode, containerPropertiesReplyWrite,
} from './griddb-container-properties.ts';
import {
  containerGetDecode, containerGetReplyWrite, containerGetTypeCheck,
} from './griddb-container-get.ts';
import {
  containerDropDecode, containerPutDecode, containerPutReplyWrite,
} from './griddb-container-put.ts';
import { GriddbEngine, GriddbEngineFailure, griddbErrorOf } from './griddb-engine.ts';
import {
  GriddbContainerNames, containerOf, rowStatementRun, type RowStatementContext,
} from './griddb-row-statements.ts';
import {
  GriddbSessions, GriddbStatementIds, closeMultipleSessionsDecode, griddbUuidHex,
  sessionStatementDecode,
} from './griddb-sessions.ts';

/** What one transaction server's GridDB connections share. */
interface HostShared {
  names: GriddbContainerNames;
  statementIds: GriddbStatementIds;
}
const sharedByHost = new WeakMap<GriddbConnectionHost, HostShared>();

function sharedOf(host: GriddbConnectionHost): HostShared {
  let shared = sharedByHost.get(host);
  if (shared === undefined) {
    shared = { names: new GriddbContainerNames(host.options.partitionNum),
      statementIds: new GriddbStatementIds() };
    sharedByHost.set(host, shared);
  }
  return shared;
}

function containerNamesOf(host: GriddbConnectionHost): GriddbContainerNames {
  return sharedOf(host).names;
}
import { GriddbError, GriddbErrorCode, griddbErrorStackWrite } from './griddb-error.ts';
import {
  GriddbFrameError, GriddbFrameReader, encodeGriddbReply, griddbDecode, type GriddbRequest,
} from './griddb-frame.ts';
import {
  connectCheck, connectReplyWrite, loginCheck, loginDecode, loginReplyWrite,
} from './griddb-handshake.ts';
import { partitionAddressDecode, partitionAddressReplyWrite } from './griddb-partition-address.ts';
import { GriddbResult, GriddbStatement } from './griddb-statements.ts';
import { flushLogRun } from './griddb-flush-log.ts';
import { GRIDDB_STATEMENTS_REFUSED, griddbRefusalMessage } from './griddb-statements-refused.ts';
import {
  closeRowSetRun, fetchRowSetRun, queryTqlRun, rowByIdRun, timeSeriesQueryRun,
  type QueryStatementContext,
} from './griddb-query.ts';
import { timeSeriesStatementRun } from './griddb-time-series.ts';
import { indexStatementRun } from './griddb-index.ts';
import { partitionNamesRun } from './griddb-partition-names.ts';
import { GriddbRowSets } from './griddb-row-sets.ts';
import { createMultipleSessionsRun, multiQueriesRun } from './griddb-multi-query.ts';
import { multiPutRun } from './griddb-multi-put.ts';
import { multiGetRun } from './griddb-multi-get.ts';
import { griddbGetDatabasesRun, griddbGetUsersRun } from './griddb-access-lists.ts';
import { GriddbContainerCache } from './griddb-container-cache.ts';
import { GriddbRowsScratch } from './griddb-rows-transcode.ts';
import { griddbAccessStatementRun } from './griddb-access-statements.ts';

/** After a refusal, how long the peer has to read it before the socket is cut. */
const CLOSE_LINGER_MS = 1000;

export interface GriddbConnectionHost {
  readonly options: ResolvedServerOptions;
  /** Where statements that touch containers run (the transaction server's, shared). */
  readonly runner: RequestRunner;
  /** The engine failed on a bug (a run rejected): close every connection, answer nothing. */
  engineFailed(error: unknown): void;
  /** Undefined lets the connection in; an error (at connectionLimit) refuses it. */
  connectionAuthenticated(connection: GriddbConnection): StorageError | undefined;
  connectionClosed(connection: GriddbConnection): void;
}

type Phase = 'connect' | 'login' | 'ready' | 'closing';

export class GriddbConnection {
  private phase: Phase = 'connect';
  private readonly reader = new GriddbFrameReader(PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX);
  /** A statement is being answered (LOGIN looks the user up asynchronously). */
  private busy = false;
  private authenticated = false;
  private timer: ReturnType<typeof setTimeout>;
  private gone = false;
  private closeReason = 'the client closed the connection';
  /** Set at the first LOGIN: the runner knows this connection from then until it closes. */
  private engine: GriddbEngine | undefined;
  /** Set with the engine: this connection's GridDB sessions. */
  private sessions: GriddbSessions | undefined;
  /** Who logged in (the user, whether an administrator, the database): GET_USERS and GET_DATABASES. */
  private principal: Principal | undefined;
  /** The row statements' container look-ups (griddb-container-cache.ts); cleared at LOGIN. */
  private readonly containers = new GriddbContainerCache();
  /** Room for the rows of a put, transcoded (griddb-rows-transcode.ts), kept between statements. */
  private readonly rowsScratch = new GriddbRowsScratch();
  /** The row sets this connection holds for FETCH_ROW_SET, and the row ids it sent. */
  private readonly rowSets = new GriddbRowSets();

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly host: GriddbConnectionHost,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => this.closed());
    const handshakeMs = host.options.handshakeTimeoutMs;
    this.timer = setTimeout(() => this.close(`not authenticated within ${handshakeMs} ms`),
      handshakeMs);
    this.timer.unref();
  }

  get isReady(): boolean {
    return this.phase === 'ready';
  }

  /** Closes at once (the server stops). */
  destroy(_reason: string): void {
    this.phase = 'closing';
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    if (this.phase === 'closing') return;
    this.reader.push(chunk);
    this.pump();
  }

  /** Answers the frames buffered, one at a time. */
  private pump(): void {
    while (!this.busy && this.phase !== 'closing') {
      let request: GriddbRequest | undefined;
      try {
        request = this.reader.next();
      } catch (error) {
        if (!(error instanceof GriddbFrameError)) throw error;
        this.close(`malformed GridDB frame: ${error.message}`);
        return;
      }
      if (request === undefined) return;
      this.busy = true;
      this.handle(request).then(() => {
        this.busy = false;
        this.pump();
      }, (error: unknown) => {
        // Only a bug gets here (every refusal is answered in handle): stop the process.
        queueMicrotask(() => { throw error; });
      });
    }
  }

  private async handle(request: GriddbRequest): Promise<void> {
    const small = request.statementType === GriddbStatement.CONNECT;
    let statementId: bigint;
    let rest: Uint8Array;
    try {
      ({ statementId, rest } = griddbDecode(() => {
        const reader = new ByteReader(request.body);
        const id = small ? BigInt(reader.i32()) : reader.i64();
        return { statementId: id, rest: request.body.subarray(reader.offsetBytes) };
      }));
    } catch (error) {
      if (!(error instanceof GriddbFrameError)) throw error;
      this.close(`malformed GridDB frame: ${error.message}`);
      return;
    }
    const reply = (result: number, write: (writer: ByteWriter) => void): void => {
      this.send(encodeGriddbReply(
        { statementType: request.statementType, statementId, smallStatementId: small, result },
        write, this.reader.bodyBytesMax));
    };
    try {
      await this.statement(request, statementId, rest, reply);
    } catch (error) {
      if (error instanceof GriddbEngineFailure) {
        this.host.engineFailed(error.failure);
      } else if (error instanceof GriddbFrameError) {
        this.close(`malformed GridDB statement: ${error.message}`);
      } else if (error instanceof GriddbError) {
        reply(GriddbResult.STATEMENT_ERROR,
          (writer) => griddbErrorStackWrite(writer, error.error, error.message));
        if (this.phase === 'connect' || this.phase === 'login') {
          this.close(`refused: ${error.message}`, CLOSE_LINGER_MS);
        }
      } else if (isStorageError(error) && error.code === 'LIMIT_EXCEEDED') {
        // NODE_ERROR: the client retries (within failoverTimeout), as a full node warrants.
        reply(GriddbResult.NODE_ERROR, (writer) => griddbErrorStackWrite(writer,
          GriddbErrorCode.LIMIT_EXCEEDED, error.message));
        this.close(error.message, CLOSE_LINGER_MS);
      } else if (isStorageError(error)) {
        // A check of store's outside the engine refused the statement: the application's error.
        reply(GriddbResult.STATEMENT_ERROR,
          (writer) => { const refusal = griddbErrorOf(error).error;
            griddbErrorStackWrite(writer, refusal, error.message); });
      } else {
        throw error;
      }
    }
  }

  private async statement(request: GriddbRequest, statementId: bigint, body: Uint8Array,
    reply: (result: number, write: (writer: ByteWriter) => void) => void): Promise<void> {
    const type = request.statementType;
    if (this.phase === 'connect') {
      if (type !== GriddbStatement.CONNECT) {
        throw new GriddbError(GriddbErrorCode.TXN_AUTH_REQUIRED,
          `statement ${type} before CONNECT`);
      }
      connectCheck(body);
      this.phase = 'login';
      reply(GriddbResult.SUCCESS, connectReplyWrite);
      return;
    }
    if (type === GriddbStatement.LOGIN) {
      const login = loginDecode(body);
      const principal = await loginCheck(login, this.host.options);
      if (this.phase === 'closing') return;
      this.principal = principal;
      this.containers.clear();
      if (!this.authenticated) {
        const refusal = this.host.connectionAuthenticated(this);
        if (refusal !== undefined) throw refusal;
        this.authenticated = true;
        this.reader.bodyBytesMax = this.host.options.messageBytesMax;
        const { info } = this.host.runner;
        const clientUuidHex = login.clientUuid === undefined
          ? undefined : griddbUuidHex(login.clientUuid);
        const transactionTimeoutMs = login.transactionTimeoutMs === 0
          ? info.transactionTimeoutLimitMs
          : Math.min(login.transactionTimeoutMs, info.transactionTimeoutLimitMs);
        this.host.runner.connectionOpened(this.id, {
          // The client is the GridStore (its UUID): a statement retried on another of its
          // connections is answered once (griddb-sessions.ts numbers the statements).
          clientKey: clientUuidHex === undefined
            ? `griddb/${login.user}/connection-${this.id}`
            : `griddb/${login.user}/${clientUuidHex}`,
          transactionTimeoutMs,
          connection: {
            localAddress: `${this.socket.localAddress ?? '?'}:${this.socket.localPort ?? '?'}`,
            remoteAddress: this.remoteAddress(), applicationName: '', user: login.user,
          },
          principal,
        });
        this.engine = new GriddbEngine(this.host.runner, this.id,
          this.host.options.messageBytesMax);
        this.sessions = new GriddbSessions(() => this.engineOf(), sharedOf(this.host).statementIds,
          clientUuidHex, transactionTimeoutMs);
        this.host.options.onEvent?.({ kind: 'connected', connectionId: this.id,
          remoteAddress: this.remoteAddress(), user: login.user, applicationName: '' });
      }
      this.phase = 'ready';
      this.restartTimer(this.host.options.idleTimeoutMs);
      reply(GriddbResult.SUCCESS, loginReplyWrite);
      return;
    }
    if (type === GriddbStatement.DISCONNECT) {
      this.close('the client disconnected', CLOSE_LINGER_MS);
      return;
    }
    if (this.phase !== 'ready') {
      throw new GriddbError(GriddbErrorCode.TXN_AUTH_REQUIRED,
        `statement ${type} needs a LOGIN first`);
    }
    this.restartTimer(this.host.options.idleTimeoutMs);
    switch (type) {
      case GriddbStatement.LOGOUT:
        this.phase = 'login';
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      case GriddbStatement.GET_PARTITION_ADDRESS: {
        const { masterResolvable } = partitionAddressDecode(body);
        if (request.partitionId < 0 || request.partitionId >= this.host.options.partitionNum) {
          throw new GriddbFrameError(`partition ${request.partitionId} is outside ` +
            `0..${this.host.options.partitionNum - 1}`);
        }
        const address = { host: this.socket.localAddress ?? '127.0.0.1',
          port: this.socket.localPort ?? 0 };
        reply(GriddbResult.SUCCESS, (writer) => partitionAddressReplyWrite(writer, {
          partitionNum: this.host.options.partitionNum, masterResolvable, address,
        }));
        return;
      }
      case GriddbStatement.GET_CONTAINER_PROPERTIES: {
        const { name, kinds } = containerPropertiesDecode(body);
        const info = await this.engineOf().call(CONTAINER_INFO,
          { partitionId: this.partitionOf(request, name), name });
        if (info !== undefined) {
          containerNamesOf(this.host).remember(info.partitionId, info.containerId, info.name);
        }
        reply(GriddbResult.SUCCESS,
          (writer) => containerPropertiesReplyWrite(writer, kinds, info));
        return;
      }
      case GriddbStatement.GET_CONTAINER: {
        const { name, type } = containerGetDecode(body);
        const info = await this.engineOf().call(CONTAINER_INFO,
          { partitionId: this.partitionOf(request, name), name });
        containerGetTypeCheck(type, info);
        if (info !== undefined) {
          // The client's row statements name the container by this id from now on.
          containerNamesOf(this.host).remember(info.partitionId, info.containerId, info.name);
        }
        reply(GriddbResult.SUCCESS, (writer) => containerGetReplyWrite(writer, info));
        return;
      }
      case GriddbStatement.PUT_CONTAINER: {
        const { definition, modifiable } = containerPutDecode(body);
        const info = await this.engineOf().call(CONTAINER_PUT, {
          statement: this.storeStatement(), partitionId: this.partitionOf(request, definition.name),
          definitionJson: JSON.stringify(definition), modifiable,
        });
        containerNamesOf(this.host).remember(info.partitionId, info.containerId, info.name);
        reply(GriddbResult.SUCCESS, (writer) => containerPutReplyWrite(writer, info));
        return;
      }
      case GriddbStatement.DROP_CONTAINER: {
        const { name, type } = containerDropDecode(body);
        const ref = { partitionId: this.partitionOf(request, name), name };
        if (type !== undefined) {
          const info = await this.engineOf().call(CONTAINER_INFO, ref);
          if (info !== undefined && info.type !== type) {
            throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_TYPE_INVALID,
              `container "${info.name}" is a ${info.type}, not a ${type}`);
          }
        }
        await this.engineOf().call(CONTAINER_DROP, { statement: this.storeStatement(), ref });
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      }
      case GriddbStatement.GET_ROW:
      case GriddbStatement.PUT_ROW:
      case GriddbStatement.PUT_MULTIPLE_ROWS:
      case GriddbStatement.APPEND_TIME_SERIES_ROW:
      case GriddbStatement.DELETE_ROW: {
        const write = await rowStatementRun(this.rowContext(request), type, statementId, body);
        reply(GriddbResult.SUCCESS, write);
        return;
      }
      case GriddbStatement.QUERY_TQL: {
        const write = await queryTqlRun(this.queryContext(request), statementId, body);
        reply(GriddbResult.SUCCESS, write);
        return;
      }
      case GriddbStatement.QUERY_TIME_SERIES_RANGE:
      case GriddbStatement.QUERY_TIME_SERIES_SAMPLING:
        reply(GriddbResult.SUCCESS, await timeSeriesQueryRun(this.queryContext(request), type,
          statementId, body));
        return;
      case GriddbStatement.GET_TIME_SERIES_ROW_RELATED:
      case GriddbStatement.INTERPOLATE_TIME_SERIES_ROW:
      case GriddbStatement.AGGREGATE_TIME_SERIES:
        reply(GriddbResult.SUCCESS, await timeSeriesStatementRun(this.queryContext(request), type,
          statementId, body));
        return;
      case GriddbStatement.GET_PARTITION_CONTAINER_NAMES: {
        if (request.partitionId < 0 || request.partitionId >= this.host.options.partitionNum) {
          throw new GriddbError(GriddbErrorCode.TXN_PARTITION_ID_INVALID, `partition ` +
            `${request.partitionId} is outside 0..${this.host.options.partitionNum - 1}`);
        }
        reply(GriddbResult.SUCCESS, await partitionNamesRun(this.engineOf(), request.partitionId,
          this.host.options.partitionNum, body));
        return;
      }
      case GriddbStatement.CREATE_INDEX_DETAIL:
      case GriddbStatement.DROP_INDEX_DETAIL:
        reply(GriddbResult.SUCCESS, await indexStatementRun(this.rowContext(request), type, body));
        return;
      case GriddbStatement.EXECUTE_MULTIPLE_QUERIES:
        reply(GriddbResult.SUCCESS, await multiQueriesRun(this.queryContext(request), body));
        return;
      case GriddbStatement.GET_MULTIPLE_CONTAINER_ROWS:
        reply(GriddbResult.SUCCESS, await multiGetRun(this.rowContext(request), body));
        return;
      case GriddbStatement.PUT_MULTIPLE_CONTAINER_ROWS:
        reply(GriddbResult.SUCCESS, await multiPutRun(this.rowContext(request), body));
        return;
      case GriddbStatement.CREATE_MULTIPLE_SESSIONS:
        reply(GriddbResult.SUCCESS,
          await createMultipleSessionsRun(this.queryContext(request), body));
        return;
      case GriddbStatement.FETCH_ROW_SET:
        reply(GriddbResult.SUCCESS, fetchRowSetRun(this.queryContext(request), statementId, body));
        return;
      case GriddbStatement.CLOSE_ROW_SET:
        closeRowSetRun(this.queryContext(request), body);
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      case GriddbStatement.FLUSH_LOG:
        await flushLogRun(this.rowContext(request), body);
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      case GriddbStatement.UPDATE_ROW_BY_ID:
      case GriddbStatement.DELETE_ROW_BY_ID:
        await rowByIdRun(this.queryContext(request), type, statementId, body);
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      case GriddbStatement.CREATE_SESSION:
      case GriddbStatement.CLOSE_SESSION:
      case GriddbStatement.COMMIT_TRANSACTION:
      case GriddbStatement.ABORT_TRANSACTION: {
        const { containerId, session } = sessionStatementDecode(statementId, body);
        const sessions = this.sessionsOf();
        if (type === GriddbStatement.CLOSE_SESSION) {
          await sessions.close(session);
        } else {
          // The container must exist; a session of this node begins with its transaction.
          const { ref } = await containerOf(this.rowContext(request), { containerId });
          if (type !== GriddbStatement.CREATE_SESSION) {
            await sessions.end(session, { partitionId: ref.partitionId, name: ref.name },
              type === GriddbStatement.COMMIT_TRANSACTION);
          }
        }
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      }
      case GriddbStatement.CLOSE_MULTIPLE_SESSIONS: {
        for (const session of closeMultipleSessionsDecode(body)) {
          await this.sessionsOf().close(session);
        }
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      }
      case GriddbStatement.GET_USERS:
        reply(GriddbResult.SUCCESS, griddbGetUsersRun(this.host.options.accessCatalog(),
          this.principalOf(), request.partitionId, body));
        return;
      case GriddbStatement.GET_DATABASES:
        reply(GriddbResult.SUCCESS, griddbGetDatabasesRun(this.host.options.accessCatalog(),
          this.principalOf(), request.partitionId, body));
        return;
      case GriddbStatement.PUT_USER:
      case GriddbStatement.DROP_USER:
      case GriddbStatement.PUT_DATABASE:
      case GriddbStatement.DROP_DATABASE:
      case GriddbStatement.PUT_PRIVILEGE:
      case GriddbStatement.DROP_PRIVILEGE:
        await griddbAccessStatementRun(this.engineOf(), type, request.partitionId, body);
        reply(GriddbResult.SUCCESS, () => undefined);
        return;
      default:
        throw new GriddbError(GRIDDB_STATEMENTS_REFUSED.get(type)?.error ??
          GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN, griddbRefusalMessage(type));
    }
  }

  private rowContext(request: GriddbRequest): RowStatementContext {
    return {
      engine: this.engineOf(), names: containerNamesOf(this.host),
      partitionId: request.partitionId,
      partitionOf: (name) => this.partitionOf(request, name), sessions: this.sessionsOf(),
      containers: this.containers, rowsScratch: this.rowsScratch,
      nowMs: () => this.host.options.clock.nowMs(),
    };
  }

  private queryContext(request: GriddbRequest): QueryStatementContext {
    return { ...this.rowContext(request), rowSets: this.rowSets };
  }

  private principalOf(): Principal {
    assert(this.principal !== undefined, 'a logged-in GridDB connection has its principal');
    return this.principal;
  }

  private sessionsOf(): GriddbSessions {
    assert(this.sessions !== undefined, 'a logged-in GridDB connection has its sessions');
    return this.sessions;
  }

  private engineOf(): GriddbEngine {
    assert(this.engine !== undefined, 'a logged-in GridDB connection has its engine');
    return this.engine;
  }

  /**
   * The partition a container statement names: the client computes it from the name (CRC-32, as
   * store places containers), so one that differs is a client that hashes otherwise, refused.
   */
  private partitionOf(request: GriddbRequest, name: string): number {
    const expected = containerPartitionId(name, this.host.options.partitionNum);
    if (request.partitionId !== expected) {
      throw new GriddbError(GriddbErrorCode.TXN_PARTITION_ID_INVALID,
        `container "${name}" lives in partition ${expected}, not ${request.partitionId}`);
    }
    return expected;
  }

  /** An auto-commit write without a GridDB session: a fresh statement id (griddb-sessions.ts). */
  private storeStatement(): { sessionId: number; statementId: number } {
    return this.sessionsOf().statement(undefined, 0);
  }

  private send(bytes: Uint8Array): void {
    if (this.phase === 'closing' && this.gone) return;
    this.socket.write(bytes);
  }

  private restartTimer(timeoutMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.close(`idle for ${timeoutMs} ms`), timeoutMs);
    this.timer.unref();
  }

  /** Stops reading; with a linger, what was written is flushed first, then the socket is cut. */
  private close(reason: string, lingerMs = 0): void {
    if (this.phase === 'closing' && lingerMs > 0) return;
    if (this.phase !== 'closing') this.closeReason = reason;
    this.phase = 'closing';
    clearTimeout(this.timer);
    if (lingerMs === 0) {
      this.socket.destroy();
      return;
    }
    this.socket.end();
    setTimeout(() => this.socket.destroy(), lingerMs).unref();
  }

  private closed(): void {
    assert(!this.gone);
    this.gone = true;
    this.phase = 'closing';
    clearTimeout(this.timer);
    if (this.engine !== undefined) this.host.runner.connectionClosed(this.id);
    this.host.options.onEvent?.({ kind: 'closed', connectionId: this.id,
      remoteAddress: this.remoteAddress(), reason: this.closeReason });
    this.host.connectionClosed(this);
  }

  private remoteAddress(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`;
  }
}
