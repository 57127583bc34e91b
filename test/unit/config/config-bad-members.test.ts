// Every kind of bad member is reported, all at once, naming the file, the member and what is
// allowed; the error is CONFIG_INVALID and the defaults stand in for the bad values.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { parseConfig, readConfig } from '../../../lib/config/config.ts';

type Json = Record<string, unknown>;

/** The single problem a file with one bad member gives. */
function problemOf(files: { cluster?: Json; node?: Json }): string {
  const { problems } = readConfig(files);
  assert.equal(problems.length, 1, problems.join('\n'));
  return problems[0]!;
}

describe('bad members', () => {
  const cases: [string, { cluster?: Json; node?: Json }, RegExp][] = [
    ['integer out of range', { node: { transaction: { connectionLimit: 2 } } },
      /^gs_node\.json \/transaction\/connectionLimit: 2 is not an integer from 3 to 65536$/],
    ['integer of the wrong type', { cluster: { cluster: { replicationNum: '2' } } },
      /^gs_cluster\.json \/cluster\/replicationNum: "2" is not an integer from 1 to 999$/],
    ['fraction for an integer', { node: { sql: { concurrency: 1.5 } } },
      /\/sql\/concurrency: 1\.5 is not an integer from 1 to 128/],
    ['size without a unit', { node: { sql: { workMemoryLimit: '32' } } },
      /\/sql\/workMemoryLimit: "32" is not a size with a unit \(B, KB, MB, GB, TB\)/],
    ['size with an unknown unit', { node: { transaction: { totalMemoryLimit: '1PB' } } },
      /\/transaction\/totalMemoryLimit: "1PB" is not a size/],
    ['size as a number', { node: { dataStore: { storeMemoryLimit: 1024 } } },
      /\/dataStore\/storeMemoryLimit: 1024 is not a size/],
    ['block size not allowed', { cluster: { dataStore: { storeBlockSize: '2MB' } } },
      /storeBlockSize: "2MB" is not one of 32KB, 64KB, 1MB, 4MB, 8MB, 16MB, 32MB/],
    ['duration without a unit', { cluster: { cluster: { heartbeatInterval: '5' } } },
      /\/cluster\/heartbeatInterval: "5" is not a duration with a unit \(h, min, s, ms\)/],
    ['duration below its least', { cluster: { cluster: { notificationInterval: '500ms' } } },
      /\/cluster\/notificationInterval: "500ms" is not a duration .* from 1000 ms/],
    ['duration above its most',
      { cluster: { transaction: { replicationTimeoutInterval: '301s' } } },
      /replicationTimeoutInterval: "301s" is not a duration .* to 300000 ms/],
    ['enumeration', { node: { trace: { ioMonitor: 'LEVEL_LOUD' } } },
      /\/trace\/ioMonitor: "LEVEL_LOUD" is not one of LEVEL_CRITICAL, LEVEL_ERROR/],
    ['enumeration of numbers and names', { cluster: { transaction: { replicationMode: 2 } } },
      /replicationMode: 2 is not one of 0, 1, ASYNC, SEMISYNC/],
    ['persistency mode', { node: { dataStore: { persistencyMode: 'ALL' } } },
      /persistencyMode: "ALL" is not one of NORMAL, RETAINING_ALL_LOG, KEEP_ALL_LOG/],
    ['boolean', { cluster: { sql: { costBasedJoin: 'yes' } } },
      /\/sql\/costBasedJoin: "yes" is not true or false/],
    ['rate', { node: { sql: { monitoringMemoryRate: 1.5 } } },
      /monitoringMemoryRate: 1\.5 is not a number from 0 to 1/],
    ['address', { node: { serviceAddress: 'not an address!' } },
      /\/serviceAddress: "not an address!" is not an IPv4 or IPv6 address or a host name/],
    ['multicast address', { cluster: { transaction: { notificationAddress: '10.0.0.1' } } },
      /\/transaction\/notificationAddress: "10\.0\.0\.1" is not a multicast address/],
    ['port', { node: { sql: { servicePort: 70000 } } },
      /\/sql\/servicePort: 70000 is not an integer from 0 to 65535/],
    ['two services on one port', { node: { sql: { servicePort: 10001 } } },
      /\/sql\/servicePort: 10001 is not a port of its own \(\/transaction\/servicePort is also/],
    ['path', { node: { system: { eventLogPath: '' } } },
      /\/system\/eventLogPath: "" is not a directory path/],
    ['cluster name characters', { cluster: { cluster: { clusterName: 'my cluster' } } },
      /\/cluster\/clusterName: "my cluster" is not a cluster name/],
    ['cluster name length', { cluster: { cluster: { clusterName: 'c'.repeat(65) } } },
      /\/cluster\/clusterName: "c{65}" is not a cluster name: 1 to 64/],
    ['LDAP', { cluster: { security: { authentication: 'LDAP' } } },
      /\/security\/authentication: "LDAP" is not INTERNAL \(LDAP authentication is not supported\)/],
    ['timestamp', { node: { dataStore: { erasableExpiredTime: 'yesterday' } } },
      /erasableExpiredTime: "yesterday" is not an ISO 8601 time/],
    ['file name', { node: { cluster: { stableGoalFileName: '../x.json' } } },
      /stableGoalFileName: "\.\.\/x\.json" is not a file name/],
    ['fixed-list entry', { cluster: { cluster: { notificationMember: ['127.0.0.1:10010'] } } },
      /\/cluster\/notificationMember\/0: "127\.0\.0\.1:10010" is not an object with cluster/],
    ['fixed-list empty', { cluster: { cluster: { notificationMember: [] } } },
      /\/cluster\/notificationMember: \[\] is not a list of 1 to 1000 node address objects/],
    ['provider URL', { cluster: { cluster: { notificationProvider: { url: 'ftp://x/' } } } },
      /\/cluster\/notificationProvider\/url: "ftp:\/\/x\/" is not an http:\/\/ or https:\/\/ URL/],
    ['provider interval',
      { cluster: { cluster: { notificationProvider: { url: 'http://h/', updateInterval: '0s' } } } },
      /\/cluster\/notificationProvider\/updateInterval: "0s" is not a duration/],
  ];

  for (const [kind, files, expected] of cases) {
    it(`names the member and what is allowed: ${kind}`, () => {
      assert.match(problemOf(files), expected);
    });
  }

  it('names a missing address or port of a fixed-list entry', () => {
    const problems = readConfig({
      cluster: {
        cluster: {
          notificationMember: [{
            cluster: { address: '10.0.0.1' }, sync: { address: '10.0.0.1', port: 10020 },
            system: { address: '10.0.0.1', port: 10040 },
          }],
        },
      },
    }).problems;
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0]!, /notificationMember\/0\/cluster: \{"address":"10\.0\.0\.1"\} is not an object \{"address"/);
    assert.match(problems[1]!, /notificationMember\/0\/transaction: missing; it must be an object/);
  });

  it('refuses a node listed twice', () => {
    const node = {
      cluster: { address: '10.0.0.1', port: 10010 }, sync: { address: '10.0.0.1', port: 10020 },
      system: { address: '10.0.0.1', port: 10040 }, transaction: { address: '10.0.0.1', port: 10001 },
    };
    assert.match(problemOf({ cluster: { cluster: { notificationMember: [node, node] } } }),
      /notificationMember\/1\/cluster: .* is not a node address not listed before \(10\.0\.0\.1:10010 is listed twice\)/);
  });

  it('reports every bad member of both files in one CONFIG_INVALID error', () => {
    const files = {
      cluster: {
        dataStore: { partitionNum: 0 },
        cluster: { clusterName: '', replicationNum: 0 },
      },
      node: {
        dataStore: { concurrency: 0, affinityGroupSize: 0 },
        transaction: { connectionLimit: 'many', servicePort: -1 },
        trace: { fileCount: 0 },
      },
    };
    assert.throws(() => parseConfig(files), (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.code, 'CONFIG_INVALID');
      const members = [
        'gs_cluster.json /dataStore/partitionNum', 'gs_cluster.json /cluster/clusterName',
        'gs_cluster.json /cluster/replicationNum', 'gs_node.json /dataStore/concurrency',
        'gs_node.json /dataStore/affinityGroupSize', 'gs_node.json /transaction/connectionLimit',
        'gs_node.json /transaction/servicePort', 'gs_node.json /trace/fileCount',
      ];
      for (const member of members) assert.ok(error.message.includes(member), member);
      return true;
    });
  });

  it('takes the defaults for the bad members it lists', () => {
    const { config, problems } = readConfig({ node: { transaction: { connectionLimit: 2 } } });
    assert.equal(problems.length, 1);
    assert.equal(config.node.transaction.connectionLimit, 5000);
  });

  it('keeps long values short in messages', () => {
    const problem = problemOf({ node: { system: { securityPath: ['x'.repeat(500)] } } });
    assert.ok(problem.length < 200, problem);
  });
});
