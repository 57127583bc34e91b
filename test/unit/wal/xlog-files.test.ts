import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generation, partitionId } from '../../../lib/base/ids.ts';
import {
  listXlogGenerations, parseXlogFileName, xlogFileName, xlogFilePath, xlogPartitionDirectory,
} from '../../../wal/xlog-files.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

describe('xlog-files', () => {
  it('lays files out as <root>/<pId>/<pId>_<generation>.xlog', () => {
    assert.equal(xlogPartitionDirectory('/var/txnlog', partitionId(12)), '/var/txnlog/12');
    assert.equal(xlogFileName(partitionId(12), generation(3)), '12_3.xlog');
    assert.equal(xlogFilePath('/var/txnlog', partitionId(12), generation(3)),
      '/var/txnlog/12/12_3.xlog');
  });

  it('parses only the names it makes', () => {
    assert.deepEqual(parseXlogFileName('12_3.xlog'), { partitionId: 12, generation: 3 });
    assert.deepEqual(parseXlogFileName('0_1.xlog'), { partitionId: 0, generation: 1 });
    for (const name of ['12_0.xlog', '12_03.xlog', '012_3.xlog', '12_3.cplog', '12_3.xlog.tmp',
      '12-3.xlog', '_3.xlog', '12_.xlog', '12_99999999999.xlog']) {
      assert.equal(parseXlogFileName(name), undefined, name);
    }
  });

  it('lists a partition\'s generations in numeric order, ignoring other files', () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    fileSystem.mkdirp('/t/5');
    for (const name of ['5_10.xlog', '5_9.xlog', '5_1.xlog', '6_2.xlog', '5_2.cplog', 'notes']) {
      fileSystem.open(`/t/5/${name}`, 'create').close();
    }
    assert.deepEqual(listXlogGenerations(fileSystem, '/t', partitionId(5)), [1, 9, 10]);
    assert.deepEqual(listXlogGenerations(fileSystem, '/t', partitionId(7)), []);
  });
});
