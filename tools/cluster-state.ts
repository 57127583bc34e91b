// What gs_joincluster, gs_leavecluster and gs_stopcluster check before they ask anything of the
// node: its `/cluster` status in GET /node/stat (nodeStatus, clusterStatus, the master's system
// service), and the options these commands share.

import {
  callNode, CommandError, type Credentials, type NodeAddress,
} from './operating-command.ts';

export interface ClusterState {
  /** ACTIVE once the node serves (a store node is then its own cluster's master), INACTIVE before. */
  nodeStatus: string;
  /** MASTER / FOLLOWER when the cluster serves, SUB_CLUSTER otherwise. */
  clusterStatus: string;
  /** The master's system service. */
  master: NodeAddress;
}

/** The `/cluster` members of the node's status report. */
export async function clusterState(address: NodeAddress, credentials: Credentials):
  Promise<ClusterState> {
  const report = await callNode(address, credentials, { method: 'GET', path: '/node/stat' }) as {
    cluster?: { nodeStatus?: unknown; clusterStatus?: unknown;
      master?: { address?: unknown; port?: unknown } };
  };
  const cluster = report.cluster;
  const master = cluster?.master;
  if (typeof cluster?.nodeStatus !== 'string' || typeof cluster.clusterStatus !== 'string' ||
    typeof master?.address !== 'string' || typeof master.port !== 'number') {
    throw new CommandError('A00100: Request error occurred. (/node/stat has no cluster status)');
  }
  return {
    nodeStatus: cluster.nodeStatus, clusterStatus: cluster.clusterStatus,
    master: { host: master.address, port: master.port },
  };
}

/** The options of every cluster command (besides its own and -w, taken out before). */
export const CLUSTER_COMMAND_OPTIONS = {
  user: { type: 'string', short: 'u' },
  server: { type: 'string', short: 's' },
  port: { type: 'string', short: 'p' },
} as const;

/** The option lines of --help shared by the cluster commands. */
export const CLUSTER_COMMAND_HELP: Array<[string, string]> = [
  ['-u, --user USER/PASS', 'the administrator and password (required)'],
  ['-s, --server HOST[:PORT]', 'the node\'s system service (default 127.0.0.1:10040)'],
  ['-p, --port PORT', 'the system service port (default 10040)'],
];
