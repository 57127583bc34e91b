// `npm start`: the node in the foreground (tools/store-node.ts, on GS_HOME or ./var), serving the
// web API inside its own process (store-node --webapi, port 8081: lib/node/node-webapi.ts), so a
// web API request crosses one socket, not three more through a process of its own. With
// `--webapi-process` the web API is instead tools/store-webapi.ts, started beside the node once it
// serves (GridDB's layout). Each is a child process in a process group of its own, so a Ctrl-C
// reaches only this one, which forwards it as one SIGTERM to each: the web API stops, and the
// node stops cleanly (a checkpoint). SIGTERM (a service manager, a container runtime, npm
// forwarding its own) and SIGHUP (the terminal went away) do the same. When the node stops by
// itself (gs_stopnode), a web API process is stopped too. If a web API process exits by itself it
// is reported and the node keeps running.
//
// What the terminal gets is for people: once both serve, where the data is, the client address,
// the web API's URL, the default user (and that its password must be changed) and a first command
// to try; then the node's own lines (and a web API process's warnings in words). The web API's
// JSON log lines go to store-webapi.log in the node's event log folder (GS_LOG), beside the
// node's. When the node dies without being asked to stop, that is said and the exit code is not
// 0; when another node holds the home, the node's refusal (its pid and ports) is followed by what
// to do.
//
// Exit code: 0 when the node stopped cleanly (its exit code 0: checkpoint done, every commit
// synced) and the web API, if it was running, stopped with 0; else the node's code, or 1.
//
// The children's output comes through pipes to this process, never straight to the terminal: once
// the terminal is gone, writes to it fail, and only this process (which ignores those failures)
// would see them, not a child in the middle of its stop. package.json runs this with `exec`, so
// npm's shell is replaced by it and the signal npm forwards reaches it (dash would die of it).
//
//   node tools/bin/start.mjs [--webapi-process] [store-node options, e.g. --releaseUnusedFileBlocks]
//
// tools/bin/start.mjs runs this compiled (dist/) when the build is up to date, else through tsx;
// the children run in the same form (tools/tool-process.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolProcessArguments } from './tool-process.ts';

/** The line tools/store-node.ts prints once every service listens. */
const NODE_STARTED =
  /^node started on (.+) \(cluster (.*)\): transaction (\S+), system (\S+)(?:, sql \(PostgreSQL\) (\S+))?; event log in (.+); engine/m;
/** The line tools/store-node.ts prints after NODE_STARTED when it serves the web API itself. */
const WEB_API_EMBEDDED_STARTED = /^web API started in the node's process: (\S+)/;
/** This tool's own option: the web API as a process of its own (store-webapi). */
const WEB_API_PROCESS_OPTION = '--webapi-process';
/** The node's exit code when another node holds the home (tools/store-node.ts). */
const EXIT_HOME_IN_USE = 3;
/** The signals that stop both, as Ctrl-C does. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** In the event log folder: the web API's JSON lines. */
const WEB_API_LOG_NAME = 'store-webapi.log';
/** pino's level of warnings: the web API's lines from here up are also said on the terminal. */
const PINO_WARN_LEVEL = 40;
const DEFAULT_USER = 'admin';
const DEFAULT_PASSWORD = 'admin';

interface NodeStarted {
  home: string;
  cluster: string;
  transaction: string;
  /** The PostgreSQL protocol's address, when the node printed it. */
  sql: string | undefined;
  logDirectory: string;
}

function startTool(name: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, toolProcessArguments(name, args), {
    detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Calls `onLine` with each whole line of `stream`. */
function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) onLine(line);
  });
  stream.on('end', () => {
    if (partial !== '') onLine(partial);
  });
}

/** The exit code, 1 for a death by signal; and the signal. */
function exited(child: ChildProcess): Promise<{ code: number; signal: string | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode ?? 1, signal: child.signalCode });
    } else child.once('exit', (code, signal) => resolve({ code: code ?? 1, signal }));
  });
}

function signal(child: ChildProcess | undefined, name: NodeJS.Signals): void {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(child.pid!, name);
  } catch {
    // It exited between the check and the signal.
  }
}

/** Does the home's password file still give `admin` the password `admin`? */
function defaultPasswordKept(home: string): boolean {
  const hash = createHash('sha256').update(DEFAULT_PASSWORD).digest('hex');
  try {
    return readFileSync(join(home, 'conf', 'password'), 'utf8').split('\n')
      .some((line) => line.trim() === `${DEFAULT_USER},${hash}`);
  } catch {
    return false;
  }
}

/** The lines said once both serve. */
function servingLines(node: NodeStarted, webApiUrl: string): string[] {
  const database = `${webApiUrl.replace(/\/$/, '')}/${node.cluster}/dbs/public`;
  const user = defaultPasswordKept(node.home)
    ? `${DEFAULT_USER}, password ${DEFAULT_PASSWORD}: the default, change it ` +
      '(docs/configuration.md, "Users")'
    : 'as in conf/password';
  return [
    'store is running.',
    `  data:     ${node.home} (event log, JSON lines: ${node.logDirectory})`,
    `  clients:  ${node.transaction}, cluster ${node.cluster} (TypeScript client: docs/client.md)`,
    `  web API:  ${database}`,
    ...(node.sql === undefined ? [] : [`  psql:     postgresql://${DEFAULT_USER}@${node.sql}/public (docs/postgres.md)`]),
    `  user:     ${user}`,
    `  try:      curl -s -u ${DEFAULT_USER}:${DEFAULT_PASSWORD} '${database}/containers?limit=10'` +
      '   # the container names',
    'Ctrl-C stops both.',
  ];
}

/** A web API log line in words, or undefined when it is not worth the terminal. */
function webApiLineInWords(line: string): string | undefined {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `web API: ${line}`;
  }
  if (typeof record['level'] !== 'number' || record['level'] < PINO_WARN_LEVEL) return undefined;
  const error = record['err'] as { message?: unknown } | undefined;
  const detail = [record['path'], error?.message].filter((part) => typeof part === 'string');
  return `web API: ${String(record['msg'])}${detail.length > 0 ? ` (${detail.join('; ')})` : ''}`;
}

async function main(): Promise<void> {
  // A terminal that went away makes writes fail (EIO, EPIPE): the output is lost, the stop goes on.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  const args = process.argv.slice(2);
  const webApiProcess = args.includes(WEB_API_PROCESS_OPTION);
  const node = startTool('store-node', webApiProcess
    ? args.filter((arg) => arg !== WEB_API_PROCESS_OPTION) : [...args, '--webapi']);
  let nodeStarted: NodeStarted | undefined;
  let webApi: ChildProcess | undefined;
  let webApiRunning = false;
  let stopping = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    signal(webApi, 'SIGTERM');
    signal(node, 'SIGTERM');
  };
  for (const name of STOP_SIGNALS) process.on(name, stopAll);
  node.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  eachLine(node.stdout!, (line) => {
    const embedded = nodeStarted === undefined ? null : WEB_API_EMBEDDED_STARTED.exec(line);
    if (embedded !== null) {
      process.stdout.write(`${servingLines(nodeStarted!, embedded[1]!).join('\n')}\n`);
      return;
    }
    const match = NODE_STARTED.exec(line);
    if (match === null || nodeStarted !== undefined) {
      process.stdout.write(`${line}\n`);
      return;
    }
    nodeStarted = { home: match[1]!, cluster: match[2]!, transaction: match[3]!,
      sql: match[5], logDirectory: match[6]! };
    if (stopping || !webApiProcess) return;
    webApi = startWebApi(nodeStarted);
    webApiRunning = true;
    void exited(webApi).then(({ code }) => {
      if (stopping) return;
      webApiRunning = false;
      console.error(`the web API exited (code ${code}); the node keeps running`);
    });
  });
  const nodeEnd = await exited(node);
  const asked = stopping;
  stopping = true;
  signal(webApi, 'SIGTERM');
  const webApiCode = webApi !== undefined && webApiRunning ? (await exited(webApi)).code : 0;
  if (nodeEnd.code === EXIT_HOME_IN_USE && nodeStarted === undefined) {
    console.error('npm start: a node already runs on this home (above: its pid and ports); stop ' +
      'it with `npx gs_stopnode -u admin/admin`, or start on another home (GS_HOME=<folder> npm start)');
    process.exit(EXIT_HOME_IN_USE);
  }
  if (!asked && (nodeEnd.code !== 0 || nodeEnd.signal !== null)) {
    const how = nodeEnd.signal !== null ? `killed by ${nodeEnd.signal}` : `exit code ${nodeEnd.code}`;
    console.error(nodeStarted === undefined ? `npm start: the node failed to start (${how})`
      : `npm start: the node died (${how}); its event log is in ${nodeStarted.logDirectory}` +
        `${webApi === undefined ? '' : '; the web API was stopped'}`);
  }
  process.exit(nodeEnd.code !== 0 ? nodeEnd.code : webApiCode === 0 ? 0 : 1);
}

/** Starts the web API: its JSON lines to the event log folder, warnings and the start in words. */
function startWebApi(node: NodeStarted): ChildProcess {
  const webApi = startTool('store-webapi', []);
  const logPath = join(node.logDirectory, WEB_API_LOG_NAME);
  webApi.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  eachLine(webApi.stdout!, (line) => {
    try {
      appendFileSync(logPath, `${line}\n`);
    } catch (error) {
      console.error(`web API: cannot write its log ${logPath}: ${String(error)}`);
    }
    const url = /"msg":"web API started"/.test(line)
      ? (JSON.parse(line) as { url?: unknown }).url : undefined;
    if (typeof url === 'string') {
      process.stdout.write(`${servingLines(node, url).join('\n')}\n`);
      return;
    }
    const words = webApiLineInWords(line);
    if (words !== undefined) process.stderr.write(`${words}\n`);
  });
  return webApi;
}

await main();
