// What a request handler sees, and the shape of one: the codec of its message, the ordering key of
// a request (request-order.ts), and the work. Handlers are plain functions of the request and the
// connection's context; the connection (server-connection.ts) decodes, orders, runs, encodes.

import type { Store } from '../engine/store.ts';
import type { DatabaseId } from '../schema/database-names.ts';
import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import type { MessageCodec } from '../protocol/message-codec.ts';
import type { MessageType } from '../protocol/message-types.ts';
import type { Statement } from '../protocol/wire-refs.ts';
import type { SqlConnectionInfo, SqlNodeActivityRegistry } from '../sql/meta/node-activity.ts';
import type { ConnectionSessions } from './connection-sessions.ts';
import type { QueryHandler } from './query-handler.ts';
import type { ResultSets } from './result-sets.ts';
import type { SqlPeers } from './sql-peers.ts';
import type { StatementKey, StatementResults } from './statement-results.ts';

export interface ConnectionContext {
  readonly store: Store;
  readonly sessions: ConnectionSessions;
  readonly resultSets: ResultSets;
  readonly statements: StatementResults;
  /** The same for every connection of one client (user and client id). */
  readonly clientKey: string;
  /** The database the connection logged in to: names in its requests are keys in it. */
  readonly databaseId: DatabaseId;
  readonly queryHandler: QueryHandler;
  /** The engine's running SQL statements and connections ("#sqls", "#sockets"). */
  readonly sqlActivity?: SqlNodeActivityRegistry;
  /** The runner's id of this connection: closing it cancels its SQL statements. */
  readonly connectionId?: number;
  /** The node's other engine threads, for SQL that spans partition groups; absent in one thread. */
  readonly sqlPeers?: SqlPeers;
  /** This connection's addresses, user and application; absent when requests run without a socket. */
  readonly connection?: SqlConnectionInfo;
  /** GridDB's /sql/workMemoryLimit for SQL statements; SQL_WORK_MEMORY_LIMIT_BYTES_DEFAULT when absent. */
  readonly sqlWorkMemoryLimitBytes?: number;
  /** GridDB's /sql/partitioningRowkeyConstraint; true when absent. */
  readonly sqlPartitioningRowkeyConstraint?: boolean;
  /** GridDB's /sql/costBasedJoin; true when absent. */
  readonly sqlCostBasedJoin?: boolean;
  /** Testing aid (LocalRunnerOptions.faultAssertOnContainer): puts into it fail an assertion. */
  readonly faultAssertOnContainer?: string;
}

/** A handler with its types erased, as the dispatch table holds it; see handler(). */
export interface DispatchEntry {
  readonly type: MessageType;
  readRequest(reader: ByteReader): unknown;
  orderKey(request: unknown): string | undefined;
  run(request: unknown, context: ConnectionContext): Promise<unknown>;
  writeReply(writer: ByteWriter, reply: unknown): void;
}

/**
 * The dispatch entry of a message: `run` does the work; requests with equal `orderKey`s run one
 * after another in the order they arrived (request-order.ts), others concurrently. The types are
 * erased only behind the codec, whose reader is the only source of the request.
 */
export function handler<Request, Reply>(
  codec: MessageCodec<Request, Reply>,
  run: (request: Request, context: ConnectionContext) => Promise<Reply>,
  orderKey?: (request: Request) => string | undefined,
): DispatchEntry {
  return {
    type: codec.type,
    readRequest: (reader) => codec.readRequest(reader),
    orderKey: (request) => orderKey?.(request as Request),
    // async: a handler that throws before its first await still rejects, never escapes.
    run: async (request, context) => run(request as Request, context),
    writeReply: (writer, reply) => codec.writeReply(writer, reply as Reply),
  };
}

export function statementKey(
  context: ConnectionContext,
  messageType: MessageType,
  statement: Statement,
): StatementKey {
  return { clientKey: context.clientKey, statementId: statement.statementId, messageType };
}

/**
 * The reply of a request whose reply has no body, one object for all: the statement table keeps a
 * write's outcome for as long as it remembers the write (statement-results.ts).
 */
export const EMPTY_REPLY: Record<string, never> = Object.freeze({});
