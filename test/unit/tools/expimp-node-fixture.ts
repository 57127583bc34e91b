// The node the export and import suites run against: started before the suite (logWriteMode 0),
// with a client store and the tools' connection arguments, stopped after it, and every directory
// the suite asked for removed. Call it inside the suite's describe(): it registers both hooks.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

export interface ExpimpNode {
  readonly node: NodeProcess;
  readonly store: ClientStore;
  /** gs_export's and gs_import's user, server and --silent. */
  readonly args: readonly string[];
  /** A new empty directory, removed after the suite. */
  newDirectory(): string;
}

export function expimpNodeFixture(directoryPrefix: string): ExpimpNode {
  let home: string | undefined;
  let node: NodeProcess | undefined;
  let store: ClientStore | undefined;
  const directories: string[] = [];
  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    store = getStore({ notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin' });
  });
  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    if (home !== undefined) removeHome(home);
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });
  return {
    get node() { return node!; },
    get store() { return store!; },
    get args() {
      return ['-u', 'admin/admin', '-s', `127.0.0.1:${node!.transactionPort}`, '--silent'];
    },
    newDirectory() {
      const directory = mkdtempSync(join(tmpdir(), directoryPrefix));
      directories.push(directory);
      return directory;
    },
  };
}
