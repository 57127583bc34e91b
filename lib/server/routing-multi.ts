// The requests that span partition groups, as the routing runner (routing-request-runner.ts) splits
// them over the engine threads and puts their answers back together, so that the client gets the
// reply one engine of every group would give:
//
//   CONTAINER_LIST  every thread lists its names (at most offset + limit of them: a page of the
//                   merged order is within the first offset + limit of each thread's sorted
//                   names); the names are merged, sorted and paged here, total summed.
//   MULTI_GET       a sub-request per thread with its containers, at once; the row batches go
//                   back in request order. When one fails, the entries run again one at a time in
//                   request order (reads change nothing), so the error is the first entry's that
//                   fails, as one engine would report it.
//   MULTI_PUT       first every thread checks its containers (session, containers, schemas, row
//                   bytes: handlers-rows.ts multiPutCheck) without writing, so a request that one
//                   engine would refuse before writing writes nowhere; then each thread writes
//                   its containers, one thread after another in the order of their first
//                   container, stopping at the first failure. Every sub-request carries the
//                   request's statement id, so a retry is answered by each thread once.
//   SQL_CANCEL      every thread looks for the query id among its running statements (the ids
//                   are unique across threads); cancelled when one of them had it.
//
// A request whose containers all live in one group goes to its thread untouched. Bodies are read
// at once (a frame's body is valid only during run()); what is sent later is a copy.

import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { decodeBody } from '../protocol/message-codec.ts';
import { CONTAINER_LIST } from '../protocol/messages-container.ts';
import {
  MULTI_GET, MULTI_PUT, type MultiGetRequest, type MultiPutRequest,
} from '../protocol/messages-row.ts';
import { SQL_CANCEL } from '../protocol/messages-sql.ts';
import type { RowBatch } from '../protocol/wire-rows.ts';
import type { RequestFrame } from './reply-frames.ts';
import type { RunOutcome } from './request-runner.ts';
import {
  firstFailure, isReply, replyBody, requestBody, requestWithBody,
} from './routing-frames.ts';

/** What the split requests need of the routing runner. */
export interface GroupRoutes {
  readonly groupCount: number;
  readonly messageBytesMax: number;
  groupOf(containerName: string): number;
  runIn(groupIndex: number, connectionId: number, frame: RequestFrame): Promise<RunOutcome>;
  /** MULTI_PUT's checks without its writes, in one group's thread. */
  check(groupIndex: number, connectionId: number, frame: RequestFrame): Promise<RunOutcome>;
  /** The reply to `frame` with the body `write` writes (an error reply when too large). */
  reply(frame: RequestFrame, write: (writer: ByteWriter) => void): RunOutcome;
}

/** The names of every group, sorted, paged as one engine pages them. */
export async function containerListRouted(
  routes: GroupRoutes,
  connectionId: number,
  frame: RequestFrame,
): Promise<RunOutcome> {
  let request: ReturnType<typeof CONTAINER_LIST.readRequest>;
  try {
    request = decodeBody(frame.body, CONTAINER_LIST.readRequest, 'CONTAINER_LIST request');
  } catch {
    return routes.runIn(0, connectionId, frame); // it answers the protocol error
  }
  const headCount = request.offset + request.limit;
  const subRequest = {
    offset: 0, limit: request.limit === 0 || !Number.isSafeInteger(headCount) ? 0 : headCount,
  };
  const sub = requestWithBody(frame, requestBody(16, routes.messageBytesMax,
    (writer) => CONTAINER_LIST.writeRequest(writer, subRequest)));
  const outcomes = await Promise.all(groupIndexes(routes).map((g) =>
    routes.runIn(g, connectionId, sub)));
  const failure = firstFailure(outcomes);
  if (failure !== undefined) return failure;
  const replies = outcomes.map((outcome) =>
    decodeBody(replyBody(outcome), CONTAINER_LIST.readReply, 'CONTAINER_LIST reply'));
  const names = replies.flatMap((reply) => reply.names)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const total = replies.reduce((sum, reply) => sum + reply.total, 0);
  const end = request.limit === 0 ? names.length : request.offset + request.limit;
  return routes.reply(frame, (writer) => CONTAINER_LIST.writeReply(writer,
    { total, names: names.slice(request.offset, end) }));
}

export async function multiGetRouted(
  routes: GroupRoutes,
  connectionId: number,
  frame: RequestFrame,
): Promise<RunOutcome> {
  const groups = entryGroups(routes, frame, MULTI_GET.readRequest, 'MULTI_GET request');
  if (groups.only !== undefined) return routes.runIn(groups.only, connectionId, frame);
  // A copy: the sub-requests of the slow path below are written after the first await.
  const request = decodeBody(frame.body.slice(), MULTI_GET.readRequest, 'MULTI_GET request');
  const entryGroup = request.entries.map((entry) => routes.groupOf(entry.ref.name));
  const subFrame = (indexes: readonly number[]) => requestWithBody(frame,
    requestBody(frame.body.byteLength, routes.messageBytesMax, (writer) =>
      MULTI_GET.writeRequest(writer, subRequest(request, indexes))));
  const byGroup = entryIndexesByGroup(entryGroup);
  const firstSubs = [...byGroup].map(([g, indexes]) => ({ g, indexes, sub: subFrame(indexes) }));
  const outcomes = await Promise.all(firstSubs.map(({ g, sub }) =>
    routes.runIn(g, connectionId, sub)));
  const batches: RowBatch[] = new Array<RowBatch>(request.entries.length);
  if (firstFailure(outcomes) === undefined) {
    outcomes.forEach((outcome, s) => {
      const rows = decodeBody(replyBody(outcome), MULTI_GET.readReply, 'MULTI_GET reply');
      firstSubs[s]!.indexes.forEach((entryIndex, i) => (batches[entryIndex] = rows[i]!));
    });
  } else {
    for (let i = 0; i < request.entries.length; i++) {
      const outcome = await routes.runIn(entryGroup[i]!, connectionId, subFrame([i]));
      if (!isReply(outcome)) return outcome;
      batches[i] = decodeBody(replyBody(outcome), MULTI_GET.readReply, 'MULTI_GET reply')[0]!;
    }
  }
  return routes.reply(frame, (writer) => MULTI_GET.writeReply(writer, batches));
}

export async function multiPutRouted(
  routes: GroupRoutes,
  connectionId: number,
  frame: RequestFrame,
): Promise<RunOutcome> {
  const groups = entryGroups(routes, frame, MULTI_PUT.readRequest, 'MULTI_PUT request');
  if (groups.only !== undefined) return routes.runIn(groups.only, connectionId, frame);
  const request = decodeBody(frame.body.slice(), MULTI_PUT.readRequest, 'MULTI_PUT request');
  const entryGroup = request.entries.map((entry) => routes.groupOf(entry.ref.name));
  const subFrame = (indexes: readonly number[]) => requestWithBody(frame,
    requestBody(frame.body.byteLength, routes.messageBytesMax, (writer) =>
      MULTI_PUT.writeRequest(writer, subRequest(request, indexes))));
  // In the order of each group's first container: the order the writes happen in.
  const subs = [...entryIndexesByGroup(entryGroup)]
    .map(([g, indexes]) => ({ g, indexes, sub: subFrame(indexes) }));
  const checks = await Promise.all(subs.map(({ g, sub }) => routes.check(g, connectionId, sub)));
  const failedChecks = checks.filter((outcome) => !isReply(outcome));
  if (failedChecks.length === 1) return failedChecks[0]!;
  if (failedChecks.length > 1) {
    // Which container fails first in request order: one check per container, in order.
    for (let i = 0; i < request.entries.length; i++) {
      const outcome = await routes.check(entryGroup[i]!, connectionId, subFrame([i]));
      if (!isReply(outcome)) return outcome;
    }
    return failedChecks[0]!;
  }
  let outcome: RunOutcome | undefined;
  for (const { g, sub } of subs) {
    outcome = await routes.runIn(g, connectionId, sub);
    if (!isReply(outcome)) return outcome;
  }
  return outcome!;
}

/** Asks every thread to cancel the statement; the answer is whether one did. */
export async function sqlCancelRouted(
  routes: GroupRoutes,
  connectionId: number,
  frame: RequestFrame,
): Promise<RunOutcome> {
  const sub = requestWithBody(frame, frame.body.slice());
  const outcomes = await Promise.all(groupIndexes(routes).map((g) => routes.runIn(g, connectionId, sub)));
  const failure = firstFailure(outcomes);
  if (failure !== undefined) return failure;
  const cancelled = outcomes.some((outcome) =>
    decodeBody(replyBody(outcome), SQL_CANCEL.readReply, 'SQL_CANCEL reply').cancelled);
  return routes.reply(frame, (writer) => SQL_CANCEL.writeReply(writer, { cancelled }));
}

/**
 * Reads a multi-container request to see which groups its containers are in; `only` is set when
 * they are all in one group (or the body is malformed, which group 0 answers).
 */
function entryGroups<T extends MultiGetRequest | MultiPutRequest>(
  routes: GroupRoutes,
  frame: RequestFrame,
  read: (reader: ByteReader) => T,
  what: string,
): { only: number | undefined } {
  let request: T;
  try {
    request = decodeBody(frame.body, read, what);
  } catch {
    return { only: 0 };
  }
  const groups = new Set(request.entries.map((entry) => routes.groupOf(entry.ref.name)));
  if (groups.size > 1) return { only: undefined };
  const [only] = groups;
  return { only: only ?? 0 };
}

/** Entry indexes by group, groups in the order of their first entry. */
function entryIndexesByGroup(entryGroup: readonly number[]): Map<number, number[]> {
  const byGroup = new Map<number, number[]>();
  entryGroup.forEach((g, entryIndex) => {
    const indexes = byGroup.get(g);
    if (indexes === undefined) byGroup.set(g, [entryIndex]);
    else indexes.push(entryIndex);
  });
  return byGroup;
}

function subRequest<T extends MultiGetRequest | MultiPutRequest>(
  request: T,
  indexes: readonly number[],
): T {
  return { ...request, entries: indexes.map((i) => request.entries[i]!) };
}

function groupIndexes(routes: GroupRoutes): number[] {
  return Array.from({ length: routes.groupCount }, (_, g) => g);
}
