// PostgreSQL as the peer of export and import: `initdb` and `pg_ctl` on PATH (or in
// /usr/local/bin), a throwaway cluster in a temporary directory listening only on a Unix socket
// there, trust authentication, synchronous_commit on (its default: COPY FROM is durable when it
// returns, as gs_import's statements are). The rows are TSBS's in one table with a primary key
// (hostname, time), loaded with server-side `COPY cpu FROM '<file>' CSV` and written out with
// `COPY cpu TO '<file>' CSV`: no client transfer, PostgreSQL's best case. As root, the server runs
// as `nobody` (PostgreSQL refuses root). Without initdb the peer is skipped (undefined).

import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN_DIRECTORIES = ['/usr/local/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];
const PORT = 5433;
const NOBODY_UID = 65534;

export interface PostgresPeer {
  /** Runs one SQL statement; returns its wall time in ms. */
  timedSql(sql: string): Promise<number>;
  directory: string;
  stop(): Promise<void>;
}

function binary(name: string): string | undefined {
  for (const directory of BIN_DIRECTORIES) {
    if (existsSync(join(directory, name))) return join(directory, name);
  }
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A running throwaway PostgreSQL, or undefined when it is not installed. */
export async function startPostgresPeer(): Promise<PostgresPeer | undefined> {
  const initdb = binary('initdb');
  const pgCtl = binary('pg_ctl');
  const psql = binary('psql');
  if (initdb === undefined || pgCtl === undefined || psql === undefined) return undefined;
  const directory = mkdtempSync(join(tmpdir(), 'store-bench-pg-'));
  chmodSync(directory, 0o777);
  const asServer = (command: string, args: string[]) => process.getuid?.() === 0
    ? run('runuser', ['-u', 'nobody', '--', command, ...args]) : run(command, args);
  if (process.getuid?.() === 0) chownSync(directory, NOBODY_UID, NOBODY_UID);
  const data = join(directory, 'data');
  await asServer(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres']);
  await asServer(pgCtl, ['-D', data, '-w', '-l', join(directory, 'log'), '-o',
    `-p ${PORT} -k ${directory} -c listen_addresses=''`, 'start']);
  const sql = (statement: string) =>
    run(psql, ['-h', directory, '-p', String(PORT), '-U', 'postgres', '-q', '-c', statement]);
  return {
    directory,
    async timedSql(statement) {
      const startMs = performance.now();
      await sql(statement);
      return performance.now() - startMs;
    },
    async stop() {
      await asServer(pgCtl, ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
