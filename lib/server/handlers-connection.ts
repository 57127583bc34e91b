// Requests about the connection itself once it is authenticated: PING, and opening and closing
// manual sessions (connection-sessions.ts).

import { PING, SESSION_CLOSE, SESSION_OPEN } from '../protocol/messages-connection.ts';
import { handler, type DispatchEntry } from './request-handler.ts';

export const CONNECTION_HANDLERS: readonly DispatchEntry[] = [
  handler(PING, async () => ({})),
  handler(SESSION_OPEN, async (request, context) =>
    ({ sessionId: context.sessions.open(request.transactionTimeoutMs).id })),
  handler(SESSION_CLOSE, async (request, context) => {
    context.sessions.close(request.sessionId);
    return {};
  }),
];
