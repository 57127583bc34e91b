// PostgreSQL as the peer of export and import: a throwaway cluster (test/support/postgres-cluster.ts:
// a temporary directory, a Unix socket there only, trust authentication, fsync and
// synchronous_commit on, their defaults: COPY FROM is durable when it returns, as gs_import's
// statements are). The rows are TSBS's in one table with a primary key (hostname, time), loaded
// with server-side `COPY cpu FROM '<file>' CSV` and written out with `COPY cpu TO '<file>' CSV`: no
// client transfer, PostgreSQL's best case. Without PostgreSQL the peer is skipped (undefined).

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { postgresBinary, startPostgresCluster } from '../test/support/postgres-cluster.ts';

const run = promisify(execFile);

export interface PostgresPeer {
  /** Runs one SQL statement; returns its wall time in ms. */
  timedSql(sql: string): Promise<number>;
  directory: string;
  stop(): Promise<void>;
}

/** A running throwaway PostgreSQL, or undefined when it is not installed. */
export async function startPostgresPeer(): Promise<PostgresPeer | undefined> {
  const psql = postgresBinary('psql');
  if (psql === undefined) return undefined;
  const cluster = await startPostgresCluster({ prefix: 'store-bench-pg-', durable: true });
  if (cluster === undefined) return undefined;
  const sql = (statement: string) => run(psql, ['-h', cluster.socketDirectory, '-p',
    String(cluster.port), '-U', cluster.user, '-q', '-c', statement]);
  return {
    directory: cluster.directory,
    async timedSql(statement) {
      const startMs = performance.now();
      await sql(statement);
      return performance.now() - startMs;
    },
    stop: () => cluster.stop(),
  };
}
