// Where a node's five services listen (gs_node.json): each service's address falls back to the
// root `/serviceAddress`, then to 127.0.0.1 (so a node started without configuration is reachable
// from this machine only). Clients that ask for the public route (`connectionRoute=PUBLIC`) are
// sent to `publicServiceAddress`, which falls back to the service's own address. Two services on
// one port is an error: the second could never listen.

import type { OptionReader } from '../base/option-reader.ts';
import type { Endpoint, NodeAddressSet } from './cluster-notification.ts';

export interface PublicEndpoint extends Endpoint {
  publicAddress: string;
}

export interface NodeServices {
  /** Node to node: heartbeats, the partition table (10010). */
  cluster: Endpoint;
  /** Node to node: catching a backup up with its owner (10020). */
  sync: Endpoint;
  /** HTTP for the gs_* operating commands (10040); `sslPort` for HTTPS (10045). */
  system: Endpoint & { sslPort: number };
  /** The client protocol (10001). */
  transaction: PublicEndpoint;
  /** SQL clients (20001). */
  sql: PublicEndpoint;
}

export const SERVICE_ADDRESS_DEFAULT = '127.0.0.1';
export const SERVICE_PORTS_DEFAULT = {
  cluster: 10_010, sync: 10_020, system: 10_040, systemSsl: 10_045, transaction: 10_001, sql: 20_001,
} as const;

export function readNodeServices(read: OptionReader): NodeServices {
  const rootAddress = read.address('node', '/serviceAddress', SERVICE_ADDRESS_DEFAULT);
  const endpoint = (service: 'cluster' | 'sync' | 'system' | 'transaction' | 'sql'): Endpoint => ({
    address: read.address('node', `/${service}/serviceAddress`, rootAddress),
    // Port 0 asks the operating system for a free port: tests start nodes that way.
    port: read.port('node', `/${service}/servicePort`, SERVICE_PORTS_DEFAULT[service], 0),
  });
  const withPublic = (service: 'transaction' | 'sql'): PublicEndpoint => {
    const own = endpoint(service);
    return {
      ...own,
      publicAddress: read.address('node', `/${service}/publicServiceAddress`, own.address),
    };
  };
  for (const service of ['transaction', 'sql'] as const) {
    // Introduced in 4.3 for a separate internal network, removed in 5.1 (publicServiceAddress).
    if (read.has('node', `/${service}/localServiceAddress`)) {
      read.warn('node', `/${service}/localServiceAddress`,
        'removed in GridDB 5.1 (use publicServiceAddress); ignored');
    }
  }
  const services: NodeServices = {
    cluster: endpoint('cluster'),
    sync: endpoint('sync'),
    system: {
      ...endpoint('system'),
      sslPort: read.port('node', '/system/serviceSslPort', SERVICE_PORTS_DEFAULT.systemSsl, 0),
    },
    transaction: withPublic('transaction'),
    sql: withPublic('sql'),
  };
  checkDistinctPorts(read, services);
  return services;
}

/** This node as a FIXED_LIST entry: the default cluster is this node alone. */
export function nodeAddressSet(services: NodeServices): NodeAddressSet {
  const plain = (endpoint: Endpoint): Endpoint => ({ address: endpoint.address, port: endpoint.port });
  return {
    cluster: plain(services.cluster),
    sync: plain(services.sync),
    system: plain(services.system),
    transaction: plain(services.transaction),
    sql: plain(services.sql),
  };
}

function checkDistinctPorts(read: OptionReader, services: NodeServices): void {
  const ports: [string, number][] = [
    ['/cluster/servicePort', services.cluster.port],
    ['/sync/servicePort', services.sync.port],
    ['/system/servicePort', services.system.port],
    ['/system/serviceSslPort', services.system.sslPort],
    ['/transaction/servicePort', services.transaction.port],
    ['/sql/servicePort', services.sql.port],
  ];
  const owners = new Map<number, string>();
  for (const [path, port] of ports) {
    if (port === 0) continue; // every 0 gets a port of its own
    const owner = owners.get(port);
    if (owner !== undefined) {
      read.reject('node', path, port, `a port of its own (${owner} is also ${port})`);
    } else {
      owners.set(port, path);
    }
  }
}
