// The engine side of the transaction server: it takes an authenticated connection's request
// frames and answers each with the bytes of its reply frame. The network side
// (server-connection.ts) reads frames, authenticates, bounds what is in flight and writes the
// replies; everything that touches the Store happens here: decoding the body, ordering
// (request-order.ts), running the handler, encoding the reply, and the connection's sessions,
// query results and retried statements.
//
// The split is the thread boundary of DESIGN.md §2: in the node a LocalRequestRunner runs inside
// each engine worker thread, over the Store of its partition group (lib/node/engine-thread/), and
// the network side reaches them through the routing runner (routing-request-runner.ts) by
// messages; tests may run both in one thread. Either way a connection is opened here before its
// first request and closed after its last.
//
// Fail-stop (docs/data-model.md "Errors"): a StorageError is the request's error reply; anything
// else (a failed assertion, an unexpected exception) means the engine's state may be
// half-applied. The runner then latches the failure, tells its owner at once (onFailure, before
// anything else runs, so the owner can stop the thread or the process before a checkpoint writes
// that state), and answers nothing more: this request and every later one, and those still
// running, reject with it. A rejected run is the network side's sign to close every connection
// (server-connection.ts).

import { randomUUID } from 'node:crypto';
import { SqlNodeActivityRegistry, type SqlConnectionInfo } from '../sql/meta/node-activity.ts';
import type { Principal } from '../access/access-catalog.ts';
import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import type { Store } from '../engine/store.ts';
import { DATABASE_ID_PUBLIC } from '../schema/database-names.ts';
import { REPLY_WRITER_BYTES_KEPT_MAX } from '../base/limits.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import {
  encodeFrameInto, frameWriter, protocolError, type FrameHeader,
} from '../protocol/frame.ts';
import { decodeBody, emptyWrite, messageName } from '../protocol/message-codec.ts';
import { MessageType } from '../protocol/message-types.ts';
import { MULTI_PUT, type MultiPutRequest } from '../protocol/messages-row.ts';
import { ConnectionSessions } from './connection-sessions.ts';
import { CONNECTION_HANDLERS } from './handlers-connection.ts';
import { CONTAINER_HANDLERS } from './handlers-containers.ts';
import { INDEX_HANDLERS } from './handlers-indexes.ts';
import { QUERY_HANDLERS } from './handlers-queries.ts';
import { SQL_HANDLERS } from './handlers-sql.ts';
import { ROW_HANDLERS, multiPutCheck } from './handlers-rows.ts';
import { TRANSACTION_HANDLERS } from './handlers-transactions.ts';
import type { QueryHandler } from './query-handler.ts';
import { errorFrame, protocolFailure, replyHeader, type RequestFrame } from './reply-frames.ts';
import type { ConnectionContext, DispatchEntry } from './request-handler.ts';
import { RequestOrder } from './request-order.ts';
import { ResultSets } from './result-sets.ts';
import { sqlPeerAnswer, type SqlPeerCall, type SqlPeers } from './sql-peers.ts';
import { StatementResults } from './statement-results.ts';

export const DISPATCH: ReadonlyMap<number, DispatchEntry> = new Map(
  [...CONNECTION_HANDLERS, ...CONTAINER_HANDLERS, ...INDEX_HANDLERS, ...ROW_HANDLERS,
    ...TRANSACTION_HANDLERS, ...QUERY_HANDLERS, ...SQL_HANDLERS].map((entry) => [entry.type, entry]));

/** What the AUTH reply tells a client about the engine. */
export interface EngineInfo {
  partitionNum: number;
  storeBlockSizeBytes: number;
  transactionTimeoutLimitMs: number;
}

/** A connection as the engine side knows it, from authentication on. */
export interface ConnectionSetup {
  /** The same for every connection of one client (user and client id). */
  clientKey: string;
  transactionTimeoutMs: number;
  /** Its addresses, user and application, for "#sockets" and "#sqls"; absent in tests that run requests directly. */
  connection?: SqlConnectionInfo;
  /**
   * Who logged in, and to which database, for the privilege check (access-runner.ts);
   * absent where no one logs in (tests of the runner alone).
   */
  principal?: Principal;
  /**
   * The id of the database logged in to (lib/schema/database-names.ts): the container names of
   * its requests are keys in it. Public (0) when absent.
   */
  databaseId?: number;
}

/** A reply frame; `closeReason` set: the request broke the protocol, close after sending. */
export interface RunOutcome {
  bytes: Uint8Array;
  closeReason?: string;
}

export interface RequestRunner {
  readonly info: EngineInfo;
  connectionOpened(connectionId: number, setup: ConnectionSetup): void;
  /**
   * Resolves with the reply of every request, error replies included. Rejects only when the
   * engine failed (a broken invariant): then nothing may be answered, and the caller closes every
   * connection and stops. The frame's body is a view of the connection's read buffer, valid only
   * during the call: decode it at once or copy it.
   */
  run(connectionId: number, frame: RequestFrame): Promise<RunOutcome>;
  /** Ends the connection's sessions (aborting their transactions) and its query results. */
  connectionClosed(connectionId: number): void;
}

export interface LocalRunnerOptions {
  queryHandler: QueryHandler;
  /** GridDB's /sql/workMemoryLimit; SQL_WORK_MEMORY_LIMIT_BYTES_DEFAULT when absent. */
  sqlWorkMemoryLimitBytes?: number;
  /** GridDB's /sql/partitioningRowkeyConstraint; true when absent. */
  sqlPartitioningRowkeyConstraint?: boolean;
  /** GridDB's /sql/costBasedJoin; true when absent. */
  sqlCostBasedJoin?: boolean;
  messageBytesMax: number;
  statementResultCountMax: number;
  statementResultCountPerClientMax: number;
  /**
   * The engine failed on a bug (not a StorageError) while serving a request; called once, at the
   * failure, before the request's promise rejects. The owner must stop the engine now.
   */
  onFailure: (error: unknown) => void;
  /**
   * Testing aid, inert when absent: a put (ROW_PUT, MULTI_PUT) into the container of this name
   * fails an assertion in its handler, as a broken invariant would (handlers-rows.ts). The node
   * sets it from STORE_FAULT_ASSERT_ON (tools/store-node.ts), so an end-to-end test can prove
   * fail-stop on a real process.
   */
  faultAssertOnContainer?: string;
  /** The node's other engine threads (one per partition group); absent when this runner is the node's only one. */
  sqlPeers?: SqlPeers;
}

interface OpenConnection {
  readonly context: ConnectionContext;
  readonly order: RequestOrder;
}

export class LocalRequestRunner implements RequestRunner {
  readonly info: EngineInfo;
  private readonly statements: StatementResults;
  private readonly connections = new Map<number, OpenConnection>();
  /** Running SQL statements and connections, for "#sqls" and "#sockets". */
  private readonly sqlActivity: SqlNodeActivityRegistry;
  /** The bug that stopped this runner (fail-stop); set once, never cleared. */
  private failure: { error: unknown } | undefined;
  /**
   * Every reply is encoded here and copied out at its exact size: a 3.6 MB query reply then costs
   * one allocation of 3.6 MB, where a writer of its own grew by doubling (about 8 MB allocated,
   * and a 4 MiB backing store held while the socket queues the reply).
   */
  private replyWriter: ByteWriter;

  constructor(
    private readonly store: Store,
    private readonly options: LocalRunnerOptions,
  ) {
    this.info = {
      partitionNum: store.options.partitionNum,
      storeBlockSizeBytes: store.options.storeBlockSizeBytes,
      transactionTimeoutLimitMs: store.options.transactionTimeoutLimitMs,
    };
    // Query ids `<uuid>:<n>`, GridDB's shape: the uuid keeps them apart across engine threads.
    this.sqlActivity = new SqlNodeActivityRegistry(() => store.clock.nowMs(), randomUUID());
    this.statements = new StatementResults(options.statementResultCountMax,
      options.statementResultCountPerClientMax);
    this.replyWriter = frameWriter(options.messageBytesMax);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    const { store } = this;
    const sessions = new ConnectionSessions(store,
      store.session({ transactionTimeoutMs: setup.transactionTimeoutMs }));
    this.connections.set(connectionId, {
      context: {
        store, sessions, resultSets: new ResultSets(this.options.messageBytesMax),
        statements: this.statements, queryHandler: this.options.queryHandler,
        clientKey: setup.clientKey, sqlActivity: this.sqlActivity, connectionId,
        databaseId: setup.databaseId ?? DATABASE_ID_PUBLIC,
        ...(this.options.sqlPeers === undefined ? {} : { sqlPeers: this.options.sqlPeers }),
        ...(setup.connection === undefined ? {} : { connection: setup.connection }),
        ...(this.options.sqlWorkMemoryLimitBytes === undefined
          ? {} : { sqlWorkMemoryLimitBytes: this.options.sqlWorkMemoryLimitBytes }),
        ...(this.options.sqlPartitioningRowkeyConstraint === undefined
          ? {} : { sqlPartitioningRowkeyConstraint: this.options.sqlPartitioningRowkeyConstraint }),
        ...(this.options.sqlCostBasedJoin === undefined ? {} : { sqlCostBasedJoin: this.options.sqlCostBasedJoin }),
        ...(this.options.faultAssertOnContainer === undefined
          ? {} : { faultAssertOnContainer: this.options.faultAssertOnContainer }),
      },
      order: new RequestOrder(),
    });
    if (setup.connection !== undefined) this.sqlActivity.connectionOpened(connectionId, setup.connection);
  }

  connectionClosed(connectionId: number): void {
    // A failed engine is left as it is: the process is about to end, and the log is the truth.
    if (this.failure !== undefined) return;
    const connection = this.connections.get(connectionId);
    if (connection === undefined) return;
    this.connections.delete(connectionId);
    // Its statements stop after their slice of work: nobody is left to take their rows.
    this.sqlActivity.cancelConnection(connectionId);
    this.sqlActivity.connectionClosed(connectionId);
    connection.context.resultSets.closeAll();
    connection.context.sessions.closeAll();
  }

  /** This group's answer to another engine thread's SQL (sql-peers.ts). */
  sqlPeerAnswer(call: SqlPeerCall): unknown {
    this.throwIfFailed();
    return sqlPeerAnswer(this.store, this.sqlActivity, call);
  }

  /** Closes every connection's sessions, as when the engine stops. */
  closeAll(): void {
    for (const connectionId of [...this.connections.keys()]) this.connectionClosed(connectionId);
  }

  async run(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    this.throwIfFailed();
    const connection = this.connections.get(connectionId);
    if (connection === undefined) {
      return this.broken(frame, protocolError('the connection is not open on the engine'));
    }
    const entry = DISPATCH.get(frame.messageType);
    if (entry === undefined) {
      return this.broken(frame, protocolError(`${messageName(frame.messageType)} is not a ` +
        'request the node takes on an authenticated connection'));
    }
    let request: unknown;
    try {
      request = decodeBody(frame.body, (reader) => entry.readRequest(reader),
        `${messageName(frame.messageType)} request`);
    } catch (error) {
      return this.broken(frame, error);
    }
    try {
      const reply = await connection.order.run(entry.orderKey(request),
        () => entry.run(request, connection.context));
      // Another request failed while this one ran: its reply may rest on half-applied state.
      this.throwIfFailed();
      return {
        bytes: this.encodeReply(replyHeader(frame), (writer) => entry.writeReply(writer, reply)),
      };
    } catch (error) {
      return this.failed(frame, error);
    }
  }

  /**
   * A MULTI_PUT's checks without its writes (handlers-rows.ts multiPutCheck): the empty reply
   * when run() would get as far as writing, else the error reply run() would give. The routing
   * runner asks every engine thread a multi-put spans before any of them writes.
   */
  async check(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    assert(frame.messageType === MessageType.MULTI_PUT);
    this.throwIfFailed();
    const connection = this.connections.get(connectionId);
    if (connection === undefined) {
      return this.broken(frame, protocolError('the connection is not open on the engine'));
    }
    let request: MultiPutRequest;
    try {
      request = decodeBody(frame.body, MULTI_PUT.readRequest, 'MULTI_PUT request');
    } catch (error) {
      return this.broken(frame, error);
    }
    try {
      multiPutCheck(request, connection.context);
      this.throwIfFailed();
      return { bytes: this.encodeReply(replyHeader(frame), emptyWrite) };
    } catch (error) {
      return this.failed(frame, error);
    }
  }

  /** A reply frame in memory of its own, of its exact size (replyWriter). */
  private encodeReply(header: FrameHeader, write: (writer: ByteWriter) => void): Uint8Array {
    try {
      return encodeFrameInto(this.replyWriter, header, write).slice();
    } finally {
      if (this.replyWriter.capacityBytes > REPLY_WRITER_BYTES_KEPT_MAX) {
        this.replyWriter = frameWriter(this.options.messageBytesMax);
      }
    }
  }

  /**
   * A request that failed: its error reply (a PROTOCOL_ERROR also closes the connection); a bug
   * stops the runner and rejects (fail-stop).
   */
  private failed(frame: RequestFrame, error: unknown): RunOutcome {
    if (!isStorageError(error)) this.stop(error);
    this.throwIfFailed();
    assert(isStorageError(error));
    const bytes = errorFrame(frame, error);
    return error.code === 'PROTOCOL_ERROR' ? { bytes, closeReason: error.message } : { bytes };
  }

  /** A request that breaks the protocol: its answer, then the connection closes. */
  private broken(frame: RequestFrame, error: unknown): RunOutcome {
    const storageError = protocolFailure(error);
    return { bytes: errorFrame(frame, storageError), closeReason: storageError.message };
  }

  /** Latches the first bug and tells the owner, once. */
  private stop(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = { error };
    this.options.onFailure(error);
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}
