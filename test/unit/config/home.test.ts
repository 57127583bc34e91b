// GS_HOME and GS_LOG resolution, and the files a first start writes into a temp GS_HOME.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../lib/config/config.ts';
import { createDefaultFiles } from '../../../lib/config/default-files.ts';
import { eventLogDirectory, homePath, resolveHome } from '../../../lib/config/home.ts';
import { readPasswordTable } from '../../../lib/config/users.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';

const fileSystem = new NodeFileSystem();
const root = mkdtempSync(join(tmpdir(), 'store-home-'));
after(() => rmSync(root, { recursive: true, force: true }));

function checkout(name: string, packageName: string): string {
  const directory = join(root, name);
  mkdirSync(join(directory, 'tools'), { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name: packageName }));
  return directory;
}

describe('GS_HOME and GS_LOG', () => {
  const ours = checkout('ours', 'store');
  const theirs = checkout('theirs', 'something-else');

  it('takes GS_HOME and GS_LOG from the environment, relative to the working directory', () => {
    const directories = resolveHome({
      env: { GS_HOME: 'h', GS_LOG: '/var/log/store' }, cwd: '/srv', toolsDirectory: join(ours, 'tools'),
      fileSystem,
    });
    assert.deepEqual(directories,
      { home: '/srv/h', logFromEnvironment: '/var/log/store', source: 'GS_HOME' });
    assert.equal(eventLogDirectory(directories, 'log'), '/var/log/store');
  });

  it('uses var/ of the checkout when the tools run from one', () => {
    const directories = resolveHome({
      env: { GS_HOME: '' }, cwd: '/', toolsDirectory: join(ours, 'tools'), fileSystem,
    });
    assert.deepEqual(directories,
      { home: join(ours, 'var'), logFromEnvironment: undefined, source: 'checkout' });
    assert.equal(eventLogDirectory(directories, 'log'), join(ours, 'var', 'log'));
    assert.equal(eventLogDirectory(directories, '/abs/log'), '/abs/log');
  });

  it('uses /var/lib/store when the tools are installed', () => {
    for (const toolsDirectory of [join(theirs, 'tools'), join(root, 'nowhere', 'bin')]) {
      const directories = resolveHome({ env: {}, cwd: '/', toolsDirectory, fileSystem });
      assert.equal(directories.home, '/var/lib/store');
      assert.equal(directories.source, 'installed');
      assert.equal(eventLogDirectory(directories, 'log'), '/var/lib/store/log');
    }
  });

  it('resolves configured paths against GS_HOME unless absolute', () => {
    assert.equal(homePath('/h', 'data'), '/h/data');
    assert.equal(homePath('/h', '/mnt/data'), '/mnt/data');
  });
});

describe('default files', () => {
  it('creates the three files on the first start, and only then', async () => {
    const home = join(root, 'first-start');
    const created = await createDefaultFiles(fileSystem, home);
    assert.deepEqual(created, ['gs_cluster.json', 'gs_node.json', 'password', 'password.scram']
      .map((name) => join(home, 'conf', name)));
    const cluster = JSON.parse(readFileSync(join(home, 'conf', 'gs_cluster.json'), 'utf8'));
    assert.equal(cluster.cluster.clusterName, 'myCluster');
    assert.equal(cluster.cluster.notificationMember[0].transaction.port, 10001);
    const node = JSON.parse(readFileSync(join(home, 'conf', 'gs_node.json'), 'utf8'));
    assert.equal(node.serviceAddress, '127.0.0.1');
    assert.equal(node.checkpoint.checkpointInterval, '300s');
    const { config, warnings } = loadConfig(fileSystem, home);
    assert.deepEqual(warnings, []);
    assert.equal(config.cluster.notification.mode, 'FIXED_LIST');
    readPasswordTable(fileSystem, home).authenticate('admin', 'admin');
    assert.deepEqual(await createDefaultFiles(fileSystem, home), []);
  });

  it('never touches a file that exists, and writes the missing ones', async () => {
    const home = join(root, 'partial');
    mkdirSync(join(home, 'conf'), { recursive: true });
    const mine = '{ "cluster": { "clusterName": "mine" } }\n';
    writeFileSync(join(home, 'conf', 'gs_cluster.json'), mine);
    const created = await createDefaultFiles(fileSystem, home);
    assert.deepEqual(created, ['gs_node.json', 'password', 'password.scram'].map((name) => join(home, 'conf', name)));
    assert.equal(readFileSync(join(home, 'conf', 'gs_cluster.json'), 'utf8'), mine);
    assert.equal(loadConfig(fileSystem, home).config.cluster.clusterName, 'mine');
    assert.ok(statSync(join(home, 'conf', 'password')).size > 0);
  });

  it('names the conf directory and the member when a file is bad', () => {
    const home = join(root, 'bad');
    mkdirSync(join(home, 'conf'), { recursive: true });
    writeFileSync(join(home, 'conf', 'gs_node.json'), '{ "transaction": { "servicePort": "x" } }');
    assert.throws(() => loadConfig(fileSystem, home), (error: unknown) => {
      assert.ok(error instanceof Error && 'code' in error);
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, new RegExp(`invalid configuration in ${join(home, 'conf')}: ` +
        'gs_node.json /transaction/servicePort: "x" is not an integer from 0 to 65535'));
      return true;
    });
    writeFileSync(join(home, 'conf', 'gs_cluster.json'), '{ "cluster": ');
    assert.throws(() => loadConfig(fileSystem, home), /gs_cluster\.json is not valid JSON/);
  });
});
