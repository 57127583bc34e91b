// What gs_export and gs_import share: the connection to the node's transaction service through the
// TypeScript client (`-s HOST:PORT`, 127.0.0.1:10001 by default; the cluster name from
// $GS_HOME/conf/gs_cluster.json unless `--cluster` gives it), the command log in
// $GS_LOG/<command>.log with the password masked, and progress: a cli-progress bar with rows/s and
// ETA on a terminal, plain lines otherwise, nothing with --silent.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { getStore, type ClientStore } from '../lib/client/store-factory.ts';
import { CommandError, EXIT_ARGUMENTS, parseCredentials, type Environment } from './operating-command.ts';

export const TRANSACTION_ADDRESS_DEFAULT = '127.0.0.1:10001';
const CLUSTER_NAME_DEFAULT = 'myCluster';
/** Rows between two plain progress lines (no terminal). */
export const PROGRESS_ROWS_DEFAULT = 100_000;

/** The options both commands take, for parseCommandArgs. */
export const CONNECTION_OPTIONS = {
  user: { type: 'string', short: 'u' },
  server: { type: 'string', short: 's' },
  cluster: { type: 'string' },
  directory: { type: 'string', short: 'd' },
  silent: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

/** Which containers: both commands choose them the same way, and each may also take --csv. */
export const SELECTION_OPTIONS = {
  all: { type: 'boolean' },
  db: { type: 'string', multiple: true },
  container: { type: 'string', short: 'c', multiple: true },
  containerregex: { type: 'string', multiple: true },
  csv: { type: 'string' },
} as const;

export interface ConnectionValues {
  user?: string | undefined;
  server?: string | undefined;
  cluster?: string | undefined;
}

/**
 * A client store for the options, in `database` (public by default); it connects at once, so that
 * a wrong address or a database that does not exist fails here.
 */
export async function connectStore(values: ConnectionValues, environment: Environment,
  database = 'public'): Promise<{
  store: ClientStore; address: string; user: string;
}> {
  const credentials = parseCredentials(values.user);
  const address = values.server ?? TRANSACTION_ADDRESS_DEFAULT;
  if (!/^[^:]+:\d{1,5}$/.test(address)) {
    throw new CommandError('A00001: Specify -s option in the format HOST:PORT.', EXIT_ARGUMENTS);
  }
  const store = getStore({
    notificationMember: address, clusterName: values.cluster ?? clusterNameOf(environment.home),
    username: credentials.user, password: credentials.password,
    applicationName: 'gs_expimp', failoverTimeout: 5, database,
  });
  try {
    await store.connect();
  } catch (error) {
    await store.close();
    if ((error as { code?: unknown }).code === 'DATABASE_NOT_FOUND') {
      throw new CommandError(`D00E0D: database "${database}" does not exist.`);
    }
    throw new CommandError(`A00104: Failed to connect to the node.(node=${address}): ` +
      `${(error as Error).message}`);
  }
  return { store, address, user: credentials.user };
}

/** One connected store per database a command works in, made when first asked for. */
export class DatabaseStores {
  private readonly stores = new Map<string, Promise<ClientStore>>();

  constructor(private readonly values: ConnectionValues, private readonly environment: Environment) {}

  of(database: string): Promise<ClientStore> {
    const key = database.toLowerCase();
    let store = this.stores.get(key);
    if (store === undefined) {
      store = connectStore(this.values, this.environment, database).then((connected) => connected.store);
      store.catch(() => undefined);
      this.stores.set(key, store);
    }
    return store;
  }

  async closeAll(): Promise<void> {
    for (const store of this.stores.values()) await (await store.catch(() => undefined))?.close();
    this.stores.clear();
  }
}

function clusterNameOf(home: string): string {
  const path = join(home, 'conf', 'gs_cluster.json');
  if (!existsSync(path)) return CLUSTER_NAME_DEFAULT;
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as { cluster?: { clusterName?: unknown } };
    const name = json.cluster?.clusterName;
    return typeof name === 'string' && name !== '' ? name : CLUSTER_NAME_DEFAULT;
  } catch {
    return CLUSTER_NAME_DEFAULT;
  }
}

/** The arguments as the log shows them: the password of `-u USER/PASS` as `***`. */
export function maskedArgs(args: readonly string[]): string {
  return args.map((arg, i) => {
    const previous = args[i - 1];
    if (previous === '-u' || previous === '--user') return arg.replace(/\/.*$/, '/***');
    return arg.replace(/^(--user=|-u)([^/]+)\/.*$/, '$1$2/***');
  }).join(' ');
}

/** $GS_LOG/<command>.log, in GridDB's line format: `time [pid] [LEVEL] function message`. */
export class CommandLog {
  private readonly path: string;

  constructor(environment: Environment, command: string) {
    mkdirSync(environment.log, { recursive: true });
    this.path = join(environment.log, `${command}.log`);
  }

  info(where: string, message: string): void {
    this.write('INFO', where, message);
  }

  error(where: string, message: string): void {
    this.write('ERROR', where, message);
  }

  private write(level: string, where: string, message: string): void {
    appendFileSync(this.path, `${new Date().toISOString()} [${process.pid}] [${level}] ${where} ${message}\n`);
  }
}

/** Rows done of a container: a bar on a terminal, a line every `rowsPerLine` rows otherwise. */
export class Progress {
  private bar: cliProgress.SingleBar | undefined;
  private lastLineRows = 0;
  private startMs = 0;

  constructor(
    private readonly mode: 'bar' | 'lines' | 'silent',
    private readonly rowsPerLine: number = PROGRESS_ROWS_DEFAULT,
  ) {}

  static forConsole(silent: boolean, rowsPerLine?: number): Progress {
    if (silent) return new Progress('silent');
    return new Progress(process.stderr.isTTY ? 'bar' : 'lines', rowsPerLine);
  }

  /** Whether start() uses its total (only a bar shows one): counting costs a request a container. */
  get showsTotal(): boolean {
    return this.mode === 'bar';
  }

  start(label: string, totalRows: number): void {
    this.startMs = Date.now();
    this.lastLineRows = 0;
    if (this.mode !== 'bar') return;
    this.bar = new cliProgress.SingleBar({
      format: `${label} [{bar}] {percentage}% {value}/{total} rows | {speed} rows/s | ETA {eta_formatted}`,
      stream: process.stderr, hideCursor: true, clearOnComplete: false,
    }, cliProgress.Presets.shades_classic);
    this.bar.start(Math.max(totalRows, 1), 0, { speed: 0 });
  }

  update(label: string, rows: number): void {
    const seconds = Math.max((Date.now() - this.startMs) / 1000, 0.001);
    const speed = Math.round(rows / seconds);
    if (this.bar !== undefined) {
      this.bar.update(rows, { speed });
    } else if (this.mode === 'lines' && rows - this.lastLineRows >= this.rowsPerLine) {
      this.lastLineRows = rows;
      console.log(`${label}: ${rows} rows (${speed} rows/s)`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
