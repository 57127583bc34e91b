// What every route under `/store/v2/<cluster>/dbs/<database>/` needs before it does anything:
// the caller's credentials (401 when the header is missing or malformed), the cluster of
// repository.json the URL names (400 `Cluster not found in repository`), and a database name
// the web API can address (400 otherwise). Then `use` runs the route's work with the pooled
// client store of (cluster, database, user, password).
//
// `requestAuthenticate` does all this, and has the node check the credentials, in the onRequest
// hook (http/request-guard.ts), before any byte of the body is read; the routes then find the
// context it made.

import type { FastifyRequest } from 'fastify';
import type { ClientStore } from '../../client/store-factory.ts';
import type { Repository, RepositoryCluster } from '../config/repository.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import type { RowsPutScratchPool } from '../codec/rows-put-scratch.ts';
import { badRequest, MESSAGES } from '../errors/webapi-error.ts';
import { parseBasicAuth } from './basic-auth.ts';
import type { BodyBudget } from './body-budget.ts';
import type { StorePool, StoreTarget } from './store-pool.ts';

/** Database names the web API can address: no `-`, `.`, `/`, `=` (GridDB's documentation). */
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Container names the web API can address, likewise; the node checks the length. */
const CONTAINER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters of a name from the URL quoted in a message, at most. */
const NAME_QUOTED_LENGTH_MAX = 100;

export interface WebApiDependencies {
  repository: Repository;
  settings: WebApiSettings;
  pool: StorePool;
  bodyBudget: BodyBudget;
  /** The row PUT's buffers, kept between requests (codec/rows-put-scratch.ts). */
  rowsPutScratch: RowsPutScratchPool;
}

export interface RequestContext {
  settings: WebApiSettings;
  target: StoreTarget;
  use<T>(body: (store: ClientStore) => Promise<T>): Promise<T>;
}

interface DatabaseParams {
  cluster: string;
  database: string;
}

/** Contexts made by requestAuthenticate, for the route of the same request. */
const authenticated = new WeakMap<FastifyRequest, RequestContext>();

/** Makes the request's context and has the node accept its credentials (cached per store). */
export async function requestAuthenticate(
  request: FastifyRequest,
  dependencies: WebApiDependencies,
): Promise<void> {
  const context = contextOf(request, dependencies);
  await dependencies.pool.verify(context.target);
  authenticated.set(request, context);
}

export function requestContext(
  request: FastifyRequest,
  dependencies: WebApiDependencies,
): RequestContext {
  return authenticated.get(request) ?? contextOf(request, dependencies);
}

function contextOf(request: FastifyRequest, dependencies: WebApiDependencies): RequestContext {
  const credentials = parseBasicAuth(request.headers.authorization);
  const params = request.params as DatabaseParams;
  const cluster = clusterNamed(dependencies.repository, params.cluster);
  if (!DATABASE_NAME.test(params.database)) {
    throw badRequest(`Database name '${params.database}' is invalid`);
  }
  const target: StoreTarget = { cluster, database: params.database, credentials };
  return {
    settings: dependencies.settings,
    target,
    use: (body) => dependencies.pool.use(target, body),
  };
}

function clusterNamed(repository: Repository, name: string): RepositoryCluster {
  const cluster = repository.clusters.find((c) => c.name === name);
  // GridDB's text first, then the name asked for; not the names repository.json has, which
  // this answer would tell a caller whose credentials no node has checked yet.
  if (cluster === undefined) {
    throw badRequest(`${MESSAGES.clusterNotFound}: '${name.slice(0, NAME_QUOTED_LENGTH_MAX)}'`);
  }
  return cluster;
}

/** A container name from a URL or a body, or 400 `Container name is invalid`. */
export function containerNameCheck(name: unknown, message = 'Container name is invalid'): string {
  if (typeof name !== 'string' || !CONTAINER_NAME.test(name)) throw badRequest(message);
  return name;
}

/** Refuses text with U+0000, which GridDB's web API rejects in conditions and statements. */
export function characterCheck(text: string): void {
  if (text.includes('\u0000')) throw badRequest(MESSAGES.invalidCharacters);
}
