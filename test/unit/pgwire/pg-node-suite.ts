// One node and one node-postgres client of it for a describe block of the PostgreSQL protocol
// tests that replay what a tool sends: before() starts the node (logWriteMode 0), connects as
// admin with the tool's application_name and runs the suite's setup; after() ends both.

import { after, before } from 'node:test';
import pg from 'pg';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

export interface PgNodeSuite {
  /** The connected client (from the suite's before() on). */
  readonly db: pg.Client;
}

export function pgClientOnNodeForSuite(applicationName: string, setup: (db: pg.Client) => Promise<void>):
  PgNodeSuite {
  let home: string;
  let node: NodeProcess | undefined;
  let db: pg.Client | undefined;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
      database: 'public', application_name: applicationName });
    await db.connect();
    await setup(db);
  });

  after(async () => {
    await db?.end().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  return {
    get db(): pg.Client {
      if (db === undefined) throw new Error('the suite\'s client is used before its before() ran');
      return db;
    },
  };
}
