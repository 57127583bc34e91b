// With no definition files, or with the files a first start writes, every member has GridDB's
// package default (or ours where GridDB's documents and code disagree), and nothing is warned about.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORAGE_OPTION_DEFAULTS } from '../../../lib/base/options.ts';
import { readConfig } from '../../../lib/config/config.ts';
import { defaultClusterFile, defaultNodeFile } from '../../../lib/config/default-files.ts';
import { NODE_TUNING_MEMBERS } from '../../../lib/config/node-tuning.ts';
import { TRACE_CATEGORY_LEVELS_DEFAULT } from '../../../lib/config/trace-config.ts';

const MiB = 1024 * 1024;

describe('configuration defaults', () => {
  const { config, problems, warnings } = readConfig({});

  it('reads no files without a problem or a warning', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(warnings, []);
  });

  it('gives the engine exactly the storage defaults it opened with before', () => {
    assert.deepEqual(config.storage, STORAGE_OPTION_DEFAULTS);
  });

  it('is a FIXED_LIST cluster named myCluster of this node alone', () => {
    assert.equal(config.cluster.clusterName, 'myCluster');
    assert.equal(config.cluster.replicationNum, 2);
    assert.deepEqual(config.cluster.notification, {
      mode: 'FIXED_LIST',
      members: [{
        cluster: { address: '127.0.0.1', port: 10010 },
        sync: { address: '127.0.0.1', port: 10020 },
        system: { address: '127.0.0.1', port: 10040 },
        transaction: { address: '127.0.0.1', port: 10001 },
        sql: { address: '127.0.0.1', port: 20001 },
      }],
    });
    assert.equal(config.cluster.heartbeatIntervalMs, 5_000);
    assert.equal(config.cluster.loadbalanceCheckIntervalMs, 180_000);
    assert.equal(config.cluster.sync.timeoutIntervalMs, 30_000);
  });

  it('has the multicast groups of the three services', () => {
    assert.deepEqual(config.cluster.transaction.notification,
      { address: '239.0.0.1', port: 31999, intervalMs: 5_000 });
    assert.deepEqual(config.cluster.sql.notification,
      { address: '239.0.0.1', port: 41999, intervalMs: 5_000 });
    assert.equal(config.cluster.transaction.replicationMode, 'ASYNC');
    assert.equal(config.cluster.transaction.replicationTimeoutIntervalMs, 10_000);
    assert.equal(config.cluster.transaction.authenticationTimeoutIntervalMs, 5_000);
    assert.equal(config.cluster.security.authentication, 'INTERNAL');
    assert.equal(config.cluster.security.ldapMemberOfAttribute, 'memberOf');
    assert.equal(config.cluster.system.serverSslMode, 'DISABLED');
  });

  it('listens on the default ports of 127.0.0.1', () => {
    const { services } = config.node;
    assert.deepEqual(services.cluster, { address: '127.0.0.1', port: 10010 });
    assert.deepEqual(services.sync, { address: '127.0.0.1', port: 10020 });
    assert.deepEqual(services.system, { address: '127.0.0.1', port: 10040, sslPort: 10045 });
    assert.deepEqual(services.transaction,
      { address: '127.0.0.1', port: 10001, publicAddress: '127.0.0.1' });
    assert.deepEqual(services.sql, { address: '127.0.0.1', port: 20001, publicAddress: '127.0.0.1' });
  });

  it('has the node members of the shipped gs_node.json', () => {
    const { node } = config;
    assert.equal(node.transaction.connectionLimit, 5000);
    assert.equal(node.transaction.totalMemoryLimitBytes, 1024 * MiB);
    assert.equal(node.transaction.reauthenticationIntervalMs, 0);
    assert.equal(node.transaction.unauthenticatedConnectionLimit, 1000);
    assert.equal(node.transaction.unauthenticatedConnectionLimitPerAddress, 100);
    assert.equal(node.transaction.replyBufferSoftLimitBytes, 16 * MiB);
    assert.equal(node.transaction.replyBufferSoftLimitTimeMs, 60_000);
    assert.equal(node.transaction.replyBufferQueryLimitBytes, 8 * 1024 * 1024);
    assert.equal(node.transaction.replyBufferHardLimitBytes, 256 * MiB);
    assert.equal(node.transaction.totalMessageMemoryLimitBytes, 1024 * MiB);
    assert.equal(node.sql.connectionLimit, 5000);
    assert.equal(node.sql.workMemoryLimitBytes, 32 * MiB);
    assert.equal(node.sql.partitioningRowkeyConstraint, true);
    assert.equal(node.sql.traceLimitExecutionTimeMs, 300_000);
    assert.equal(node.dataStore.affinityGroupSize, 4);
    assert.equal(node.dataStore.persistencyMode, 'NORMAL');
    assert.equal(node.dataStore.backupPath, 'backup');
    assert.equal(node.system.eventLogPath, 'log');
    assert.equal(node.trace.fileCount, 30);
    assert.deepEqual(node.trace.levels, TRACE_CATEGORY_LEVELS_DEFAULT);
  });

  it('has a default for every member GridDB defines only in its code', () => {
    for (const [path, spec] of Object.entries(NODE_TUNING_MEMBERS)) {
      assert.equal(config.node.tuning[path as keyof typeof NODE_TUNING_MEMBERS], spec.fallback, path);
    }
    assert.equal(config.node.tuning['/transaction/keepaliveIdle'], 600_000);
    assert.equal(config.node.tuning['/sql/fetchSizeLimit'], 2 * MiB);
  });

  it('reads the files a first start writes as the same defaults, with no warning', () => {
    const shipped = readConfig({ cluster: defaultClusterFile(), node: defaultNodeFile() });
    assert.deepEqual(shipped.problems, []);
    assert.deepEqual(shipped.warnings, []);
    assert.deepEqual(shipped.config, config);
  });

  it('reads GridDB\'s source-tree gs_cluster.json as a MULTICAST cluster', () => {
    const sourceTree = {
      dataStore: { partitionNum: 128, storeBlockSize: '64KB' },
      cluster: {
        clusterName: 'c1', replicationNum: 2, notificationAddress: '239.0.0.1',
        notificationPort: 20000, notificationInterval: '5s', heartbeatInterval: '5s',
        loadbalanceCheckInterval: '180s',
      },
      sync: { timeoutInterval: '30s' },
      transaction: {
        notificationAddress: '239.0.0.1', notificationPort: 31999, notificationInterval: '5s',
        replicationMode: 0, replicationTimeoutInterval: '10s',
      },
      sql: { notificationAddress: '239.0.0.1', notificationPort: 41999, notificationInterval: '5s' },
    };
    const read = readConfig({ cluster: sourceTree });
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.warnings, []);
    assert.deepEqual(read.config.cluster.notification,
      { mode: 'MULTICAST', group: { address: '239.0.0.1', port: 20000, intervalMs: 5_000 } });
  });
});
