// One request's share of the body budget (body-budget.ts), from its onRequest hook to its end:
//
//   onRequest   reserve: Content-Length, or the route's limit for a chunked body; wait in turn
//               (body unread), or 503; nothing for a body the route streams (the row PUTs),
//               for no body, for a declared size over the limit (413 before reading) or a
//               media type no route takes (415)
//   preParsing  the body is taken: from now on a parsed copy of it may be alive
//   body ended  shrink to the bytes received
//   released    when the response has closed (sent, or the connection gone: error, client
//               abort, timeout) and, once the body was taken, the route has answered: a route
//               still working on a parsed body after its client left keeps holding it
//
// The state lives beside the request (a WeakMap), so a request the framework drops costs nothing.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import type { BodyBudget, Reservation } from './body-budget.ts';
import type { RouteConfig } from './route-table.ts';

interface Hold {
  reservation: Reservation | undefined;
  taken: boolean;
  answered: boolean;
  closed: boolean;
}

const holds = new WeakMap<FastifyRequest, Hold>();

/** Reserves the request's body in `budget`, waiting in turn; throws the 503 when refused. */
export async function requestBodyReserve(request: FastifyRequest, reply: FastifyReply,
  budget: BodyBudget, settings: WebApiSettings): Promise<void> {
  const sizeBytes = requestBodySizeBytes(request, settings);
  if (sizeBytes === 0) return;
  const hold: Hold = { reservation: undefined, taken: false, answered: false, closed: false };
  holds.set(request, hold);
  // Made only for a request that waits: an AbortSignal, and the DOMException of its abort at
  // every close, cost more than the rest of a small request's admission.
  let waiting: AbortController | undefined;
  reply.raw.once('close', () => {
    hold.closed = true;
    waiting?.abort();
    holdEnd(hold);
  });
  hold.reservation = budget.tryReserve(sizeBytes);
  if (hold.reservation !== undefined) return;
  waiting = new AbortController();
  hold.reservation = await budget.reserve(sizeBytes, waiting.signal);
  waiting = undefined;
  // The connection may have closed in the same turn as the admission.
  if (hold.closed) holdEnd(hold);
}

/** The body parsers start reading (a fastify preParsing hook). */
export function requestBodyTaken(request: FastifyRequest): void {
  const hold = holds.get(request);
  if (hold !== undefined) hold.taken = true;
}

/** The whole body has arrived: `sizeBytes` of it. */
export function requestBodyEnded(request: FastifyRequest, sizeBytes: number): void {
  holds.get(request)?.reservation?.shrinkTo(sizeBytes);
}

/** The route (or an error handler) answers (a fastify onSend hook). */
export function requestAnswered(request: FastifyRequest): void {
  const hold = holds.get(request);
  if (hold === undefined) return;
  hold.answered = true;
  holdEnd(hold);
}

function holdEnd(hold: Hold): void {
  if (!hold.closed) return;
  if (hold.taken && !hold.answered) return;
  hold.reservation?.release();
}

/**
 * Bytes to reserve: 0 when the body will not be held whole or is refused before it is read.
 * The media types are those of webapi-server.ts's body parsers.
 */
function requestBodySizeBytes(request: FastifyRequest, settings: WebApiSettings): number {
  if ((request.routeOptions.config as Partial<RouteConfig>).streamBody === true) return 0;
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const limitBytes = mediaType === 'application/json' ? settings.requestJsonBodySizeBytesMax
    : mediaType === 'multipart/form-data' ? settings.requestBodySizeBytesMax : 0;
  const declared = request.headers['content-length'];
  if (declared !== undefined) {
    const declaredBytes = Number(declared);
    return Number.isSafeInteger(declaredBytes) && declaredBytes <= limitBytes ? declaredBytes : 0;
  }
  return request.headers['transfer-encoding'] === undefined ? 0 : limitBytes;
}
