// The cluster definition (gs_cluster.json): what every node of a cluster must agree on. The
// storage members of this file (partitionNum, storeBlockSize) are read with the storage options
// (lib/base/options.ts); everything else is read here. Defaults are those of GridDB's package
// file: a FIXED_LIST cluster named `myCluster` of this node alone.

import { CLUSTER_NAME_LENGTH_MAX } from '../base/limits.ts';
import type { OptionReader } from '../base/option-reader.ts';
import {
  CLUSTER_NAME_PATTERN, readClusterNotification, readMulticastGroups, type ClusterNotification,
  type MulticastGroup,
} from './cluster-notification.ts';

export type ReplicationMode = 'ASYNC' | 'SEMISYNC';
export type ServerSslMode = 'DISABLED' | 'PREFERRED' | 'REQUIRED';
export type SslProtocolVersion = 'TLSv1.2' | 'TLSv1.3';

export interface ClusterConfig {
  clusterName: string;
  /** Copies of each partition, the owner included. */
  replicationNum: number;
  heartbeatIntervalMs: number;
  loadbalanceCheckIntervalMs: number;
  rackZoneAwareness: boolean;
  notification: ClusterNotification;
  sync: { timeoutIntervalMs: number };
  transaction: {
    /** Client (NoSQL) discovery in MULTICAST mode. */
    notification: MulticastGroup;
    replicationMode: ReplicationMode;
    replicationTimeoutIntervalMs: number;
    authenticationTimeoutIntervalMs: number;
    useMultitenantMode: boolean;
  };
  sql: {
    /** JDBC and SQL client discovery in MULTICAST mode. */
    notification: MulticastGroup;
    costBasedJoin: boolean;
    costBasedJoinDriving: boolean;
    costBasedIndexScan: boolean;
    partitioningRowkeyConstraint: boolean;
  };
  security: {
    authentication: 'INTERNAL';
    ldapRoleManagement: 'USER' | 'GROUP';
    ldapUrl: string;
    ldapUserDNPrefix: string;
    ldapUserDNSuffix: string;
    ldapBindDn: string;
    ldapBindPassword: string;
    ldapBaseDn: string;
    ldapSearchAttribute: string;
    ldapMemberOfAttribute: string;
  };
  system: {
    serverSslMode: ServerSslMode;
    sslProtocolMaxVersion: SslProtocolVersion;
  };
}

export const CLUSTER_NAME_DEFAULT = 'myCluster';
/** `/cluster/replicationNum`: GridDB's code accepts up to 999. */
export const REPLICATION_NUM_MAX = 999;
/** `/transaction/replicationTimeoutInterval`, `/transaction/authenticationTimeoutInterval`. */
const TRANSACTION_TIMEOUT_RANGE = { minMs: 1_000, maxMs: 300_000 };
const INTERVAL_RANGE = { minMs: 1_000 };
const LDAP_TEXT = { lengthMax: 4096 };

export function readClusterConfig(read: OptionReader): ClusterConfig {
  const groups = readMulticastGroups(read);
  return {
    clusterName: read.text('cluster', '/cluster/clusterName', CLUSTER_NAME_DEFAULT, {
      lengthMax: CLUSTER_NAME_LENGTH_MAX,
      pattern: CLUSTER_NAME_PATTERN,
      patternText: `a cluster name: 1 to ${CLUSTER_NAME_LENGTH_MAX} ASCII letters, digits, ` +
        'or _ - . / =',
    }),
    replicationNum: read.integer('cluster', '/cluster/replicationNum', 2,
      { min: 1, max: REPLICATION_NUM_MAX }),
    heartbeatIntervalMs: read.duration('cluster', '/cluster/heartbeatInterval', 5_000,
      INTERVAL_RANGE),
    loadbalanceCheckIntervalMs: read.duration('cluster', '/cluster/loadbalanceCheckInterval',
      180_000, INTERVAL_RANGE),
    rackZoneAwareness: read.boolean('cluster', '/cluster/rackZoneAwareness', false),
    notification: readClusterNotification(read, groups.cluster),
    sync: {
      timeoutIntervalMs: read.duration('cluster', '/sync/timeoutInterval', 30_000, INTERVAL_RANGE),
    },
    transaction: {
      notification: groups.transaction,
      replicationMode: readReplicationMode(read),
      replicationTimeoutIntervalMs: read.duration('cluster',
        '/transaction/replicationTimeoutInterval', 10_000, TRANSACTION_TIMEOUT_RANGE),
      authenticationTimeoutIntervalMs: read.duration('cluster',
        '/transaction/authenticationTimeoutInterval', 5_000, TRANSACTION_TIMEOUT_RANGE),
      useMultitenantMode: read.boolean('cluster', '/transaction/useMultitenantMode', false),
    },
    sql: {
      notification: groups.sql,
      costBasedJoin: read.boolean('cluster', '/sql/costBasedJoin', true),
      costBasedJoinDriving: read.boolean('cluster', '/sql/costBasedJoinDriving', true),
      costBasedIndexScan: read.boolean('cluster', '/sql/costBasedIndexScan', true),
      partitioningRowkeyConstraint: read.boolean('cluster', '/sql/partitioningRowkeyConstraint',
        true),
    },
    security: readSecurity(read),
    system: {
      serverSslMode: read.choice('cluster', '/system/serverSslMode', 'DISABLED',
        ['DISABLED', 'PREFERRED', 'REQUIRED'] as const),
      sslProtocolMaxVersion: read.choice('cluster', '/system/sslProtocolMaxVersion', 'TLSv1.2',
        ['TLSv1.2', 'TLSv1.3'] as const),
    },
  };
}

/** GridDB takes the number (0, 1) or the name (ASYNC, SEMISYNC). */
function readReplicationMode(read: OptionReader): ReplicationMode {
  const path = '/transaction/replicationMode';
  const value = read.member('cluster', path);
  if (value === undefined || value === 0 || value === 'ASYNC') return 'ASYNC';
  if (value === 1 || value === 'SEMISYNC') return 'SEMISYNC';
  read.reject('cluster', path, value, 'one of 0, 1, ASYNC, SEMISYNC');
  return 'ASYNC';
}

function readSecurity(read: OptionReader): ClusterConfig['security'] {
  // Users come from conf/password only: LDAP (an Enterprise Edition feature) is refused rather
  // than silently ignored, so nobody believes a directory is being asked.
  const authentication = read.member('cluster', '/security/authentication');
  if (authentication !== undefined && authentication !== 'INTERNAL') {
    read.reject('cluster', '/security/authentication', authentication,
      'INTERNAL (LDAP authentication is not supported)');
  }
  const ldap = (name: string, fallback = '') =>
    read.text('cluster', `/security/${name}`, fallback, LDAP_TEXT);
  return {
    authentication: 'INTERNAL',
    ldapRoleManagement: read.choice('cluster', '/security/ldapRoleManagement', 'USER',
      ['USER', 'GROUP'] as const),
    ldapUrl: ldap('ldapUrl'),
    ldapUserDNPrefix: ldap('ldapUserDNPrefix'),
    ldapUserDNSuffix: ldap('ldapUserDNSuffix'),
    ldapBindDn: ldap('ldapBindDn'),
    ldapBindPassword: ldap('ldapBindPassword'),
    ldapBaseDn: ldap('ldapBaseDn'),
    ldapSearchAttribute: ldap('ldapSearchAttribute', 'uid'),
    // The manual says `memberof`; the code's default, which we take, is `memberOf`.
    ldapMemberOfAttribute: ldap('ldapMemberOfAttribute', 'memberOf'),
  };
}
