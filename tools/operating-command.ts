// What the gs_* operating commands share (spec/surface.md §7.1): GS_HOME and GS_LOG must be set
// (A00105 otherwise), `-u USER/PASS` and `-s HOST[:PORT]` in their formats (A00002, A00001), HTTP
// Basic calls to the node's system service with a 30 s timeout, its answers mapped to GridDB's
// messages (401 → A00102, no connection → A00104, errorStatus 100 → A01100, 501 → what a single
// node cannot do), the exit codes (0 done, 1 error, 2 bad
// arguments, 3 the node is not in a state to do it), and the command's log in GS_LOG
// (tools/command-log.ts: its start with the arguments, passwords masked, its errors, its end).

import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SERVICE_PORTS_DEFAULT } from '../lib/config/node-services.ts';
import { EXIT_HELP, helpOrVersion, usageHint, type CommandHelp } from './command-help.ts';
import { CommandLog, maskedArgs } from './command-log.ts';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_ARGUMENTS = 2;
export const EXIT_STATE = 3;

/** The exit codes of every gs_* command, as its --help lists them. */
export const OPERATING_EXIT_CODES: Array<[number, string]> = [
  [EXIT_OK, 'done'], [EXIT_ERROR, 'error (the node refused, could not be reached, timed out)'],
  [EXIT_ARGUMENTS, 'bad arguments, or GS_HOME / GS_LOG not set'],
  [EXIT_STATE, 'the node is not in a state to do it'],
];

/** The environment every gs_* command needs, as its --help lists it. */
export const OPERATING_ENVIRONMENT: Array<[string, string]> = [
  ['GS_HOME', 'the node\'s home directory (required)'],
  ['GS_LOG', 'its log directory (required)'],
];

const REQUEST_TIMEOUT_MS = 30_000;

/** An error the command prints as its message and exits with. */
export class CommandError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_ERROR) {
    super(message);
  }
}

export interface Environment {
  home: string;
  log: string;
}

/** A command's options (strict: anything unknown is an argument error, exit code 2). */
export function parseCommandArgs<const T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[], options: T,
) {
  try {
    return parseArgs({ args: [...args], options, strict: true }).values;
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ARGUMENTS);
  }
}

/** GS_HOME and GS_LOG, or A00105. */
export function requireEnvironment(env: NodeJS.ProcessEnv): Environment {
  const home = env['GS_HOME'];
  const log = env['GS_LOG'];
  if (home === undefined || home === '' || log === undefined || log === '') {
    throw new CommandError('A00105: GS_HOME, GS_LOG environment variable not set.', EXIT_ARGUMENTS);
  }
  return { home, log };
}

export interface Credentials {
  user: string;
  password: string;
}

/** `-u USER/PASS`, split at the first `/`. */
export function parseCredentials(text: string | undefined, option = '-u'): Credentials {
  const slash = text?.indexOf('/') ?? -1;
  if (text === undefined || slash <= 0) {
    throw new CommandError(`A00002: Specify ${option} option in the format USER/PASS.`, EXIT_ARGUMENTS);
  }
  return { user: text.slice(0, slash), password: text.slice(slash + 1) };
}

export interface NodeAddress {
  host: string;
  port: number;
}

/** `-s HOST[:PORT]` and `-p PORT`; 127.0.0.1:10040 by default. */
export function parseServer(server: string | undefined, port: string | undefined): NodeAddress {
  let host = '127.0.0.1';
  let portText = port;
  if (server !== undefined) {
    const colon = server.lastIndexOf(':');
    if (colon >= 0) {
      host = server.slice(0, colon);
      portText = server.slice(colon + 1);
    } else {
      host = server;
    }
    if (host === '') throw new CommandError('A00001: Specify -s option in the format HOST:PORT.', EXIT_ARGUMENTS);
  }
  const parsed = portText === undefined ? SERVICE_PORTS_DEFAULT.system : Number(portText);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535) {
    throw new CommandError('A00001: Specify -s option in the format HOST:PORT.', EXIT_ARGUMENTS);
  }
  return { host, port: parsed };
}

/** One call to the system service; the parsed JSON answer, or a CommandError with GridDB's message. */
export async function callNode(
  address: NodeAddress,
  credentials: Credentials,
  request: { method: 'GET' | 'POST'; path: string; query?: Record<string, string>; body?: string },
): Promise<unknown> {
  const url = new URL(`http://${address.host}:${address.port}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
  const authorization = Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8')
    .toString('base64');
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        authorization: `Basic ${authorization}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch {
    throw new CommandError(`A00104: Failed to connect to the node.(node=${address.host}:${address.port})`);
  }
  const text = await response.text();
  if (response.status === 401) throw new CommandError('A00102: Authentication failed.');
  if (response.status !== 200) {
    const reason = reasonOf(text);
    if (response.status === 400 && errorStatusOf(text) === 100) {
      throw new CommandError(`A01100: The specified cluster name is invalid.. (${reason})`, EXIT_STATE);
    }
    if (response.status === 501) {
      // What a single node cannot do (a cluster of several nodes): its reason, as a state error.
      throw new CommandError(`The request cannot be executed: ${reason}.`, EXIT_STATE);
    }
    if (response.status === 400 && reason.includes('recover')) {
      throw new CommandError('A01102: The request cannot be executed in recovery processing.', EXIT_STATE);
    }
    throw new CommandError(`A00100: Request error occurred. (${response.status}: ${reason})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CommandError('A00100: Request error occurred. (an answer that is not JSON)');
  }
}

function errorStatusOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { errorStatus?: unknown }).errorStatus;
  } catch {
    return undefined;
  }
}

function reasonOf(text: string): string {
  try {
    const body = JSON.parse(text) as { reason?: unknown };
    return typeof body.reason === 'string' ? body.reason : text;
  } catch {
    return text;
  }
}

/**
 * Runs a command's main: answers --help and --version first (tools/command-help.ts), then prints
 * a CommandError's message (with a pointer to --help for an argument error) and exits with its
 * code. Where GS_LOG is set, the run goes to `$GS_LOG/<command>.log`, with the PASS of -u and the
 * values of `passwordFlags` masked.
 */
export function runCommand(help: CommandHelp, main: () => Promise<number>,
  options: { passwordFlags?: readonly string[] } = {}): void {
  const args = process.argv.slice(2);
  const answer = helpOrVersion(help, args);
  if (answer !== undefined) {
    console.log(answer);
    process.exitCode = EXIT_HELP;
    return;
  }
  const logDirectory = process.env['GS_LOG'];
  const log = logDirectory === undefined || logDirectory === ''
    ? undefined : new CommandLog(help.name, logDirectory);
  log?.info(`start. (args: ${maskedArgs(args, options.passwordFlags).join(' ')})`);
  const end = (code: number) => {
    process.exitCode = code;
    log?.info(`end. (exit code ${code})`);
  };
  main().then(end, (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(message);
    log?.error(message);
    if (error instanceof CommandError) {
      if (error.exitCode === EXIT_ARGUMENTS) console.error(usageHint(help.name));
      end(error.exitCode);
      return;
    }
    end(EXIT_ERROR);
  });
}

/** `-w [SEC]` (the value is optional, which parseArgs cannot say): taken out of args. */
export function takeWaitOption(argv: readonly string[]): {
  args: string[]; waitGiven: boolean; waitSeconds: number;
} {
  const args = [...argv];
  const index = args.findIndex((arg) => arg === '-w' || arg === '--wait');
  if (index < 0) return { args, waitGiven: false, waitSeconds: 0 };
  const next = args[index + 1];
  if (next !== undefined && /^\d+$/.test(next)) {
    args.splice(index, 2);
    return { args, waitGiven: true, waitSeconds: Number(next) };
  }
  args.splice(index, 1);
  return { args, waitGiven: true, waitSeconds: 0 };
}

/** Polls once a second, printing a dot; 0 seconds waits forever. True when done in time. */
export async function waitUntil(done: () => boolean | Promise<boolean>, seconds: number): Promise<boolean> {
  const deadlineMs = Date.now() + seconds * 1000;
  for (;;) {
    if (await done()) {
      process.stdout.write('\n');
      return true;
    }
    if (seconds > 0 && Date.now() >= deadlineMs) {
      process.stdout.write('\n');
      return false;
    }
    process.stdout.write('.');
    await sleep(1000);
  }
}

