// The node in the foreground: what `npm start` runs, and what gs_startnode starts in the
// background. Starts on GS_HOME (./var from a checkout when unset; default files on the first
// start), prints where it listens, and stops cleanly on SIGTERM, SIGINT or SIGHUP (a repeated
// signal does not cut the stop short), or when gs_stopnode asks. Locks the home first
// (GS_HOME/conf/store.lock): on a home another node holds it prints `node failed to start:
// HOME_IN_USE: the home ... is in use by the node with pid N ...; it serves clients on host:port
// and operating commands on host:port` and exits 3, having touched nothing. Writes
// GS_HOME/conf/store.pid and conf/store.endpoints.json while it runs.
//
//   node --import tsx tools/store-node.ts [--releaseUnusedFileBlocks] [--webapi]
//
// --webapi (or gs_node.json /webapi/embedded) serves the web API inside this process
// (lib/node/node-webapi.ts), its JSON lines in store-webapi.log of the event log folder; it prints
// `web API started in the node's process: <urls>` after the start line.
//
// STORE_ENGINE_THREAD picks where the engine runs: `worker` (one worker thread per partition
// group), `main` (every group in the main thread) or `auto` (the default: workers only when the
// machine has more cores than partition groups). The benchmarks set it to compare the two
// (docs/benchmarks.md: "Thread or worker").
//
// Fail-stop: an exception that escapes (uncaught, or a rejection nobody handles) ends the node as a
// broken invariant in the engine does (StoreNode.failStop): ABNORMAL in the event log, exit 1.
//
// STORE_FAULT_ASSERT_ON=<container name> is a testing aid, inert when unset: every put into that
// container fails an assertion in the engine's put handler, so an end-to-end test can prove
// fail-stop on a real process (test/unit/node/node-fail-stop.test.ts). An environment variable,
// read once here at the edge, because a test cannot reach into a child process otherwise; not a
// protocol message, which would let any client stop the node; and it fails inside the real handler,
// so the failure takes the very path a real bug takes, in either engine layout.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { StorageError } from '../lib/base/errors.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import type { EngineThreadChoice } from '../lib/node/engine-thread/node-engine.ts';
import { StoreNode } from '../lib/node/store-node.ts';
import { resolveHome } from '../lib/config/home.ts';
import { NODE_ENDPOINTS_FILE, NODE_PID_FILE, readNodeEndpoints } from './store-node-process.ts';
import {
  EXIT_HELP, EXIT_USAGE, helpOrVersion, usageHint, type CommandHelp,
} from './command-help.ts';
import { limitHeapGrowth } from './heap-growth.ts';

limitHeapGrowth();

/** In the event log folder: the embedded web API's JSON lines (the name npm start gives them). */
const WEB_API_LOG_NAME = 'store-webapi.log';
/** Exit code when another process holds the home's lock (gs_startnode's "already started" code). */
const EXIT_HOME_IN_USE = 3;

const HELP: CommandHelp = {
  name: 'store-node',
  usage: ['[--releaseUnusedFileBlocks] [--webapi]'],
  summary: 'Runs the node of GS_HOME in the foreground (what npm start and gs_startnode run), ' +
    'until SIGTERM,\nSIGINT or SIGHUP, or gs_stopnode; then it stops cleanly.',
  options: [
    ['--releaseUnusedFileBlocks', 'give unused data file blocks back to the file system at ' +
      'start (default off)'],
    ['--webapi', 'serve the web API inside the node\'s process, on the settings of ' +
      'GS_HOME/webapi/conf\n(default: gs_node.json /webapi/embedded, false; npm start sets it)'],
  ],
  environment: [
    ['GS_HOME', 'the node\'s home (default ./var of a checkout, else /var/lib/store); default ' +
      'files on the first start'],
    ['GS_LOG', 'the event log directory (default /system/eventLogPath of gs_node.json, log)'],
    ['STORE_ENGINE_THREAD', 'auto (default), worker or main: where the engine runs'],
  ],
  exitCodes: [
    [0, 'stopped cleanly'], [1, 'failed to start, or stopped ABNORMAL'],
    [EXIT_USAGE, 'bad usage'], [EXIT_HOME_IN_USE, 'another node holds the home'],
  ],
  example: 'GS_HOME=/tmp/store-home store-node',
};

/** The options, or exit: 0 after --help / --version, 2 for bad usage. */
function parseOptions(argv: string[]): { releaseUnusedFileBlocks?: boolean; webapi?: boolean } {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined) {
    console.log(answer);
    process.exit(EXIT_HELP);
  }
  try {
    return parseArgs({
      args: argv, options: { releaseUnusedFileBlocks: { type: 'boolean' },
        webapi: { type: 'boolean' } }, strict: true,
    }).values;
  } catch (error) {
    console.error(`store-node: ${(error as Error).message}\n${usageHint('store-node')}`);
    process.exit(EXIT_USAGE);
  }
}

async function main(): Promise<void> {
  const values = parseOptions(process.argv.slice(2));
  let pidPath: string | undefined;
  let endpointsPath: string | undefined;
  const removeRunFiles = () => {
    for (const path of [pidPath, endpointsPath]) if (path !== undefined) rmSync(path, { force: true });
  };
  const node = await StoreNode.start({
    env: process.env, cwd: process.cwd(), toolsDirectory: import.meta.dirname,
    fileSystem: new NodeFileSystem(),
    releaseUnusedFileBlocks: values.releaseUnusedFileBlocks === true,
    webApi: {
      ...(values.webapi === true ? { embedded: true } : {}),
      // Its JSON lines go to the event log folder, beside the node's, as npm start puts those of
      // a store-webapi process; a few lines a start, so written synchronously.
      logger: (logDirectory) => pino({ base: { service: 'store-webapi', pid: process.pid } },
        pino.destination({ dest: join(logDirectory, WEB_API_LOG_NAME), sync: true, mkdir: true })),
    },
    engineThread: engineThreadOf(process.env['STORE_ENGINE_THREAD']),
    ...faultAssertOf(process.env['STORE_FAULT_ASSERT_ON']),
    ...clockOffsetOf(process.env['STORE_TEST_CLOCK_OFFSET_MS']),
    onStopped: (error) => {
      removeRunFiles();
      console.log(error === undefined ? 'node stopped' : `node stopped with an error: ${String(error)}`);
      process.exit(error === undefined ? 0 : 1);
    },
    onFailStop: (error) => {
      removeRunFiles();
      console.error(`node stopped ABNORMAL: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  });
  if (node.homeLock.warning !== undefined) console.error(`warning: ${node.homeLock.warning}`);
  process.on('uncaughtException', (error) => node.failStop(error, 'an uncaught exception'));
  process.on('unhandledRejection', (reason) => node.failStop(reason, 'an unhandled rejection'));
  pidPath = join(node.home.directories.home, NODE_PID_FILE);
  writeFileSync(pidPath, `${process.pid}\n`);
  const { systemEndpoint: system, transactionEndpoint: transaction, sqlEndpoint: sql } = node;
  endpointsPath = join(node.home.directories.home, NODE_ENDPOINTS_FILE);
  writeFileSync(endpointsPath, `${JSON.stringify({
    transaction: `${transaction.address}:${transaction.port}`, system: `${system.address}:${system.port}`,
    sql: `${sql.address}:${sql.port}`,
  })}\n`);
  console.log(`node started on ${node.home.directories.home} (cluster ${node.home.config.cluster.clusterName}): ` +
    `transaction ${transaction.address}:${transaction.port}, system ${system.address}:${system.port}, ` +
    `sql (PostgreSQL) ${sql.address}:${sql.port}; ` +
    `event log in ${node.home.logDirectory}; engine ${node.engineThreadDescription}`);
  if (node.webApiUrls.length > 0) {
    console.log(`web API started in the node's process: ${node.webApiUrls.join(' ')}; ` +
      `its log in ${join(node.home.logDirectory, WEB_API_LOG_NAME)}`);
  }
  // `on`, not `once`: a service manager may signal every process of the group and `npm start`
  // forwards its own signal too, and a second signal with no handler would kill the node in the
  // middle of its checkpoint. stop() is idempotent.
  const stop = () => {
    node.stop().catch(() => undefined);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop);
}

main().catch((error: unknown) => {
  const text = error instanceof StorageError ? `${error.code}: ${error.message}`
    : error instanceof Error ? error.message : String(error);
  const inUse = error instanceof StorageError && error.code === 'HOME_IN_USE';
  console.error(`node failed to start: ${text}${inUse ? runningEndpoints() : ''}`);
  process.exit(inUse ? EXIT_HOME_IN_USE : 1);
});

/** Where the node that holds the home serves, as a clause of the HOME_IN_USE line. */
function runningEndpoints(): string {
  const home = resolveHome({ env: process.env, cwd: process.cwd(), toolsDirectory: import.meta.dirname,
    fileSystem: new NodeFileSystem() }).home;
  const endpoints = readNodeEndpoints(home);
  return endpoints === undefined ? ''
    : `; it serves clients on ${endpoints.transaction} and operating commands on ${endpoints.system}`;
}

function faultAssertOf(name: string | undefined): { faultAssertOnContainer?: string } {
  return name === undefined || name === '' ? {} : { faultAssertOnContainer: name };
}

/** Testing aid: the engine's wall clock runs this many ms ahead (expiry tests of a real node). */
function clockOffsetOf(text: string | undefined): { testClockOffsetMs?: number } {
  if (text === undefined || text === '') return {};
  const offsetMs = Number(text);
  if (!Number.isSafeInteger(offsetMs)) {
    throw new StorageError('CONFIG_INVALID', `STORE_TEST_CLOCK_OFFSET_MS must be a whole number of ms, not ${text}`);
  }
  return { testClockOffsetMs: offsetMs };
}

function engineThreadOf(text: string | undefined): EngineThreadChoice {
  if (text === undefined || text === '' || text === 'auto') return 'auto';
  if (text === 'worker' || text === 'main') return text;
  throw new StorageError('CONFIG_INVALID',
    `STORE_ENGINE_THREAD must be auto, worker or main, not ${JSON.stringify(text)}`);
}
