// Connection properties: GridDB's names and rules, every problem named at once.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FAILOVER_TIMEOUT_MS_DEFAULT, resolveClientOptions, type StoreProperties,
} from '../../../lib/client/client-properties.ts';
import { storageError } from '../server/server-test-helpers.ts';

const BASE: StoreProperties = { clusterName: 'c', username: 'admin', password: 'p' };

describe('client properties', () => {
  it('reads notificationMember lists, host and port, and a provider URL', () => {
    const members = resolveClientOptions({ ...BASE,
      notificationMember: '10.0.0.1:10001, node2:10002,[::1]:10003' });
    assert.deepEqual(members.locator, { kind: 'members', members: [
      { host: '10.0.0.1', port: 10001 }, { host: 'node2', port: 10002 },
      { host: '::1', port: 10003 },
    ] });
    assert.equal(members.database, 'public');
    assert.equal(members.connectionRoute, 'INTERNAL');
    assert.equal(members.failoverTimeoutMs, FAILOVER_TIMEOUT_MS_DEFAULT);
    const direct = resolveClientOptions({ ...BASE, host: 'h', port: '10001' });
    assert.deepEqual(direct.locator, { kind: 'members', members: [{ host: 'h', port: 10001 }] });
    const provider = resolveClientOptions({ ...BASE, notificationProvider: 'http://p/list.json',
      connectionRoute: 'PUBLIC' });
    assert.equal(provider.locator.kind, 'provider');
    assert.equal(provider.connectionRoute, 'PUBLIC');
  });

  it('takes GridDB\'s units: seconds for transactionTimeout and failoverTimeout', () => {
    const options = resolveClientOptions({ ...BASE, host: 'h', port: 1, transactionTimeout: '30',
      failoverTimeout: 2, user: 'admin' });
    assert.equal(options.transactionTimeoutMs, 30_000);
    assert.equal(options.failoverTimeoutMs, 2000);
    assert.equal(options.user, 'admin');
  });

  it('refuses more than one way to find the cluster', () => {
    assert.throws(() => resolveClientOptions({ ...BASE, notificationMember: 'a:1',
      notificationProvider: 'http://p' }),
    storageError('CONFIG_INVALID', /only one of .* notificationMember and notificationProvider/));
    assert.throws(() =>
      resolveClientOptions({ ...BASE, notificationMember: 'a:1', host: 'h', port: 1 }),
      storageError('CONFIG_INVALID', /notificationMember and host\/port/));
    assert.throws(() => resolveClientOptions({ ...BASE, notificationAddress: '239.0.0.1',
      notificationProvider: 'http://p' }), storageError('CONFIG_INVALID'));
  });

  it('says multicast is not supported yet', () => {
    assert.throws(() => resolveClientOptions({ ...BASE, notificationAddress: '239.0.0.1' }),
      storageError('NOT_SUPPORTED', /notificationAddress/));
  });

  it('names every problem at once', () => {
    assert.throws(() => resolveClientOptions({ notificationMember: 'nohost', clusterName: '',
      port: 70_000, connectionRoute: 'SIDEWAYS', connectionPoolSize: 0,
      ...{ colour: 'red' } } as StoreProperties), (error: unknown) => {
      storageError('CONFIG_INVALID')(error);
      const message = (error as Error).message;
      for (const part of ['unknown property "colour"', 'only one of', 'clusterName', 'username',
        'password', 'connectionRoute', 'connectionPoolSize']) {
        assert.ok(message.includes(part), `${part} in ${message}`);
      }
      return true;
    });
    assert.throws(() => resolveClientOptions({ ...BASE, notificationMember: 'a:99999' }),
      storageError('CONFIG_INVALID', /"a:99999" is not host:port/));
    assert.throws(() => resolveClientOptions({ ...BASE }), storageError('CONFIG_INVALID',
      /give notificationMember, notificationProvider, or host and port/));
    assert.throws(() => resolveClientOptions({ ...BASE, host: 'h', port: 1, user: 'x' }),
      storageError('CONFIG_INVALID', /username and user differ/));
  });
});
