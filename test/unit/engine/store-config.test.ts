// Opening a home directory reads the storage members of conf/gs_cluster.json and conf/gs_node.json;
// a bad file is refused with CONFIG_INVALID naming the file and the member, and opens nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Store } from '../../../lib/engine/store.ts';
import { readStorageConfig } from '../../../lib/engine/store-config.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { storageError } from './engine-test-helpers.ts';

async function homeWith(files: Record<string, string>): Promise<SimFileSystem> {
  const fileSystem = new SimFileSystem({ seed: 1 });
  fileSystem.mkdirp('/h/conf');
  for (const [name, text] of Object.entries(files)) {
    const file = fileSystem.open(`/h/conf/${name}`, 'create');
    file.write(new TextEncoder().encode(text), 0);
    await file.datasync();
    file.close();
  }
  return fileSystem;
}

describe('store configuration files', () => {
  it('uses the defaults when the files are missing', async () => {
    const options = readStorageConfig(await homeWith({}), '/h');
    assert.equal(options.partitionNum, 128);
    assert.equal(options.storeBlockSizeBytes, 65_536);
    assert.equal(options.logWriteMode, 1);
    assert.equal(options.checkpointIntervalMs, 300_000);
  });

  it('reads the storage members of both files and opens the store with them', async () => {
    const fileSystem = await homeWith({
      'gs_cluster.json': JSON.stringify({
        dataStore: { partitionNum: 16, storeBlockSize: '1MB' }, cluster: { clusterName: 'c' },
      }),
      'gs_node.json': JSON.stringify({
        dataStore: { concurrency: 2, logWriteMode: 0, storeMemoryLimit: '256MB' },
        checkpoint: { checkpointInterval: '60s' },
      }),
    });
    const options = readStorageConfig(fileSystem, '/h');
    assert.equal(options.partitionNum, 16);
    assert.equal(options.storeBlockSizeBytes, 1024 * 1024);
    assert.equal(options.concurrency, 2);
    assert.equal(options.logWriteMode, 0);
    assert.equal(options.storeMemoryLimitBytes, 256 * 1024 * 1024);
    assert.equal(options.checkpointIntervalMs, 60_000);
    const store = await Store.open({ home: '/h', fileSystem });
    assert.equal(store.options.partitionNum, 16);
    assert.equal(store.partitionGroups.length, 2);
    await store.close();
  });

  it('names the file and every bad member', async () => {
    const fileSystem = await homeWith({
      'gs_cluster.json': JSON.stringify({ dataStore: { storeBlockSize: '65KB' } }),
      'gs_node.json': JSON.stringify({ dataStore: { concurrency: 0, logWriteMode: 'x' } }),
    });
    assert.throws(() => readStorageConfig(fileSystem, '/h'), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /gs_cluster\.json \/dataStore\/storeBlockSize: "65KB" is not one of 32KB, 64KB/);
      assert.match(error.message, /gs_node\.json \/dataStore\/concurrency: 0/);
      assert.match(error.message, /gs_node\.json \/dataStore\/logWriteMode: "x"/);
      return true;
    });
    await assert.rejects(Store.open({ home: '/h', fileSystem }), storageError('CONFIG_INVALID'));
    assert.equal(fileSystem.exists('/h/txnlog'), false);
  });

  it('refuses a file that is not a JSON object', async () => {
    for (const text of ['{"dataStore": ', '[1, 2]', '"text"', 'null']) {
      const fileSystem = await homeWith({ 'gs_node.json': text });
      assert.throws(() => readStorageConfig(fileSystem, '/h'),
        (error: unknown) => error instanceof Error && 'code' in error &&
          error.code === 'CONFIG_INVALID' && /gs_node\.json/.test(error.message));
    }
  });
});
