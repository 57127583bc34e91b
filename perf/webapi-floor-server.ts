// One server of perf/webapi-floor.ts, started by it as a child process: it prints
// `listening <port>` once it serves on 127.0.0.1 and stops when its stdin closes (orphan-guard).
//
//   http      bare node:http: reads the body, answers the fixed JSON of argv[3] (the real
//             answer's bytes, so both sides move as many)
//   net       bare node:net: a minimal HTTP/1.1 reader (head to the blank line, Content-Length
//             body, JSON.parse of it) answering the fixed JSON: what HTTP costs without node:http
//   fastify   bare fastify 5: the /tql path with its parameters, the default JSON parser, the /tql
//             body schema (TypeBox, ajv), the fixed JSON
//   constant  a node with the web API embedded (StoreNode in this process, as `npm start` runs
//             it), every query answered by a constant aggregation without reaching the node: the
//             whole route (guard, credentials, body, schema, store pool, answer text) but no query
//   real      the same node, queries run
// The node runs the compiled dist/ when its build matches the sources (as the bench's node does),
// else the TypeScript.
//
//   node --import tsx perf/webapi-floor-server.ts <mode> [fixed answer] <home>

import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { toolEntry } from '../tools/bin/tool-entry.mjs';
import { TqlBody } from '../lib/webapi/routes/body-schemas.ts';
import { writeInProcessNodeHome } from './in-process-node-home.ts';

const TOOLS_DIRECTORY = fileURLToPath(new URL('../tools/', import.meta.url));
const JSON_TYPE = 'application/json; charset=UTF-8';

const [mode, fixed = '', home = ''] = process.argv.slice(2);

function listening(port: number): void {
  console.log(`listening ${port}`);
}

if (mode === 'http') {
  const server = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      response.writeHead(200, { 'content-type': JSON_TYPE,
        'content-length': Buffer.byteLength(fixed) });
      response.end(fixed);
    });
  });
  server.listen(0, '127.0.0.1', () => listening((server.address() as { port: number }).port));
} else if (mode === 'net') {
  const { createServer: createNetServer } = await import('node:net');
  const answer = Buffer.from(fixed);
  const head = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: ${answer.length}\r\nkeep-alive: timeout=5\r\n\r\n`);
  const reply = Buffer.concat([head, answer]);
  const server = createNetServer((socket) => {
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headText = pending.toString('latin1', 0, end).toLowerCase();
        const m = /content-length: *(\d+)/.exec(headText);
        const length = m ? Number(m[1]) : 0;
        if (pending.length < end + 4 + length) return;
        JSON.parse(pending.toString('utf8', end + 4, end + 4 + length));
        pending = pending.subarray(end + 4 + length);
        socket.write(reply);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => listening((server.address() as { port: number }).port));
} else if (mode === 'fastify') {
  const app = Fastify({ logger: false });
  app.post('/store/v2/:cluster/dbs/:database/tql', { schema: { body: TqlBody } },
    async (_request, reply) => reply.type(JSON_TYPE).send(fixed));
  await app.listen({ host: '127.0.0.1', port: 0 });
  listening((app.server.address() as { port: number }).port);
} else if (mode === 'constant' || mode === 'real') {
  const built = toolEntry('store-node').built;
  const from = (path: string) => built
    ? `../dist/lib/${path}.js` : `../lib/${path}.ts`;
  const { StoreNode } = await import(from('node/store-node')) as
    typeof import('../lib/node/store-node.ts');
  const { NodeFileSystem } = await import(from('io/node-file-system')) as
    typeof import('../lib/io/node-file-system.ts');
  const { WEBAPI_SETTINGS_DEFAULT } = await import(from('webapi/config/webapi-settings')) as
    typeof import('../lib/webapi/config/webapi-settings.ts');
  if (mode === 'constant') {
    const { ClientStore } = await import(from('client/client-store')) as
      typeof import('../lib/client/client-store.ts');
    const value = Number(JSON.parse(fixed)[0].results[0][0]);
    const rowSet = { kind: 'AGGREGATION', columns: [{ name: 'usage_user', type: 'DOUBLE',
      array: false, notNull: false }], aggregationValue: () => value };
    const query = { setFetchOption: () => undefined, fetch: async () => rowSet };
    (ClientStore.prototype as unknown as { queryByName: unknown }).queryByName =
      async () => query;
  }
  writeInProcessNodeHome(home);
  const { pino } = await import('pino');
  const node = await StoreNode.start({
    env: { GS_HOME: home, GS_LOG: join(home, 'log') }, cwd: process.cwd(),
    toolsDirectory: TOOLS_DIRECTORY, fileSystem: new NodeFileSystem(),
    webApi: { embedded: true, logger: () => pino({ level: 'silent' }),
      settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' } },
  });
  listening(node.embeddedWebApi!.server.port);
} else {
  throw new Error(`mode http, fastify, constant or real, not ${String(mode)}`);
}
