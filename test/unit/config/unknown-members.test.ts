// GridDB ignores members it does not know; so do we, and say so in a warning for the event log.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../../lib/config/config.ts';

describe('unknown members', () => {
  it('warns about unknown members and groups, and reads the rest', () => {
    const { config, problems, warnings } = readConfig({
      cluster: { cluster: { clusterName: 'c', colour: 'blue' }, plugins: { a: 1 } },
      node: { transaction: { servicePort: 11001, turbo: true }, comment: 'hand-written' },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(warnings, [
      'gs_cluster.json /cluster/colour: unknown member, ignored',
      'gs_cluster.json /plugins: unknown member, ignored',
      'gs_node.json /transaction/turbo: unknown member, ignored',
      'gs_node.json /comment: unknown member, ignored',
    ]);
    assert.equal(config.cluster.clusterName, 'c');
    assert.equal(config.node.services.transaction.port, 11001);
  });

  it('says which file a member placed in the other one belongs in', () => {
    const { config, warnings } = readConfig({
      cluster: { dataStore: { concurrency: 8 } },
      node: { cluster: { clusterName: 'x' } },
    });
    assert.deepEqual(warnings, [
      'gs_cluster.json /dataStore/concurrency: belongs in gs_node.json; ignored here',
      'gs_node.json /cluster/clusterName: belongs in gs_cluster.json; ignored here',
    ]);
    assert.equal(config.storage.concurrency, 4);
    assert.equal(config.cluster.clusterName, 'myCluster');
  });

  it('reads the seed\'s `/datastore` spelling of the group without a warning', () => {
    const { config, warnings } = readConfig({
      node: { datastore: { storeCompressionMode: 'COMPRESSION' } },
    });
    assert.deepEqual(warnings, []);
    assert.equal(config.storage.storeCompressionMode, 'COMPRESSION');
  });

  it('refuses a group that is not an object', () => {
    const { problems } = readConfig({ cluster: { cluster: 'myCluster' }, node: { trace: [] } });
    assert.deepEqual(problems, [
      'gs_cluster.json /cluster: "myCluster" is not an object holding members',
      'gs_node.json /trace: [] is not an object holding members',
    ]);
  });

  it('warns about an unknown trace category', () => {
    const { warnings } = readConfig({ node: { trace: { sqlDetail: 'LEVEL_INFO' } } });
    assert.deepEqual(warnings, ['gs_node.json /trace/sqlDetail: unknown member, ignored']);
  });
});
