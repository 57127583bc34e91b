// A throwaway PostgreSQL cluster and one connected client for a differential test suite: started
// before the suite's tests, stopped after them (postgres-cluster.ts does the cluster). Call it
// inside a describe that skips when postgresMissing() says so.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.ts';

export interface PostgresSuite {
  readonly client: pg.Client;
}

/** `prefix` names the cluster's temporary directory; `sessionSql` runs once after connecting. */
export function postgresClientForSuite(prefix: string, sessionSql?: string): PostgresSuite {
  let cluster: PostgresCluster | undefined;
  let client: pg.Client | undefined;

  before(async () => {
    cluster = await startPostgresCluster({ prefix, durable: false });
    assert(cluster !== undefined);
    client = new pg.Client({ host: cluster.socketDirectory, port: cluster.port, user: cluster.user,
      database: 'postgres' });
    await client.connect();
    if (sessionSql !== undefined) await client.query(sessionSql);
  });

  after(async () => {
    await client?.end().catch(() => undefined);
    await cluster?.stop();
  });

  return {
    get client() {
      assert(client !== undefined, 'PostgreSQL is not started: the suite should have skipped');
      return client;
    },
  };
}
