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
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageHint, type CommandHelp,
} from './command-help.ts';
import { limitHeapGrowth } from './heap-growth.ts';

limitHeapGrowth();

/** Exit code when the options or the configuration are wrong. */
const EXIT_BAD_CONFIGURATION = EXIT_USAGE;

const HELP: CommandHelp = {
  name: 'store-webapi',
  usage: ['[--port PORT]'],
  summary: 'Runs the web API in the foreground, for the clusters of ' +
    'GS_HOME/webapi/conf/repository.json,\nuntil SIGTERM or SIGINT. Writes the default ' +
    'settings files on the first start.',
  options: [
    ['--port PORT', 'listen on PORT, 0-65535 (default server.port of ' +
      'store_webapi.properties, 8081)'],
  ],
  environment: [
    ['GS_HOME', 'the node\'s home; the web API\'s files are in GS_HOME/webapi/conf'],
    ['GS_WEBAPI_HOME', 'the web API\'s home instead of GS_HOME/webapi'],
  ],
  exitCodes: [
    [0, 'stopped cleanly'], [1, 'failed to start or stopped with an error'],
    [EXIT_USAGE, 'bad usage, or a bad settings file or repository.json'],
  ],
  example: 'GS_HOME=/tmp/store-home store-webapi --port 8081',
};

/** The options, or exit: 0 after --help / --version, 2 for bad usage. */
function parseOptions(argv: string[]): { port?: string } {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    console.log(answer);
    process.exit(EXIT_HELP);
  }
  try {
    return parseArgs({ args: argv, options: { port: { type: 'string' } }, strict: true }).values;
  } catch (error) {
    console.error(`store-webapi: ${(error as Error).message}\n${usageHint('store-webapi')}`);
    process.exit(EXIT_USAGE);
  }
}

async function main(): Promise<void> {
  const values = parseOptions(process.argv.slice(2));
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
