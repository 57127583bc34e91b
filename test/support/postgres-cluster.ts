// A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary directory,
// `pg_ctl start` listening only on a Unix socket in that directory (no TCP port, so parallel runs
// cannot collide), trust authentication, `pg_ctl stop -m immediate` and the directory removed at
// the end. PostgreSQL refuses to run as root: as root the server runs as the `postgres` user when
// the system has one (Debian's package makes it), else as `nobody`. The binaries are looked up on
// PATH, in /usr/local/bin and in /usr/lib/postgresql/<version>/bin (Debian's place, newest
// first); without them startPostgresCluster gives undefined and callers skip with a message.

import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The socket file is .s.PGSQL.<port> in the private directory; the number only names it. */
const SOCKET_PORT = 5432;
const START_TIMEOUT_SECONDS = 60;

export interface PostgresCluster {
  /** Directory of the socket, the data and the log; the server user can write files here. */
  readonly directory: string;
  /** For `pg`: { host: socketDirectory, port }. */
  readonly socketDirectory: string;
  readonly port: number;
  readonly user: string;
  stop(): Promise<void>;
}

function binaryDirectories(): string[] {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT).filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a)).map((version) => join(DEBIAN_ROOT, version, 'bin'))
    : [];
  return ['/usr/local/bin', ...versions];
}

/** The path of a PostgreSQL program, or undefined when it is not installed. */
export function postgresBinary(name: string): string | undefined {
  for (const directory of binaryDirectories()) {
    if (existsSync(join(directory, name))) return join(directory, name);
  }
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why PostgreSQL tests are skipped here, or undefined when they can run. */
export function postgresMissing(): string | undefined {
  const missing = ['initdb', 'pg_ctl', 'postgres'].filter((name) => postgresBinary(name) === undefined);
  if (missing.length === 0) return undefined;
  return `PostgreSQL is not installed (${missing.join(', ')} not found; Debian: apt-get install ` +
    'postgresql)';
}

function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { name, uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root, but neither the postgres nor the nobody user exists');
}

/** A running throwaway cluster, or undefined when PostgreSQL is not installed. */
export async function startPostgresCluster(options: {
  /** Temporary directory name prefix. */
  readonly prefix: string;
  /** fsync on (benchmarks compare durable work); off for tests, where only answers matter. */
  readonly durable: boolean;
}): Promise<PostgresCluster | undefined> {
  if (postgresMissing() !== undefined) return undefined;
  const initdb = postgresBinary('initdb')!;
  const pgCtl = postgresBinary('pg_ctl')!;
  const user = serverUser();
  const directory = mkdtempSync(join(tmpdir(), options.prefix));
  chmodSync(directory, 0o755);
  if (user !== undefined) chownSync(directory, user.uid, user.gid);
  const asServer = (command: string, args: string[]) => (user !== undefined
    ? run('runuser', ['-u', user.name, '--', command, ...args])
    : run(command, args));
  const data = join(directory, 'data');
  try {
    await asServer(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8',
      '--locale=C', '--no-sync']);
    await asServer(pgCtl, ['-D', data, '-w', '-t', String(START_TIMEOUT_SECONDS), '-l',
      join(directory, 'log'), '-o',
      `-p ${SOCKET_PORT} -k ${directory} -c listen_addresses='' -c fsync=${options.durable ? 'on' : 'off'}`,
      'start']);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    directory,
    socketDirectory: directory,
    port: SOCKET_PORT,
    user: 'postgres',
    async stop() {
      if (stopped) return;
      stopped = true;
      await asServer(pgCtl, ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
