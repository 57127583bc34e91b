// Query requests: QUERY runs the node's query handler (query-handler.ts) in the request's session
// and returns the first page; FETCH pages on; RESULT_CLOSE lets go early (result-sets.ts).

import { FETCH, QUERY, RESULT_CLOSE } from '../protocol/messages-query.ts';
import { AUTO_COMMIT_SESSION_ID } from '../protocol/wire-refs.ts';
import { containerGet } from './container-lookup.ts';
import { sessionContainerKey } from './handlers-rows.ts';
import { handler, type DispatchEntry } from './request-handler.ts';

const resultKey = (request: { resultSetId: number }) => `result/${request.resultSetId}`;

export const QUERY_HANDLERS: readonly DispatchEntry[] = [
  handler(QUERY, async (request, context) => {
    const session = context.sessions.get(request.sessionId);
    const entry = containerGet(context, request.ref);
    const result = await context.queryHandler({
      session,
      containerName: entry.schema.name,
      schema: entry.schema,
      container: session.container(entry.schema.name),
      tql: request.tql,
      fetchSize: request.fetchSize,
      partialExecution: request.partialExecution,
      forUpdate: request.forUpdate,
      rowLimit: request.rowLimit,
      sampling: request.sampling,
    });
    return context.resultSets.first(result, request.fetchSize);
  },
  // In a manual session a query follows the writes before it (it reads the transaction); in the
  // auto-commit session it runs beside them, so a long query holds up no write.
  (request) => (request.sessionId === AUTO_COMMIT_SESSION_ID
    ? undefined : sessionContainerKey(request.sessionId, request.ref.name))),

  handler(FETCH, (request, context) =>
    context.resultSets.fetch(request.resultSetId, request.fetchSize), resultKey),

  handler(RESULT_CLOSE, async (request, context) => {
    context.resultSets.close(request.resultSetId);
    return {};
  }, resultKey),
];
