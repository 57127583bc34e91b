// The engine side of a node whose partition groups run in engine threads of their own, one group
// each: a RequestRunner that sends every request to the thread that owns its container's partition
// (the client's hash, lib/schema/partition-hash.ts) and answers the client as one engine of every
// group would, byte for byte. Each thread runs a LocalRequestRunner over a Store of its group.
//
//   one container (a name ref, or CONTAINER_PUT's definition)   the owning group's thread
//   CONTAINER_LIST, MULTI_GET, MULTI_PUT                        split and merged (routing-multi.ts)
//   SESSION_OPEN, SESSION_CLOSE                                 every thread
//   SQL_EXECUTE                                                 the group of the table it names
//                                                               (INSERT … SELECT: the table it
//                                                               writes; another group's table and
//                                                               the metatables it reads through
//                                                               the groups' peers, sql-peers.ts)
//   SQL_CANCEL                                                  every thread (routing-multi.ts)
//   FETCH, RESULT_CLOSE                                         the thread that holds the result
//   PING, and anything else                                     group 0's thread
//
// Sessions: every thread sees every connection open and close and every SESSION_OPEN, in the same
// order, so each numbers its sessions as one engine would and a session has the same id in all of
// them (checked at each SESSION_OPEN): a manual session's transactions live in the threads of
// their containers and end in all of them when it closes.
//
// Query results: each thread numbers the results it holds per connection, so the ids a client
// sees are this runner's, numbered per connection as one engine numbers them, and mapped to the
// thread and its id here; the per-connection bound on open results is checked here too.
//
// Order: requests that must keep their order (request-order.ts keys: one session on one
// container, one result's fetches) go to one thread, over a port that delivers in order, so the
// thread's RequestOrder keeps them. Retried statements: a statement about one container goes to
// its thread, which remembers its outcome; a split MULTI_PUT carries its statement id to each.

import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import { CONNECTION_RESULT_SET_COUNT_MAX } from '../base/limits.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { encodeFrame } from '../protocol/frame.ts';
import { decodeBody, emptyWrite } from '../protocol/message-codec.ts';
import { MessageType } from '../protocol/message-types.ts';
import { SESSION_CLOSE, SESSION_OPEN } from '../protocol/messages-connection.ts';
import { errorDecode } from '../protocol/wire-error.ts';
import { RESULT_SET_ID_NONE } from '../protocol/messages-query.ts';
import { containerPartitionId, partitionGroupOf } from '../schema/partition-hash.ts';
import { errorFrame, replyHeader, type RequestFrame } from './reply-frames.ts';
import type {
  ConnectionSetup, EngineInfo, RequestRunner, RunOutcome,
} from './request-runner.ts';
import { resultSetClosedError, resultSetLimitError } from './result-sets.ts';
import {
  containerPutName, firstFailure, isReply, leadingId, namesOneContainer, replyBody,
  requestBody, requestContainerName, requestWithBody, sqlRequestTableNames, withLeadingId,
} from './routing-frames.ts';
import {
  containerListRouted, multiGetRouted, multiPutRouted, sqlCancelRouted, type GroupRoutes,
} from './routing-multi.ts';

/** One partition group's engine side (a LocalRequestRunner, here or in its thread). */
export interface GroupRequestRunner extends RequestRunner {
  /** MULTI_PUT's checks without its writes (LocalRequestRunner.check). */
  check(connectionId: number, frame: RequestFrame): Promise<RunOutcome>;
}

export interface RoutingRunnerOptions {
  partitionNum: number;
  messageBytesMax: number;
}

interface RoutedResult {
  readonly groupIndex: number;
  /** The id the group's thread gave it. */
  readonly resultSetId: number;
}

interface RoutedConnection {
  /** Open query results by the id the client holds. */
  readonly results: Map<number, RoutedResult>;
  nextResultSetId: number;
}

export class RoutingRequestRunner implements RequestRunner, GroupRoutes {
  private readonly connections = new Map<number, RoutedConnection>();

  /** `runners[g]` serves partition group g; there is one per group (`/dataStore/concurrency`). */
  constructor(
    private readonly runners: readonly GroupRequestRunner[],
    private readonly options: RoutingRunnerOptions,
  ) {
    assert(runners.length >= 1);
    assert(runners.length <= options.partitionNum);
  }

  get info(): EngineInfo {
    return this.runners[0]!.info;
  }

  get groupCount(): number {
    return this.runners.length;
  }

  get messageBytesMax(): number {
    return this.options.messageBytesMax;
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    this.connections.set(connectionId,
      { results: new Map(), nextResultSetId: RESULT_SET_ID_NONE + 1 });
    for (const runner of this.runners) runner.connectionOpened(connectionId, setup);
  }

  connectionClosed(connectionId: number): void {
    this.connections.delete(connectionId);
    for (const runner of this.runners) runner.connectionClosed(connectionId);
  }

  /**
   * A group that cannot answer (its thread exited: CLOSED) is an error reply; any other rejection
   * is a bug, in a thread or in the routing, and rejects (fail-stop, request-runner.ts).
   */
  async run(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    try {
      return this.runners.length === 1
        ? await this.runners[0]!.run(connectionId, frame)
        : await this.routed(connectionId, frame);
    } catch (error) {
      if (!isStorageError(error)) throw error;
      return { bytes: errorFrame(frame, error) };
    }
  }

  private routed(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const { messageType } = frame;
    if (namesOneContainer(messageType)) {
      const name = requestContainerName(frame);
      const groupIndex = name === undefined ? 0 : this.groupOf(name);
      return messageType === MessageType.QUERY
        ? this.query(groupIndex, connectionId, frame) : this.runIn(groupIndex, connectionId, frame);
    }
    switch (messageType) {
      case MessageType.CONTAINER_PUT: {
        const name = containerPutName(frame);
        return this.runIn(name === undefined ? 0 : this.groupOf(name), connectionId, frame);
      }
      case MessageType.SQL_EXECUTE: {
        // A statement runs in the group of the first table it names; the tables of other groups
        // it reads come page by page from theirs (sql-node-database.ts, sql-peers.ts).
        const [first] = sqlRequestTableNames(frame);
        return this.query(first === undefined ? 0 : this.groupOf(first), connectionId, frame);
      }
      case MessageType.SQL_CANCEL: return sqlCancelRouted(this, connectionId, frame);
      case MessageType.CONTAINER_LIST: return containerListRouted(this, connectionId, frame);
      case MessageType.MULTI_GET: return multiGetRouted(this, connectionId, frame);
      case MessageType.MULTI_PUT: return multiPutRouted(this, connectionId, frame);
      case MessageType.SESSION_OPEN: return this.sessionOpen(connectionId, frame);
      case MessageType.SESSION_CLOSE: return this.everyGroup(connectionId, frame);
      case MessageType.FETCH: return this.fetch(connectionId, frame);
      case MessageType.RESULT_CLOSE: return this.resultClose(connectionId, frame);
      default: return this.runIn(0, connectionId, frame);
    }
  }

  /** Runs the request in every thread; answers the first failure, else group 0's reply. */
  private async everyGroup(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const outcomes = await Promise.all(this.runners.map((runner) =>
      runner.run(connectionId, frame)));
    return firstFailure(outcomes) ?? outcomes[0]!;
  }

  /**
   * A session opens in every thread, with the same id in each. Should they differ (a bug), or
   * some threads fail where others did not, the sessions that opened are closed again.
   */
  private async sessionOpen(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const outcomes = await Promise.all(this.runners.map((runner) =>
      runner.run(connectionId, frame)));
    const failure = firstFailure(outcomes);
    const sessionIds = outcomes.map((outcome) => (isReply(outcome)
      ? decodeBody(replyBody(outcome), SESSION_OPEN.readReply, 'SESSION_OPEN reply').sessionId
      : undefined));
    const first = sessionIds[0];
    if (failure === undefined && sessionIds.every((id) => id === first)) return outcomes[0]!;
    await Promise.all(sessionIds.map((sessionId, g) => {
      if (sessionId === undefined) return undefined;
      const close = requestWithBody({ ...frame, messageType: MessageType.SESSION_CLOSE },
        requestBody(8, this.options.messageBytesMax,
          (writer) => SESSION_CLOSE.writeRequest(writer, { sessionId })));
      return this.runIn(g, connectionId, close);
    }));
    if (failure !== undefined) return failure;
    throw new Error(`engine threads opened a session with different ids: ${sessionIds.join(', ')}`);
  }

  /** A query's result, when it stays open, gets this connection's next result id. */
  private async query(
    groupIndex: number,
    connectionId: number,
    frame: RequestFrame,
  ): Promise<RunOutcome> {
    const outcome = await this.runIn(groupIndex, connectionId, frame);
    if (!isReply(outcome)) return outcome;
    const body = replyBody(outcome);
    const resultSetId = leadingId(body)?.id ?? RESULT_SET_ID_NONE;
    const connection = this.connections.get(connectionId);
    if (resultSetId === RESULT_SET_ID_NONE || connection === undefined) return outcome;
    if (connection.results.size >= CONNECTION_RESULT_SET_COUNT_MAX) {
      await this.runIn(groupIndex, connectionId, this.resultCloseFrame(frame, resultSetId));
      return { bytes: errorFrame(frame, resultSetLimitError()) };
    }
    const id = connection.nextResultSetId++;
    connection.results.set(id, { groupIndex, resultSetId });
    const renumbered = withLeadingId(body, id);
    return this.reply(frame, (writer) => writer.bytes(renumbered));
  }

  private async fetch(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const found = this.result(connectionId, frame);
    if (found === undefined) return this.runIn(0, connectionId, frame);
    const { id, result, results } = found;
    if (result === undefined) return { bytes: errorFrame(frame, resultSetClosedError(id)) };
    const outcome = await this.runIn(result.groupIndex, connectionId,
      requestWithBody(frame, withLeadingId(frame.body, result.resultSetId)));
    // The thread closes a result on its last page and on an error.
    const done = !isReply(outcome) || replyBody(outcome)[0] === 1;
    if (done && results.get(id) === result) results.delete(id);
    // A fetch sent after the last page but before its reply came back: told by the client's id.
    const closedThere = resultSetClosedError(result.resultSetId);
    if (!isReply(outcome) && outcome.closeReason === undefined &&
      errorDecode(replyBody(outcome)).message === closedThere.message) {
      return { bytes: errorFrame(frame, resultSetClosedError(id)) };
    }
    return outcome;
  }

  private async resultClose(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const found = this.result(connectionId, frame);
    if (found === undefined) return this.runIn(0, connectionId, frame);
    const { id, result, results } = found;
    if (result === undefined) return this.reply(frame, emptyWrite);
    results.delete(id);
    return this.runIn(result.groupIndex, connectionId,
      requestWithBody(frame, withLeadingId(frame.body, result.resultSetId)));
  }

  /**
   * The result a FETCH or RESULT_CLOSE names (undefined `result`: none by that id); undefined
   * when the body is malformed or the connection is not open here (a thread answers that).
   */
  private result(connectionId: number, frame: RequestFrame) {
    const at = leadingId(frame.body);
    const connection = this.connections.get(connectionId);
    if (at === undefined || connection === undefined) return undefined;
    return { id: at.id, result: connection.results.get(at.id), results: connection.results };
  }

  private resultCloseFrame(frame: RequestFrame, resultSetId: number): RequestFrame {
    return {
      messageType: MessageType.RESULT_CLOSE, requestId: frame.requestId,
      body: requestBody(8, this.options.messageBytesMax, (writer) => writer.varuint(resultSetId)),
    };
  }

  // ---- GroupRoutes ----------------------------------------------------------------------------

  groupOf(containerName: string): number {
    const { partitionNum } = this.options;
    return partitionGroupOf(containerPartitionId(containerName, partitionNum),
      { partitionNum, concurrency: this.runners.length });
  }

  runIn(groupIndex: number, connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    return this.runners[groupIndex]!.run(connectionId, frame);
  }

  check(groupIndex: number, connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    return this.runners[groupIndex]!.check(connectionId, frame);
  }

  reply(frame: RequestFrame, write: (writer: ByteWriter) => void): RunOutcome {
    try {
      return { bytes: encodeFrame(replyHeader(frame), write, this.options.messageBytesMax) };
    } catch (error) {
      if (!isStorageError(error)) throw error;
      return { bytes: errorFrame(frame, error) };
    }
  }
}
