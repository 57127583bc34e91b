// How nodes find each other: FIXED_LIST (the default), MULTICAST or PROVIDER, exactly one of them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../../lib/config/config.ts';

const MEMBER = {
  cluster: { address: '10.0.0.1', port: 10010 }, sync: { address: '10.0.0.1', port: 10020 },
  system: { address: '10.0.0.1', port: 10040 }, transaction: { address: '10.0.0.1', port: 10001 },
  sql: { address: '10.0.0.1', port: 20001 },
};

function notificationOf(cluster: Record<string, unknown>) {
  const { config, problems } = readConfig({ cluster: { cluster } });
  assert.deepEqual(problems, []);
  return config.cluster.notification;
}

describe('cluster notification modes', () => {
  it('reads a fixed list with public routes', () => {
    const second = {
      ...MEMBER, cluster: { address: 'node-2.example', port: 10010 },
      transactionPublic: { address: '203.0.113.7', port: 10001 },
      sqlPublic: { address: '203.0.113.7', port: 20001 },
    };
    const notification = notificationOf({ notificationMember: [MEMBER, second] });
    assert.equal(notification.mode, 'FIXED_LIST');
    assert.ok(notification.mode === 'FIXED_LIST');
    assert.equal(notification.members.length, 2);
    assert.deepEqual(notification.members[1]!.transactionPublic,
      { address: '203.0.113.7', port: 10001 });
    assert.equal(notification.members[0]!.transactionPublic, undefined);
  });

  it('accepts a fixed-list entry without sql, as the provider\'s answer has none', () => {
    const { sql: _sql, ...withoutSql } = MEMBER;
    const notification = notificationOf({ notificationMember: [withoutSql] });
    assert.ok(notification.mode === 'FIXED_LIST');
    assert.equal(notification.members[0]!.sql, undefined);
  });

  it('reads multicast, falling back to the root notificationAddress', () => {
    const { config, problems } = readConfig({
      cluster: {
        notificationAddress: '239.1.2.3',
        cluster: { notificationPort: 20100, notificationInterval: '2s' },
        sql: { notificationAddress: '239.9.9.9' },
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config.cluster.notification,
      { mode: 'MULTICAST', group: { address: '239.1.2.3', port: 20100, intervalMs: 2_000 } });
    assert.equal(config.cluster.transaction.notification.address, '239.1.2.3');
    assert.equal(config.cluster.sql.notification.address, '239.9.9.9');
  });

  it('reads an IPv6 multicast address', () => {
    const notification = notificationOf({ notificationAddress: 'ff05::1' });
    assert.ok(notification.mode === 'MULTICAST');
    assert.equal(notification.group.address, 'ff05::1');
  });

  it('reads a provider with its update interval', () => {
    assert.deepEqual(
      notificationOf({ notificationProvider: { url: 'http://provider:8080/nodes.json', updateInterval: '30s' } }),
      { mode: 'PROVIDER', url: 'http://provider:8080/nodes.json', updateIntervalMs: 30_000 });
    assert.deepEqual(notificationOf({ notificationProvider: { url: 'https://p/list' } }),
      { mode: 'PROVIDER', url: 'https://p/list', updateIntervalMs: 5_000 });
  });

  it('refuses a provider without a URL', () => {
    const { problems } = readConfig({ cluster: { cluster: { notificationProvider: {} } } });
    assert.deepEqual(problems, ['gs_cluster.json /cluster/notificationProvider/url: missing; ' +
      'it must be an http:// or https:// URL']);
  });

  const conflicts: [string, Record<string, unknown>, string][] = [
    ['address and member', { notificationAddress: '239.0.0.1', notificationMember: [MEMBER] },
      'notificationAddress, notificationMember'],
    ['address and provider',
      { notificationAddress: '239.0.0.1', notificationProvider: { url: 'http://p/' } },
      'notificationAddress, notificationProvider'],
    ['member and provider', { notificationMember: [MEMBER], notificationProvider: { url: 'http://p/' } },
      'notificationMember, notificationProvider'],
    ['all three', {
      notificationAddress: '239.0.0.1', notificationMember: [MEMBER],
      notificationProvider: { url: 'http://p/' },
    }, 'notificationAddress, notificationMember, notificationProvider'],
  ];
  for (const [name, cluster, set] of conflicts) {
    it(`refuses more than one mode: ${name}`, () => {
      const { problems } = readConfig({ cluster: { cluster } });
      assert.deepEqual(problems, [`gs_cluster.json /cluster: ${set} are set together; set only ` +
        'one of notificationAddress (MULTICAST), notificationMember (FIXED_LIST) and ' +
        'notificationProvider (PROVIDER)']);
    });
  }

  it('lets a fixed list stand beside a root notificationAddress (client discovery only)', () => {
    const { config, problems } = readConfig({
      cluster: { notificationAddress: '239.0.0.1', cluster: { notificationMember: [MEMBER] } },
    });
    assert.deepEqual(problems, []);
    assert.equal(config.cluster.notification.mode, 'FIXED_LIST');
  });

  it('makes the default single-node list from this node\'s own addresses', () => {
    const { config } = readConfig({
      node: { serviceAddress: '192.0.2.5', transaction: { servicePort: 11001 } },
    });
    const notification = config.cluster.notification;
    assert.ok(notification.mode === 'FIXED_LIST');
    assert.deepEqual(notification.members[0]!.transaction, { address: '192.0.2.5', port: 11001 });
    assert.deepEqual(notification.members[0]!.cluster, { address: '192.0.2.5', port: 10010 });
  });
});
