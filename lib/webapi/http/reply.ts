// Writing answers: JSON text the routes build themselves (rows are written value by value,
// codec/value-encode.ts), with GridDB's content type.

import type { FastifyReply } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { errorBody, type WebApiError } from '../errors/webapi-error.ts';

export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

export function sendJsonText(reply: FastifyReply, status: number, text: string | Buffer):
  FastifyReply {
  return reply.code(status).type(JSON_CONTENT_TYPE).send(text);
}

export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return sendJsonText(reply, status, JSON.stringify(value));
}

/** An answer without a body (201, 204, the connection check's 200): Content-Length 0. */
export function sendEmpty(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).header('content-length', '0').send();
}

export function sendError(reply: FastifyReply, error: WebApiError): FastifyReply {
  if (error.retryAfterS !== undefined) reply.header('retry-after', String(error.retryAfterS));
  return sendJson(reply, error.status, errorBody(error));
}

/** The raw HTTP/1.1 text of an error answer, for a socket the framework has not parsed. */
export function rawErrorResponse(error: WebApiError): string {
  const body = JSON.stringify(errorBody(error));
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
    'Connection: close\r\n' +
    `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
    body;
}
