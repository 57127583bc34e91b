// The web API service: fastify on `server.address`:`server.port`, the routes of
// spec/surface.md §1 under `/store/v2/<cluster>/dbs/<database>/`, and the client stores it talks
// to the cluster with. Every answer that is not a success carries GridDB's error body
// (errors/webapi-error.ts), including the framework's own: a body that is not JSON, a media type
// no route takes (415), a body over the size limit, an unknown path (404), a known path with
// another method (405), a request the HTTP parser refuses.
//
//   const server = await WebApiServer.start({ repository, settings, logger });
//   server.port   // where it listens
//   await server.close();   // stops accepting, lets requests finish, closes the client stores

import Fastify, {
  LogController, type FastifyInstance, type FastifyReply, type FastifyRequest,
} from 'fastify';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { assert } from '../base/assert.ts';
import type { Repository } from './config/repository.ts';
import type { WebApiSettings } from './config/webapi-settings.ts';
import { parseJsonBody } from './codec/json-body.ts';
import { webApiErrorOf } from './errors/error-mapping.ts';
import { WebApiError } from './errors/webapi-error.ts';
import { multipartBoundary } from './http/multipart.ts';
import { rawErrorResponse, sendError } from './http/reply.ts';
import type { WebApiDependencies } from './http/request-context.ts';
import { RouteTable } from './http/route-table.ts';
import { StorePool } from './http/store-pool.ts';
import { mappingErrorMessage } from './routes/body-schemas.ts';
import { checkConnectionRoutes } from './routes/check-connection.ts';
import { containerRoutes } from './routes/containers.ts';
import { multiRowRoutes } from './routes/multi-rows.ts';
import { blobRowRoutes } from './routes/rows-blob.ts';
import { rowRoutes } from './routes/rows.ts';
import { tqlRoutes } from './routes/tql.ts';

export interface WebApiServerOptions {
  repository: Repository;
  settings: WebApiSettings;
  logger: Logger;
}

/** Longest path parameter (a container name); the node refuses longer names anyway. */
const PATH_PARAMETER_LENGTH_MAX = 16 * 1024;

export class WebApiServer {
  private constructor(
    private readonly app: FastifyInstance,
    private readonly pool: StorePool,
    readonly address: string,
    readonly port: number,
  ) {}

  static async start(options: WebApiServerOptions): Promise<WebApiServer> {
    const { settings, logger } = options;
    const pool = new StorePool(settings);
    const app = buildApp(options, pool);
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
    return new WebApiServer(app, pool, address.address, address.port);
  }

  /** Stops listening; requests under way finish; then the client stores close. */
  async close(): Promise<void> {
    await this.app.close();
    await this.pool.close();
  }
}

function buildApp(options: WebApiServerOptions, pool: StorePool): FastifyInstance {
  const { settings, logger } = options;
  const app = Fastify({
    loggerInstance: logger,
    // One line per request would cost more than a batch of rows; failures are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: settings.requestBodySizeBytesMax,
    http: { maxHeaderSize: settings.httpHeaderSizeBytesMax },
    routerOptions: { maxParamLength: PATH_PARAMETER_LENGTH_MAX },
    return503OnClosing: false,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    schemaErrorFormatter: (errors) => {
      const first = errors[0];
      return new Error(first === undefined ? 'Mapping JSON data error'
        : mappingErrorMessage(first.instancePath, first.params));
    },
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, webApiErrorOf(error).error);
    },
    clientErrorHandler: (error, socket) => clientError(error, socket),
  }) as unknown as FastifyInstance;
  bodyParsers(app);
  app.setErrorHandler((error, request, reply) => replyError(error, request, reply));
  const table = new RouteTable(app);
  app.setNotFoundHandler((request, reply) => {
    const methods = table.methodsOf(request.url);
    if (methods !== undefined && !methods.has(request.method)) {
      return sendError(reply, new WebApiError(405,
        `Request method '${request.method}' not supported`));
    }
    return sendError(reply, new WebApiError(404, `No route for ${request.method} ` +
      request.url.split('?')[0]!.slice(0, 200)));
  });
  const dependencies: WebApiDependencies = { repository: options.repository, settings, pool };
  checkConnectionRoutes(table, dependencies);
  containerRoutes(table, dependencies);
  rowRoutes(table, dependencies);
  blobRowRoutes(table, dependencies);
  multiRowRoutes(table, dependencies);
  tqlRoutes(table, dependencies);
  return app;
}

/** JSON (LONG-exact, codec/json-body.ts) and multipart bodies; any other type is a 415. */
function bodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      // An empty body is no body: the route says what it misses, in its own words.
      const source = text as string;
      done(null, source.trim() === '' ? undefined : parseJsonBody(source));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' },
    (request, body, done) => {
      if (multipartBoundary(request.headers['content-type']) === undefined) {
        done(new WebApiError(400, 'multipart/form-data without a boundary'), undefined);
        return;
      }
      done(null, body);
    });
}

function replyError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const mapped = webApiErrorOf(error);
  if (mapped.internal) {
    request.log.error({ err: error, method: request.method, url: request.url },
      'request failed on a bug');
  } else if (mapped.error.status >= 500) {
    request.log.warn({ method: request.method, url: request.url,
      errorCode: mapped.error.errorCode, message: mapped.error.message }, 'request failed');
  }
  return sendError(reply, mapped.error);
}

/** A request the HTTP parser refused (bad headers, too large headers): 400 and close. */
function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'Request header is too large'
    : `Bad request: ${error.code ?? error.message}`;
  socket.end(rawErrorResponse(new WebApiError(400, message)));
}
