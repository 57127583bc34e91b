// The web API service in the foreground (the `store-webapi` command; `npm start` runs it beside
// the node). Reads GS_HOME/webapi/conf (GS_WEBAPI_HOME when set), writing repository.json and
// store_webapi.properties there on the first start, listens on `server.port` (8081; `--port`
// overrides it), logs with pino as JSON lines on stdout, and stops cleanly on SIGTERM or SIGINT:
// it stops listening, lets requests under way finish, and closes its client connections.
//
//   node --import tsx tools/store-webapi.ts [--port 8081]

import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { StorageError } from '../lib/base/errors.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { prepareWebApiHome } from '../lib/webapi/config/webapi-home.ts';
import { WebApiServer } from '../lib/webapi/webapi-server.ts';
import { limitHeapGrowth } from './heap-growth.ts';

limitHeapGrowth();

/** Exit code when the options or the configuration are wrong. */
const EXIT_BAD_CONFIGURATION = 2;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' } }, strict: true });
  const logger = pino({ base: { service: 'store-webapi', pid: process.pid } });
  const home = await prepareWebApiHome({
    env: process.env, cwd: process.cwd(), toolsDirectory: import.meta.dirname,
    fileSystem: new NodeFileSystem(),
  });
  for (const path of home.createdFiles) logger.warn({ path }, 'created a default settings file');
  for (const warning of home.warnings) logger.warn(warning);
  const settings = { ...home.settings };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d{1,5}$/.test(values.port) || port > 65_535) {
      console.error(`--port must be a port number (0-65535), not ${values.port}`);
      process.exit(EXIT_BAD_CONFIGURATION);
    }
    settings.port = port;
  }
  const server = await WebApiServer.start({ repository: home.repository, settings, logger });
  const urls = settings.basePaths.map((basePath) =>
    `http://${server.address}:${server.port}/${basePath}/v2/`);
  logger.info({ url: urls[0], urls,
    webApiHome: home.webApiHome, clusters: home.repository.clusters.map((c) => c.name) },
  'web API started');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'web API stopping');
    server.close().then(() => {
      logger.info('web API stopped');
      logger.flush();
      process.exit(0);
    }, (error: unknown) => {
      logger.error({ err: error }, 'web API stopped with an error');
      logger.flush();
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  const text = error instanceof StorageError ? `${error.code}: ${error.message}`
    : error instanceof Error ? error.message : String(error);
  console.error(`web API failed to start: ${text}`);
  process.exit(error instanceof StorageError ? EXIT_BAD_CONFIGURATION : 1);
});
