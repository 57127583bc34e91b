// Manual transactions: switch a container handle of a manual session between auto-commit and
// manual commit, commit, abort. The engine owns the transactions (lib/engine/session.ts);
// session 0, the connection's auto-commit session, has none. LOG_SYNC syncs the xlog of a
// container's partition (GridDB's gsFlush).

import {
  ABORT, COMMIT, LOG_SYNC, SET_AUTO_COMMIT,
} from '../protocol/messages-transaction.ts';
import { containerFind, containerGet } from './container-lookup.ts';
import { sessionContainerKey, writeOnce } from './handlers-rows.ts';
import { EMPTY_REPLY, handler, type DispatchEntry } from './request-handler.ts';

export const TRANSACTION_HANDLERS: readonly DispatchEntry[] = [
  handler(SET_AUTO_COMMIT, (request, context) =>
    writeOnce(context, SET_AUTO_COMMIT.type, request.statement, async (transactional) => {
      const session = context.sessions.getManual(request.statement.sessionId);
      const entry = containerGet(context, request.ref);
      const handle = session.container(entry.schema.name);
      // Turning auto-commit off is what makes the session's later writes transactional.
      if (!request.enabled) transactional(true);
      await handle.setAutoCommit(request.enabled);
      return EMPTY_REPLY;
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(COMMIT, (request, context) =>
    writeOnce(context, COMMIT.type, request.statement, async () => {
      const session = context.sessions.getManual(request.statement.sessionId);
      const entry = containerGet(context, request.ref);
      await session.container(entry.schema.name).commit();
      return EMPTY_REPLY;
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(ABORT, (request, context) =>
    writeOnce(context, ABORT.type, request.statement, async () => {
      const session = context.sessions.getManual(request.statement.sessionId);
      const entry = containerFind(context, request.ref);
      if (entry !== undefined) await session.container(entry.schema.name).abort();
      return EMPTY_REPLY;
    }),
  (request) => sessionContainerKey(request.statement.sessionId, request.ref.name)),

  handler(LOG_SYNC, async (ref, context) => {
    const entry = containerGet(context, ref);
    await context.store.syncPartitionLog(entry.schema.name);
    return EMPTY_REPLY;
  }),
];
