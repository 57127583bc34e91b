// GET (and HEAD) /checkConnection: 200 with an empty body when the node answers a round trip
// with these credentials. `timeout` is in milliseconds, as GridDB's code reads it (its
// documentation says seconds, spec/surface.md §1.6.1 ⚠): ≤ 0 → 400 `Timeout must be greater
// than 0`, above 10000 → 400 `Cannot wait that long`, no answer within it → 500
// `Exceeded timeout`. Unlike GridDB, which sleeps the whole timeout, the answer comes as soon as the node does.

import { WEBAPI_CHECK_CONNECTION_TIMEOUT_MS_MAX } from '../../base/limits.ts';
import { badRequest, WebApiError } from '../errors/webapi-error.ts';
import { requestContext, type WebApiDependencies } from '../http/request-context.ts';
import { sendEmpty } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import { queryInteger } from './query-parameters.ts';

export function checkConnectionRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('GET', '/checkConnection', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const timeoutMs = queryInteger(request.query, 'timeout');
    if (timeoutMs !== undefined && timeoutMs <= 0) {
      throw badRequest('Timeout must be greater than 0');
    }
    if (timeoutMs !== undefined && timeoutMs > WEBAPI_CHECK_CONNECTION_TIMEOUT_MS_MAX) {
      throw badRequest('Cannot wait that long');
    }
    const round = context.use((store) => store.connect());
    if (timeoutMs === undefined) {
      await round;
    } else {
      await withTimeout(round, timeoutMs);
    }
    return sendEmpty(reply, 200);
  });
}

async function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WebApiError(500, 'Exceeded timeout')), timeoutMs);
  });
  // The round trip may still fail after the timeout has answered; nobody waits for it then.
  work.catch(() => undefined);
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
