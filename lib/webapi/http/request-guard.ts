// What every request passes before any byte of its body is read (a fastify onRequest hook), so
// that a caller who may not use the web API costs it a few headers, not a body:
//   HTTP/1.1 without Host                   400
//   no route for the path / the method      404 / 405
//   a charset other than UTF-8              415 (the body would be read wrongly otherwise)
//   credentials missing, malformed, wrong   401; the cluster or database unknown 400; the node
//                                           unreachable 500 (request-context.ts, store-pool.ts)
//   no room for a body read whole           wait in turn, or 503 with Retry-After
//                                           (request-body-hold.ts)
// An answer given here closes the connection (webapi-server.ts), so the body is never read.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebApiError } from '../errors/webapi-error.ts';
import { requestBodyReserve } from './request-body-hold.ts';
import { requestAuthenticate, type WebApiDependencies } from './request-context.ts';
import type { RouteTable } from './route-table.ts';

/** `charset=` of a Content-Type that the web API reads; any other is 415. */
const CHARSETS_READ = new Set(['utf-8', 'utf8']);
/** Characters of a request path quoted in a 404 message, at most. */
const PATH_QUOTED_LENGTH_MAX = 200;

export function requestGuard(table: RouteTable, dependencies: WebApiDependencies) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      reply.header('connection', 'close');
      throw new WebApiError(400, 'Host header is required in HTTP/1.1');
    }
    if (request.is404) throw routeMissing(table, request);
    charsetCheck(request.headers['content-type']);
    await requestAuthenticate(request, dependencies);
    await requestBodyReserve(request, reply, dependencies.bodyBudget, dependencies.settings);
  };
}

/** 405 for a known path asked with another method (GridDB's answer), 404 otherwise. */
export function routeMissing(table: RouteTable, request: FastifyRequest): WebApiError {
  const methods = table.methodsOf(request.url);
  if (methods !== undefined && !methods.has(request.method)) {
    return new WebApiError(405, `Request method '${request.method}' not supported`);
  }
  return new WebApiError(404, `No route for ${request.method} ` +
    request.url.split('?')[0]!.slice(0, PATH_QUOTED_LENGTH_MAX));
}

/** 415 for a `charset` parameter the web API does not read. */
export function charsetCheck(contentType: string | undefined): void {
  if (contentType === undefined) return;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]*))/i.exec(contentType);
  if (match === null) return;
  const charset = (match[1] ?? match[2] ?? '').toLowerCase();
  if (!CHARSETS_READ.has(charset)) {
    throw new WebApiError(415, `Unsupported charset '${charset.slice(0, 40)}' in Content-Type: ` +
      'request bodies are read as UTF-8 only');
  }
}
