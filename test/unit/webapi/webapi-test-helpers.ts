// Helpers of the web API tests: the web API in either of its two modes, on 127.0.0.1 with a port
// the kernel picks, and a small HTTP caller that keeps the status, the headers and the body text
// of every answer. The mode is STORE_WEBAPI_TEST_MODE's:
//   process   (the default) a real node process (test/unit/node/node-process.ts) and the web API
//             server object in this process, talking to the node over real TCP through the client
//             library, as store-webapi does;
//   embedded  a node in this process serving the web API itself (lib/node/node-webapi.ts), its
//             stores reaching the node in-process, as `npm start` runs it.
// Every web API test runs in both: `STORE_WEBAPI_TEST_MODE=embedded npm test -- test/unit/webapi`.

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Repository } from '../../../lib/webapi/config/repository.ts';
import {
  WEBAPI_SETTINGS_DEFAULT, type WebApiSettings,
} from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiServer } from '../../../lib/webapi/webapi-server.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { StoreNode } from '../../../lib/node/store-node.ts';
import { newNodeHome, removeHome, startNodeProcess } from '../node/node-process.ts';

export const CLUSTER = 'myCluster';
const TOOLS_DIRECTORY = fileURLToPath(new URL('../../../tools/', import.meta.url));
export const ADMIN = { user: 'admin', password: 'admin' };
/** Every answer must come within this; a test never waits longer on one request. */
const REQUEST_TIMEOUT_MS = 30_000;

export type WebApiTestMode = 'process' | 'embedded';

/** STORE_WEBAPI_TEST_MODE: `process` (the default) or `embedded`. */
export const WEBAPI_TEST_MODE: WebApiTestMode = (() => {
  const text = process.env['STORE_WEBAPI_TEST_MODE'];
  if (text === undefined || text === '' || text === 'process') return 'process';
  if (text === 'embedded') return 'embedded';
  throw new Error(`STORE_WEBAPI_TEST_MODE must be process or embedded, not ${text}`);
})();

/** What the tests use of the node: its client port, and a clean stop. */
export interface FixtureNode {
  transactionPort: number;
  stop(): Promise<void>;
}

export interface WebApiFixture {
  mode: WebApiTestMode;
  node: FixtureNode;
  server: WebApiServer;
  http: HttpCaller;
  /** `/store/v2/myCluster/dbs/public` */
  base: string;
  stop(): Promise<void>;
}

/** The repository of the fixtures: the node's cluster, and a MULTICAST one the pool refuses. */
function fixtureRepository(transactionPort: number): Repository {
  return { clusters: [
    { name: CLUSTER, mode: 'FIXED_LIST', transactionMember: `127.0.0.1:${transactionPort}`,
      sqlMember: '' },
    { name: 'multicastCluster', mode: 'MULTICAST', address: '239.0.0.1', port: 31999,
      jdbcAddress: '239.0.0.1', jdbcPort: 41999 },
  ] };
}

/** A web API server in this process for the node at 127.0.0.1:`transactionPort` (CLUSTER). */
export function startWebApiServer(transactionPort: number,
  settings: Partial<WebApiSettings> = {}): Promise<WebApiServer> {
  return WebApiServer.start({
    repository: fixtureRepository(transactionPort),
    settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1', ...settings },
    logger: pino({ level: 'silent' }),
  });
}

export async function startWebApiFixture(settings: Partial<WebApiSettings> = {},
  mode: WebApiTestMode = WEBAPI_TEST_MODE): Promise<WebApiFixture> {
  const fullSettings = { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1', ...settings };
  return mode === 'embedded' ? startEmbeddedFixture(fullSettings)
    : startProcessFixture(fullSettings);
}

async function startProcessFixture(settings: WebApiSettings): Promise<WebApiFixture> {
  const home = newNodeHome({ dataStore: { logWriteMode: 0 } });
  const node = await startNodeProcess(home);
  try {
    const server = await startWebApiServer(node.transactionPort, settings);
    return {
      mode: 'process', node, server, http: new HttpCaller(server.port),
      base: `/store/v2/${CLUSTER}/dbs/public`,
      async stop() {
        await server.close();
        await node.stop();
        removeHome(home);
      },
    };
  } catch (error) {
    await node.stop();
    removeHome(home);
    throw error;
  }
}

/** A node in this process with its web API (the files of GS_HOME/webapi/conf are overridden). */
export async function startEmbeddedNode(home: string, options: {
  settings: WebApiSettings; repository?: Repository;
}): Promise<StoreNode> {
  // The web API's home must read cleanly, though the fixture passes its own repository: the
  // default one would name the node's port 0.
  const conf = join(home, 'webapi', 'conf');
  mkdirSync(conf, { recursive: true });
  writeFileSync(join(conf, 'repository.json'), JSON.stringify(fixtureRepository(1)));
  return StoreNode.start({
    env: { GS_HOME: home, GS_LOG: join(home, 'log') }, cwd: process.cwd(),
    toolsDirectory: TOOLS_DIRECTORY, fileSystem: new NodeFileSystem(),
    webApi: { embedded: true, logger: () => pino({ level: 'silent' }),
      settings: options.settings, ...(options.repository ? { repository: options.repository } : {}) },
  });
}

async function startEmbeddedFixture(settings: WebApiSettings): Promise<WebApiFixture> {
  const home = newNodeHome({ dataStore: { logWriteMode: 0 } });
  let node: StoreNode;
  try {
    node = await startEmbeddedNode(home, { settings, repository: fixtureRepository(1) });
  } catch (error) {
    removeHome(home);
    throw error;
  }
  const webApi = node.embeddedWebApi!;
  let stopped: Promise<void> | undefined;
  const stopNode = () => (stopped ??= node.stop());
  return {
    mode: 'embedded',
    node: { transactionPort: node.transactionEndpoint.port, stop: stopNode },
    server: webApi.server, http: new HttpCaller(webApi.server.port),
    base: `/store/v2/${CLUSTER}/dbs/public`,
    async stop() {
      await stopNode();
      removeHome(home);
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Buffer;
}

export interface CallOptions {
  /** A value is sent as JSON; a string or Buffer as it is. */
  body?: unknown;
  contentType?: string | null;
  /** `null`: no Authorization header. Default admin/admin. */
  auth?: { user: string; password: string } | null;
  headers?: Record<string, string>;
}

export class HttpCaller {
  constructor(readonly port: number) {}

  call(method: string, path: string, options: CallOptions = {}): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth === undefined ? ADMIN : options.auth;
    if (auth !== null) {
      headers['authorization'] = basicAuthorization(auth.user, auth.password);
    }
    let payload: Buffer | undefined;
    if (options.body !== undefined) {
      payload = Buffer.isBuffer(options.body) ? options.body
        : Buffer.from(typeof options.body === 'string' ? options.body
          : JSON.stringify(options.body), 'utf8');
      const type = options.contentType === undefined ? 'application/json; charset=UTF-8'
        : options.contentType;
      if (type !== null) headers['content-type'] = type;
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port: this.port, method, path, headers,
        timeout: REQUEST_TIMEOUT_MS }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body,
            text: body.toString('utf8') });
        });
        response.on('error', reject);
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path}: timed out`)));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  async json(method: string, path: string, options: CallOptions = {}): Promise<unknown> {
    const answer = await this.call(method, path, options);
    assert.equal(answer.status, 200, `${method} ${path}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text) as unknown;
  }
}

/** Asserts an error answer: its status, GridDB's body, and (if given) its exact message. */
export function assertError(answer: HttpAnswer, status: number, message?: string | RegExp): void {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status}: ${answer.text}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['errorCode', 'errorMessage', 'version']);
  assert.equal(body['version'], 'v2');
  assert.equal(typeof body['errorCode'], 'number');
  assert.equal(typeof body['errorMessage'], 'string');
  if (typeof message === 'string') assert.equal(body['errorMessage'], message);
  else if (message !== undefined) assert.match(body['errorMessage'] as string, message);
}

/** The Authorization header value of HTTP Basic authentication. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** How long a raw exchange may take before the test fails. */
const RAW_TIMEOUT_MS = 15_000;

export interface RawHttpClient {
  socket: Socket;
  /** Everything received, once the server closes the connection (or the socket fails). */
  closed: Promise<string>;
}

/**
 * A raw HTTP client, for what an HTTP library will not send: writes `head`, then the `chunks` as
 * long as the server has not answered (waiting for drain), and collects what comes back until the
 * server closes. Fails the test if that takes over RAW_TIMEOUT_MS.
 */
export function rawHttpClient(port: number, head: string, chunks: Iterable<Buffer> = []):
  RawHttpClient {
  const socket = connect({ host: '127.0.0.1', port });
  let received = '';
  const closed = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${RAW_TIMEOUT_MS} ms; got ${received.slice(0, 300)}`));
    }, RAW_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
  socket.on('connect', () => {
    socket.write(head);
    const iterator = chunks[Symbol.iterator]();
    const pump = () => {
      for (;;) {
        if (received !== '' || socket.destroyed) return;
        const next = iterator.next();
        if (next.done === true) return;
        if (!socket.write(next.value)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  return { socket, closed };
}
