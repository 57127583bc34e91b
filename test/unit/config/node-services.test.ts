// Service addresses inherit from /serviceAddress; public addresses from the service's own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../../lib/config/config.ts';

describe('node services', () => {
  it('inherits the root serviceAddress and lets each service override it', () => {
    const { config, problems } = readConfig({
      node: {
        serviceAddress: '192.0.2.1',
        transaction: { serviceAddress: '10.1.1.1', publicServiceAddress: '203.0.113.1', servicePort: 0 },
        sql: { servicePort: 0 },
        system: { serviceSslPort: 10046 },
      },
    });
    assert.deepEqual(problems, []);
    const { services } = config.node;
    assert.deepEqual(services.transaction,
      { address: '10.1.1.1', port: 0, publicAddress: '203.0.113.1' });
    assert.deepEqual(services.sql, { address: '192.0.2.1', port: 0, publicAddress: '192.0.2.1' });
    assert.deepEqual(services.cluster, { address: '192.0.2.1', port: 10010 });
    assert.equal(services.system.sslPort, 10046);
  });

  it('takes host names and IPv6 addresses', () => {
    const { config, problems } = readConfig({
      node: { serviceAddress: 'db-1.example.com', sql: { serviceAddress: '::1' } },
    });
    assert.deepEqual(problems, []);
    assert.equal(config.node.services.cluster.address, 'db-1.example.com');
    assert.equal(config.node.services.sql.address, '::1');
  });

  it('warns that localServiceAddress was removed, and ignores it', () => {
    const { config, problems, warnings } = readConfig({
      node: { transaction: { localServiceAddress: '10.0.0.1' } },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(warnings, ['gs_node.json /transaction/localServiceAddress: removed in ' +
      'GridDB 5.1 (use publicServiceAddress); ignored']);
    assert.equal(config.node.services.transaction.address, '127.0.0.1');
  });

  it('reads the reply-buffer and unauthenticated limits, and refuses a hard limit under the soft one', () => {
    const { config, problems } = readConfig({ node: { transaction: {
      unauthenticatedConnectionLimit: 50, unauthenticatedConnectionLimitPerAddress: 5,
      replyBufferSoftLimit: '8MB', replyBufferHardLimit: '32MB', replyBufferSoftLimitTime: '3s',
      replyBufferQueryLimit: '2MB', totalMessageMemoryLimit: '64MB',
    } } });
    assert.deepEqual(problems, []);
    const { transaction } = config.node;
    assert.equal(transaction.unauthenticatedConnectionLimit, 50);
    assert.equal(transaction.unauthenticatedConnectionLimitPerAddress, 5);
    assert.equal(transaction.replyBufferSoftLimitBytes, 8 * 1024 * 1024);
    assert.equal(transaction.replyBufferHardLimitBytes, 32 * 1024 * 1024);
    assert.equal(transaction.replyBufferSoftLimitTimeMs, 3000);
    assert.equal(transaction.replyBufferQueryLimitBytes, 2 * 1024 * 1024);
    assert.equal(transaction.totalMessageMemoryLimitBytes, 64 * 1024 * 1024);
    const bad = readConfig({ node: { transaction: {
      replyBufferSoftLimit: '64MB', replyBufferHardLimit: '32MB',
      unauthenticatedConnectionLimit: 10, unauthenticatedConnectionLimitPerAddress: 11,
    } } });
    assert.equal(bad.problems.length, 2);
    assert.match(bad.problems[0]!, /^gs_node\.json \/transaction\/unauthenticatedConnectionLimitPerAddress: 11 /);
    assert.match(bad.problems[1]!, /^gs_node\.json \/transaction\/replyBufferHardLimit: "32MB" .* from 64MB/);
  });

  it('reads connection limits at their bounds', () => {
    const { config, problems } = readConfig({
      node: { transaction: { connectionLimit: 3 }, sql: { connectionLimit: 65536 } },
    });
    assert.deepEqual(problems, []);
    assert.equal(config.node.transaction.connectionLimit, 3);
    assert.equal(config.node.sql.connectionLimit, 65536);
  });
});
