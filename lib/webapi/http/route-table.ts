// The web API's routes by path pattern and method, kept beside fastify's router so that a known
// path asked with another method is answered 405 (GridDB's web API does; fastify says 404), and
// an unknown path 404, both with the error body.

import type { FastifyInstance, RouteHandlerMethod, FastifySchema } from 'fastify';
import { assert } from '../../base/assert.ts';
import { API_VERSION } from '../errors/webapi-error.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** `/<basePath>/v2/<cluster>/dbs/<database>`: every route starts here, for each basePath. */
export function routePrefix(basePath: string): string {
  return `/${basePath}/${API_VERSION}/:cluster/dbs/:database`;
}

/** What a route tells the body parsers (fastify's route `config`). */
export interface RouteConfig {
  streamBody: boolean;
}

export class RouteTable {
  private readonly patterns: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  /** `basePaths`: the first path segments (settings `basePath`); each gets every route. */
  constructor(
    private readonly app: FastifyInstance,
    private readonly basePaths: readonly string[],
  ) {
    assert(basePaths.length > 0);
    assert(new Set(basePaths).size === basePaths.length);
  }

  /** `streamBody`: the handler reads the JSON body as a stream (`request.body`), see ROUTE_CONFIG. */
  add(method: HttpMethod, path: string, handler: RouteHandlerMethod, schema?: FastifySchema,
    options: { streamBody?: boolean } = {}): void {
    for (const basePath of this.basePaths) {
      this.addUrl(method, `${routePrefix(basePath)}${path}`, handler, schema, options);
    }
  }

  private addUrl(method: HttpMethod, url: string, handler: RouteHandlerMethod,
    schema: FastifySchema | undefined, options: { streamBody?: boolean }): void {
    const config: RouteConfig = { streamBody: options.streamBody === true };
    this.app.route({ method, url, handler, config, ...(schema === undefined ? {} : { schema }) });
    const source = `^${url.replace(/:[a-zA-Z]+/g, '[^/]+')}/?$`;
    let entry = this.patterns.find((p) => p.pattern.source === source);
    if (entry === undefined) {
      entry = { pattern: new RegExp(source), methods: new Set() };
      this.patterns.push(entry);
    }
    entry.methods.add(method);
    if (method === 'GET') entry.methods.add('HEAD');
  }

  /** The methods a path answers, or undefined for a path no route has. */
  methodsOf(path: string): Set<string> | undefined {
    const pathOnly = path.split('?')[0]!;
    return this.patterns.find((p) => p.pattern.test(pathOnly))?.methods;
  }
}
