// The web API service: fastify on `server.address`:`server.port`, the routes of
// spec/surface.md §1 under `/store/v2/<cluster>/dbs/<database>/` (and GridDB's `/griddb/v2/...`:
// settings `basePath`), and the client stores it talks
// to the cluster with. Every answer that is not a success carries GridDB's error body
// (errors/webapi-error.ts), including the framework's own: a body that is not JSON, a media type
// no route takes (415), a body over the size limit (413), an unknown path (404), a known path
// with another method (405), a request the HTTP parser refuses (400), an `Expect` it cannot meet
// (417), a request not received within `requestBodyTimeout` (408).
//
// Memory per request is bounded before the body is read: http/request-guard.ts checks the route,
// the charset and the credentials first and answers with the connection closed; JSON bodies stop
// at `maxRequestBodySize` bytes (413), multipart uploads at `spring.servlet.multipart.*`; the row
// PUTs read their bodies as they arrive (routes/rows-put.ts). The bodies held whole by all
// requests together stay within `maxTotalRequestBodySize` (http/body-budget.ts: a request waits
// for room with its body unread, or is answered 503), and the connections within
// `maxConnections` (Node's server closes the ones past it as it accepts them).
//
//   const server = await WebApiServer.start({ repository, settings, logger });
//   server.port   // where it listens
//   await server.close();   // stops accepting, lets requests finish, closes the client stores

import { Buffer } from 'node:buffer';
import Fastify, {
  LogController, type FastifyInstance, type FastifyReply, type FastifyRequest,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { assert } from '../base/assert.ts';
import type { Repository } from './config/repository.ts';
import type { WebApiSettings } from './config/webapi-settings.ts';
import {
  WEBAPI_BUSY_RETRY_AFTER_S, WEBAPI_CLOSE_LINGER_MS, WEBAPI_STORE_POOL_SIZE_MAX, WEBAPI_TIMEOUT_CHECK_INTERVAL_MS_MAX,
} from '../base/limits.ts';
import { parseJsonBody } from './codec/json-body.ts';
import { readBodyText } from './codec/body-text.ts';
import { bodyTooLarge } from './codec/json-stream.ts';
import { RowsPutScratchPool } from './codec/rows-put-scratch.ts';
import { webApiErrorOf } from './errors/error-mapping.ts';
import { errorBody, WebApiError } from './errors/webapi-error.ts';
import { BodyBudget } from './http/body-budget.ts';
import { multipartBoundary } from './http/multipart.ts';
import { JSON_CONTENT_TYPE, rawErrorResponse, sendError } from './http/reply.ts';
import type { WebApiDependencies } from './http/request-context.ts';
import {
  requestAnswered, requestBodyEnded, requestBodyTaken,
} from './http/request-body-hold.ts';
import { requestGuard, routeMissing } from './http/request-guard.ts';
import { RouteTable, type RouteConfig } from './http/route-table.ts';
import { StorePool, type LocalCluster } from './http/store-pool.ts';
import { mappingErrorMessage } from './routes/body-schemas.ts';
import { checkConnectionRoutes } from './routes/check-connection.ts';
import { containerRoutes } from './routes/containers.ts';
import { multiRowRoutes } from './routes/multi-rows.ts';
import { blobRowRoutes } from './routes/rows-blob.ts';
import { rowRoutes } from './routes/rows.ts';
import { sqlRoutes } from './routes/sql.ts';
import { tqlRoutes } from './routes/tql.ts';

export interface WebApiServerOptions {
  repository: Repository;
  settings: WebApiSettings;
  logger: Logger;
  /** The cluster of the node this web API runs inside, if it does (lib/node/node-webapi.ts). */
  localCluster?: LocalCluster;
}

/** Longest path parameter (a container name); the node refuses longer names anyway. */
const PATH_PARAMETER_LENGTH_MAX = 16 * 1024;
/** Node's own limit for the headers of a request; a shorter body timeout lowers it. */
const HEADERS_TIMEOUT_MS_MAX = 60_000;

export class WebApiServer {
  private constructor(
    private readonly app: FastifyInstance,
    private readonly pool: StorePool,
    private readonly bodyBudget: BodyBudget,
    readonly address: string,
    readonly port: number,
  ) {}

  /** Body bytes reserved by requests now (`maxTotalRequestBodySize` at most). */
  get bodyBytesHeld(): number {
    return this.bodyBudget.heldBytes;
  }

  /** Requests waiting for room for their body (`maxQueuedRequests` at most). */
  get requestsWaiting(): number {
    return this.bodyBudget.waitingCount;
  }

  static async start(options: WebApiServerOptions): Promise<WebApiServer> {
    const { settings, logger } = options;
    const pool = new StorePool(settings, WEBAPI_STORE_POOL_SIZE_MAX, options.localCluster);
    const bodyBudget = new BodyBudget({
      totalBytes: settings.totalRequestBodySizeBytesMax,
      queueLengthMax: settings.queuedRequestCountMax,
      // The other half of requestBodyTimeout is left for the body to arrive once admitted.
      waitMsMax: settings.requestBodyTimeoutS * 1000 / 2,
      retryAfterS: WEBAPI_BUSY_RETRY_AFTER_S,
    });
    const app = buildApp(options, pool, bodyBudget);
    try {
      await app.listen({ host: settings.address, port: settings.port });
    } catch (error) {
      await pool.close();
      await app.close().catch(() => undefined);
      throw error;
    }
    const address = app.server.address();
    assert(address !== null && typeof address === 'object');
    logger.info({ address: address.address, port: address.port }, 'web API listening');
    return new WebApiServer(app, pool, bodyBudget, address.address, address.port);
  }

  /** Stops listening; requests under way finish; then the client stores close. */
  async close(): Promise<void> {
    await this.app.close();
    await this.pool.close();
  }
}

function buildApp(options: WebApiServerOptions, pool: StorePool, bodyBudget: BodyBudget):
  FastifyInstance {
  const { settings, logger } = options;
  const requestTimeoutMs = settings.requestBodyTimeoutS * 1000;
  const app = Fastify({
    loggerInstance: logger,
    // One line per request would cost more than a batch of rows; failures are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is the server's logger itself, not a pino child per request (about 8 µs of a
    // small request's CPU in a profile); the lines that log a request name it (replyError).
    childLoggerFactory: (serverLogger) => serverLogger,
    // Multipart uploads; JSON bodies have their own, smaller limit (bodyParsers).
    bodyLimit: settings.requestBodySizeBytesMax,
    // Node closes a request not wholly received in time (408, clientError below).
    requestTimeout: requestTimeoutMs,
    http: {
      maxHeaderSize: settings.httpHeaderSizeBytesMax,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS_MAX, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(WEBAPI_TIMEOUT_CHECK_INTERVAL_MS_MAX,
        Math.ceil(requestTimeoutMs / 4)),
      // Node's answer to a missing Host is a bare 400; request-guard.ts gives the error body.
      requireHostHeader: false,
    },
    routerOptions: { maxParamLength: PATH_PARAMETER_LENGTH_MAX },
    return503OnClosing: false,
    // verbose: an error carries its schema, so an unknown member's answer lists the known ones.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false,
      verbose: true } },
    schemaErrorFormatter: (errors) => {
      const first = errors[0];
      return new Error(first === undefined ? 'Mapping JSON data error'
        : mappingErrorMessage(first.instancePath, first.params,
          (first as { parentSchema?: unknown }).parentSchema));
    },
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, webApiErrorOf(error).error);
    },
    clientErrorHandler: (error, socket) => clientError(error, socket, settings),
  }) as unknown as FastifyInstance;
  app.server.on('checkExpectation', expectationFailed);
  app.server.maxConnections = settings.connectionCountMax;
  bodyParsers(app, settings);
  app.setErrorHandler((error, request, reply) => replyError(error, request, reply));
  const table = new RouteTable(app, settings.basePaths);
  app.setNotFoundHandler((request, reply) => sendError(reply, routeMissing(table, request)));
  const dependencies: WebApiDependencies = {
    repository: options.repository, settings, pool, bodyBudget,
    rowsPutScratch: new RowsPutScratchPool(),
  };
  app.addHook('onRequest', requestGuard(table, dependencies));
  app.addHook('preParsing', (request, _reply, payload, done) => {
    requestBodyTaken(request);
    done(null, payload);
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    requestAnswered(request);
    done(null, payload);
  });
  checkConnectionRoutes(table, dependencies);
  containerRoutes(table, dependencies);
  rowRoutes(table, dependencies);
  blobRowRoutes(table, dependencies);
  multiRowRoutes(table, dependencies);
  tqlRoutes(table, dependencies);
  sqlRoutes(table, dependencies);
  return app;
}

/**
 * JSON (LONG-exact, codec/json-body.ts) up to `maxRequestBodySize` bytes, handed to the routes that
 * stream (RouteConfig) as the request's stream; multipart up to its own limit; any other type is
 * a 415.
 */
function bodyParsers(app: FastifyInstance, settings: WebApiSettings): void {
  app.removeAllContentTypeParsers();
  const limitBytes = settings.requestJsonBodySizeBytesMax;
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const declaredBytes = Number(request.headers['content-length'] ?? 0);
    if (declaredBytes > limitBytes) {
      done(bodyTooLarge(limitBytes), undefined);
      return;
    }
    if ((request.routeOptions.config as Partial<RouteConfig>).streamBody === true) {
      done(null, payload);
      return;
    }
    const lengthDeclared = request.headers['content-length'] !== undefined;
    readBodyText(payload, limitBytes, lengthDeclared).then((text) => {
      requestBodyEnded(request, Buffer.byteLength(text));
      // An empty body is no body: the route says what it misses, in its own words.
      done(null, text.trim() === '' ? undefined : parseJsonBody(text));
    }, (error: Error) => done(error, undefined)).catch((error: unknown) =>
      done(error as Error, undefined));
  });
  app.addContentTypeParser('multipart/form-data',
    { parseAs: 'buffer', bodyLimit: settings.requestBodySizeBytesMax },
    (request, body, done) => {
      if (multipartBoundary(request.headers['content-type']) === undefined) {
        done(new WebApiError(400, 'multipart/form-data without a boundary'), undefined);
        return;
      }
      requestBodyEnded(request, body.length);
      done(null, body);
    });
}

/** `Expect` other than 100-continue: 417 with the error body (Node's own has none). */
function expectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify(errorBody(new WebApiError(417,
    `Expectation '${String(request.headers.expect).slice(0, 100)}' is not supported`)));
  response.writeHead(417, { 'content-type': JSON_CONTENT_TYPE, 'connection': 'close',
    'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function replyError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const mapped = webApiErrorOf(error);
  if (mapped.internal) {
    request.log.error({ err: error, reqId: request.id, method: request.method, url: request.url },
      'request failed on a bug');
  } else if (mapped.error.status >= 500) {
    request.log.warn({ reqId: request.id, method: request.method, url: request.url,
      errorCode: mapped.error.errorCode, message: mapped.error.message }, 'request failed');
  }
  // A body left unread is not read: the connection closes after the answer.
  if (!request.raw.complete) closeAfterAnswer(reply);
  return sendError(reply, mapped.error);
}

/**
 * Closes the connection once the answer is sent, lingering WEBAPI_CLOSE_LINGER_MS for the client
 * to read it: Node would destroy the socket at once, and the unread body would turn the close
 * into a reset that can take the answer with it. What arrives meanwhile is dropped.
 */
function closeAfterAnswer(reply: FastifyReply): void {
  reply.header('connection', 'close');
  const socket = reply.raw.socket;
  if (socket === null) return;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), WEBAPI_CLOSE_LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

/**
 * A request the HTTP parser refused (bad or too large headers: 400), or one not received within
 * `requestBodyTimeout` (408): the error body and close, unless an answer has begun already.
 */
function clientError(error: Error & { code?: string }, socket: Socket, settings: WebApiSettings):
  void {
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  const answer = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? new WebApiError(408, `Request was not received within ${settings.requestBodyTimeoutS} s ` +
      '(requestBodyTimeout)')
    : new WebApiError(400, error.code === 'HPE_HEADER_OVERFLOW' ? 'Request header is too large'
      : `Bad request: ${error.code ?? error.message}`);
  socket.end(rawErrorResponse(answer), () => socket.destroy());
}
