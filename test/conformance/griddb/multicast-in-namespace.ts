// The part of multicast.test.ts that runs inside its private network namespace (started by
// `unshare -rn`, with lo up, multicast on and a route for 224.0.0.0/4 on lo): a node in
// MULTICAST notification mode, announcing on GridDB's default group 239.0.0.1:31999 every second,
// and the C program multicast.c given only that group. Prints the program's run as one JSON line
// and stops the node; everything is bounded (the node's start, the program's run).
//
//   node --import tsx multicast-in-namespace.ts <compiled multicast.c> <"announce" | "silent">
//
// "silent" runs the same node without a multicast setting (the node then sends nothing): the
// program must not find it.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProgram } from '../../support/griddb-c-client.ts';
import { newNodeHome, removeHome, startNodeProcess } from '../../unit/node/node-process.ts';

const GROUP = { address: '239.0.0.1', port: 31999 };
const CLUSTER = 'myCluster';
const PROGRAM_TIMEOUT_MS = 60_000;

const [program, mode] = process.argv.slice(2);
if (program === undefined || (mode !== 'announce' && mode !== 'silent')) {
  throw new Error('usage: multicast-in-namespace.ts <program> <announce | silent>');
}
const home = newNodeHome();
try {
  writeFileSync(join(home, 'conf', 'gs_cluster.json'), JSON.stringify({
    cluster: { clusterName: CLUSTER,
      ...(mode === 'announce' ? { notificationAddress: GROUP.address } : {}) },
    transaction: { notificationAddress: GROUP.address, notificationPort: GROUP.port,
      notificationInterval: '1s' },
  }));
  const node = await startNodeProcess(home);
  try {
    const run = await runProgram(program, [GROUP.address, String(GROUP.port), CLUSTER],
      PROGRAM_TIMEOUT_MS);
    console.log(JSON.stringify(run));
  } finally {
    await node.stop();
  }
} finally {
  removeHome(home);
}
