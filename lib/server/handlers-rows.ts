// Row requests: put, get, remove on one container, and put/get across containers. Rows and keys
// are decoded only after the container is found and its schema matches the one the client
// encoded with (container-lookup.ts); then the engine's container handle of the request's session
// does the work, so auto-commit, transactions, locks and validation are the engine's.
//
// A write in a manual transaction holds only while its session is open: its statement outcome
// says so (statement-results.ts), so a retry after the connection broke learns that the
// transaction is gone instead of being told that the lost write succeeded.

import { assert } from '../base/assert.ts';
import { normalizeName } from '../schema/names.ts';
import type { Row } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { ContainerHandle } from '../engine/session.ts';
import type { MessageType } from '../protocol/message-types.ts';
import {
  MULTI_GET, MULTI_PUT, ROW_GET, ROW_GET_FOR_UPDATE, ROW_PUT, ROW_PUT_EXISTED, ROW_REMOVE,
  type MultiPutRequest, type RowPredicate,
} from '../protocol/messages-row.ts';
import { AUTO_COMMIT_SESSION_ID, type Statement } from '../protocol/wire-refs.ts';
import { RowBatch } from '../protocol/wire-rows.ts';
import { containerKeyed, containerWithSchema } from './container-lookup.ts';
import {
  EMPTY_REPLY, handler, statementKey, type ConnectionContext, type DispatchEntry,
} from './request-handler.ts';
import type { OutcomeValidity } from './statement-results.ts';

/**
 * The fault hook (ConnectionContext.faultAssertOnContainer, a testing aid inert when unset): a put
 * into the named container fails here as a broken invariant would, through the same path.
 */
function faultAssertOnPut(context: ConnectionContext, name: string): void {
  const doomed = context.faultAssertOnContainer;
  if (doomed === undefined) return;
  assert(normalizeName(name) !== normalizeName(doomed),
    `injected fault (STORE_FAULT_ASSERT_ON): a put into "${name}"`);
}

/** Requests of one session on one container keep their order. */
export function sessionContainerKey(sessionId: number, name: string): string {
  return `${sessionId}/${normalizeName(name)}`;
}

export const ROW_HANDLERS: readonly DispatchEntry[] = [
  handler(ROW_PUT, (request, context) =>
    writeOnce(context, ROW_PUT.type, request.statement, async (transactional) => {
      const session = context.sessions.get(request.statement.sessionId);
      const entry = containerWithSchema(context, request.ref);
      const rows = request.rows.decode(entry.schema);
      const handle = session.container(entry.schema.name);
      transactional(!handle.isAutoCommit);
      faultAssertOnPut(context, entry.schema.name);
      await handle.multiPut(rows);
      return EMPTY_REPLY;
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(ROW_PUT_EXISTED, (request, context) =>
    writeOnce(context, ROW_PUT_EXISTED.type, request.statement, async (transactional) => {
      const session = context.sessions.get(request.statement.sessionId);
      const entry = containerWithSchema(context, request.ref);
      const [row] = request.rows.decode(entry.schema);
      const handle = session.container(entry.schema.name);
      transactional(!handle.isAutoCommit);
      faultAssertOnPut(context, entry.schema.name);
      return handle.putRow(row!);
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(ROW_GET, async (request, context) => {
    const session = context.sessions.get(request.sessionId);
    const entry = containerKeyed(containerWithSchema(context, request.ref));
    const [key] = request.keys.decode(entry.schema);
    const row = await session.container(entry.schema.name).get(key!);
    return RowBatch.of(entry.schema, row === undefined ? [] : [row]);
  },
  (request) => sessionContainerKey(request.sessionId, request.ref.name)),

  handler(ROW_GET_FOR_UPDATE, async (request, context) => {
    const session = context.sessions.getManual(request.sessionId);
    const entry = containerKeyed(containerWithSchema(context, request.ref));
    const [key] = request.keys.decode(entry.schema);
    const row = await session.container(entry.schema.name).getForUpdate(key!);
    return RowBatch.of(entry.schema, row === undefined ? [] : [row]);
  },
  (request) => sessionContainerKey(request.sessionId, request.ref.name)),

  handler(ROW_REMOVE, (request, context) =>
    writeOnce(context, ROW_REMOVE.type, request.statement, async (transactional) => {
      const session = context.sessions.get(request.statement.sessionId);
      const entry = containerKeyed(containerWithSchema(context, request.ref));
      const [key] = request.keys.decode(entry.schema);
      const handle = session.container(entry.schema.name);
      transactional(!handle.isAutoCommit);
      return handle.remove(key!);
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(MULTI_PUT, (request, context) =>
    writeOnce(context, MULTI_PUT.type, request.statement, async (transactional) => {
      const session = context.sessions.get(request.statement.sessionId);
      // Every container's rows are decoded before any is written: a malformed request writes none.
      const puts = multiPutDecode(request, context);
      for (const put of puts) {
        const handle = session.container(put.name);
        transactional(!handle.isAutoCommit);
        faultAssertOnPut(context, put.name);
        await handle.multiPut(put.rows);
      }
      return EMPTY_REPLY;
    })),

  handler(MULTI_GET, async (request, context) => {
    const session = context.sessions.get(request.sessionId);
    const batches: RowBatch[] = [];
    for (const { ref, predicate } of request.entries) {
      const entry = containerKeyed(containerWithSchema(context, ref));
      const handle = session.container(entry.schema.name);
      const rows = await predicateRows(handle, entry.schema, predicate);
      batches.push(RowBatch.of(entry.schema, rows));
    }
    return batches;
  }),
];

function multiPutDecode(request: MultiPutRequest, context: ConnectionContext) {
  return request.entries.map(({ ref, rows }) => {
    const entry = containerWithSchema(context, ref);
    return { name: entry.schema.name, rows: rows.decode(entry.schema) };
  });
}

/**
 * What MULTI_PUT checks before it writes anything (the session, every container and schema, every
 * row's bytes), without writing: throws what the MULTI_PUT would. A statement already answered
 * passes, as its retry would be answered. The node checks a multi-put whose containers live in
 * several engine threads in each of them before any writes (routing-request-runner.ts).
 */
export function multiPutCheck(request: MultiPutRequest, context: ConnectionContext): void {
  if (context.statements.answers(statementKey(context, MULTI_PUT.type, request.statement))) return;
  context.sessions.get(request.statement.sessionId);
  multiPutDecode(request, context);
}

/**
 * Runs a write statement once per statement id. `run` reports, before each write, whether it
 * writes into a manual transaction; such a write makes the outcome die with its session.
 */
export function writeOnce<T>(
  context: ConnectionContext,
  messageType: MessageType,
  statement: Statement,
  run: (transactional: (manual: boolean) => void) => Promise<T>,
): Promise<T> {
  const validity = new SessionOutcomeValidity(context.sessions, statement.sessionId);
  return context.statements.once(
    statementKey(context, messageType, statement),
    () => run((manual) => validity.written(manual)),
    validity);
}

/**
 * Whether a write's outcome still holds: always, unless the write went into a manual transaction,
 * then while its session is open. The statement table keeps it beside a manual write's outcome (an
 * object, not a closure beside `run`, which kept the request, rows and bytes, with it).
 */
class SessionOutcomeValidity implements OutcomeValidity {
  private diesWithSession = false;

  constructor(
    private readonly sessions: ConnectionContext['sessions'],
    private readonly sessionId: number,
  ) {}

  /** Before each write: whether it goes into a manual transaction. */
  written(manual: boolean): void {
    if (manual && this.sessionId !== AUTO_COMMIT_SESSION_ID) this.diesWithSession = true;
  }

  holds(): boolean {
    return !this.diesWithSession || this.sessions.isOpen(this.sessionId);
  }

  /** An auto-commit write's outcome holds for good: the table then keeps no validity for it. */
  holdsForGood(): boolean {
    return !this.diesWithSession;
  }
}

async function predicateRows(
  handle: ContainerHandle,
  schema: ContainerSchema,
  predicate: RowPredicate,
): Promise<Row[]> {
  if (predicate.kind === 'keys') {
    const rows: Row[] = [];
    for (const key of predicate.keys.decode(schema)) {
      const row = await handle.get(key);
      if (row !== undefined) rows.push(row);
    }
    return rows;
  }
  const [start] = predicate.start.decode(schema);
  const [finish] = predicate.finish.decode(schema);
  const range: Parameters<ContainerHandle['scan']>[0] = {};
  if (start !== undefined) range.from = start;
  if (finish !== undefined) range.to = finish;
  if (predicate.limit > 0) range.limit = predicate.limit;
  return handle.scan(range);
}
