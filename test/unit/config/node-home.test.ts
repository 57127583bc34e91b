// A node's first and later starts: default files, configuration, users and the event log.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { prepareNodeHome } from '../../../lib/config/node-home.ts';
import type { Clock } from '../../../lib/io/clock.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';

const root = mkdtempSync(join(tmpdir(), 'store-node-home-'));
after(() => rmSync(root, { recursive: true, force: true }));
const clock: Clock = { nowMs: () => Date.UTC(2025, 5, 1), monotonicMs: () => 0 };
const fileSystem = new NodeFileSystem();

function records(directory: string): Record<string, unknown>[] {
  return readdirSync(directory).sort().flatMap((name) =>
    readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>));
}

describe('node home', () => {
  it('writes the defaults at the first start, reads them, and logs what it created', async () => {
    const home = join(root, 'h1');
    const prepared = await prepareNodeHome({
      env: { GS_HOME: home }, cwd: '/', toolsDirectory: '/nowhere', fileSystem, clock,
      eventLogBase: { node: '127.0.0.1:10010' },
    });
    prepared.eventLog.nodeStarted({ clusterName: prepared.config.cluster.clusterName });
    prepared.eventLog.close();
    assert.equal(prepared.createdFiles.length, 4);
    assert.equal(prepared.logDirectory, join(home, 'log'));
    assert.equal(prepared.config.cluster.clusterName, 'myCluster');
    prepared.users.authenticate('admin', 'admin');
    assert.deepEqual(readdirSync(join(home, 'log')), ['store-20250601-1.log']);
    const logged = records(join(home, 'log'));
    assert.deepEqual(logged.map((r) => r['msg']), [
      'created a default definition file', 'created a default definition file',
      'created a default definition file', 'created a default definition file', 'node started',
    ]);
    assert.equal(logged[4]!['node'], '127.0.0.1:10010');
    assert.equal(logged[0]!['level'], 'WARNING');
  });

  it('logs ignored members at a later start, into GS_LOG when it is set', async () => {
    const home = join(root, 'h2');
    const log = join(root, 'h2-log');
    await prepareNodeHome({ env: { GS_HOME: home }, cwd: '/', toolsDirectory: '/x', fileSystem, clock })
      .then((prepared) => prepared.eventLog.close());
    const nodeFile = JSON.parse(readFileSync(join(home, 'conf', 'gs_node.json'), 'utf8'));
    nodeFile.transaction.turbo = true;
    writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify(nodeFile));
    const prepared = await prepareNodeHome({
      env: { GS_HOME: home, GS_LOG: log }, cwd: '/', toolsDirectory: '/x', fileSystem, clock,
    });
    prepared.eventLog.close();
    assert.deepEqual(prepared.createdFiles, []);
    assert.deepEqual(prepared.warnings, ['gs_node.json /transaction/turbo: unknown member, ignored']);
    assert.deepEqual(records(log).map((r) => r['msg']),
      ['gs_node.json /transaction/turbo: unknown member, ignored']);
  });

  it('refuses to start with a bad member, naming it', async () => {
    const home = join(root, 'h3');
    await prepareNodeHome({ env: { GS_HOME: home }, cwd: '/', toolsDirectory: '/x', fileSystem, clock })
      .then((prepared) => prepared.eventLog.close());
    writeFileSync(join(home, 'conf', 'gs_cluster.json'),
      JSON.stringify({ cluster: { clusterName: 'a b' } }));
    await assert.rejects(prepareNodeHome({
      env: { GS_HOME: home }, cwd: '/', toolsDirectory: '/x', fileSystem, clock,
    }), /CONFIG_INVALID|gs_cluster\.json \/cluster\/clusterName: "a b" is not a cluster name/);
  });
});
