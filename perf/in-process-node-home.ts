// The home of a node a perf script starts in its own process (StoreNode.start), with the web API
// embedded: every port chosen by the system, logWriteMode 1, and a web API repository naming the
// cluster (its member is never dialled: the embedded web API reaches the node in process).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeInProcessNodeHome(home: string): void {
  mkdirSync(join(home, 'conf'), { recursive: true });
  const ports = Object.fromEntries(['system', 'transaction', 'sql', 'cluster', 'sync']
    .map((service) => [service, { servicePort: 0 }]));
  writeFileSync(join(home, 'conf', 'gs_node.json'),
    JSON.stringify({ ...ports, dataStore: { logWriteMode: 1 } }));
  mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
  writeFileSync(join(home, 'webapi', 'conf', 'repository.json'), JSON.stringify({ clusters: [
    { name: 'myCluster', mode: 'FIXED_LIST', transactionMember: '127.0.0.1:1', sqlMember: '' }] }));
}
