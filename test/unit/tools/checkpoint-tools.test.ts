// cplog-dump and dat-check on a real data directory written by the partition checkpointer.

import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readdirSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { blockId, lsn, partitionId, type BlockId } from '../../../lib/base/ids.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { PartitionCheckpointer, type CheckpointSource } from '../../../compaction/checkpoint.ts';
import { main as cplogDump } from '../../../tools/cplog-dump.ts';
import { main as datCheck } from '../../../tools/dat-check.ts';

const BLOCK_SIZE_BYTES = 64 * 1024;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

/** Three blocks of plain images, all dirty once. */
function source(ids: number[]): CheckpointSource {
  const images = new Map(ids.map((id) => [blockId(id), new Uint8Array(BLOCK_SIZE_BYTES).fill(id)]));
  return {
    takeCheckpointSet: () => ({ dirty: [...images.keys()], freed: [] as BlockId[] }),
    encodeBlock: (id) => images.get(id)!,
    blockKind: () => 1,
    finishCheckpointSet: () => undefined,
    abandonCheckpointSet: () => undefined,
  };
}

describe('checkpoint tools', () => {
  let home = '';
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'store-checkpoint-tools-'));
    const checkpointer = await PartitionCheckpointer.open({
      fileSystem: new NodeFileSystem(), dataRoot: join(home, 'data'), partitionId: partitionId(3),
      blockSizeBytes: BLOCK_SIZE_BYTES, partialCheckpointInterval: 5, compress: false, splitCount: 1,
    });
    await checkpointer.checkpoint(source([1, 2, 3]), lsn(42n));
    checkpointer.close();
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('cplog-dump prints the generations and the block map', () => {
    const { out, output } = capture();
    assert.equal(cplogDump(['--home', home, '--partition', '3', '--entries'], output), 0);
    assert.match(out[0]!, /^cplog: generation=1 complete=true entries=3 .*checkpointLsn=42/);
    assert.equal(out.filter((line) => line.startsWith('  entry: type=BLOCK')).length, 3);
    assert.match(out.at(-1)!, /^block map: liveBlocks=3 checkpointLsn=42 generations=1 incomplete=-/);
  });

  it('dat-check passes good blocks and finds a corrupt one', async () => {
    const good = capture();
    assert.equal(await datCheck(['--home', home, '--partition', '3'], good.output), 0);
    assert.match(good.out.at(-1)!, /3 live blocks, 3 good, 0 bad/);
    const directory = join(home, 'data', '3');
    const dat = readdirSync(directory).find((name) => name.endsWith('.dat'))!;
    const fd = openSync(join(directory, dat), 'r+');
    writeSync(fd, Uint8Array.of(0xee), 0, 1, BLOCK_SIZE_BYTES + 100);
    closeSync(fd);
    const bad = capture();
    assert.equal(await datCheck(['--home', home, '--partition', '3'], bad.output), 3);
    assert.match(bad.out.join('\n'), /bad block \d+ slot 1: /);
    assert.match(bad.out.at(-1)!, /3 live blocks, 2 good, 1 bad/);
  });

  it('both refuse bad usage with exit code 2', async () => {
    assert.equal(cplogDump(['--partition', '3'], capture().output), 2);
    assert.equal(await datCheck(['--home', home, '--partition', 'x'], capture().output), 2);
    assert.equal(await datCheck(['--home', home, '--partition', '9'], capture().output), 2);
  });

  it('dat-check never creates a data file: a wrong --split-count is refused, nothing written',
    async () => {
      const directory = join(home, 'data', '3');
      const before = readdirSync(directory).sort();
      const { err, output } = capture();
      assert.equal(await datCheck(['--home', home, '--partition', '3', '--split-count', '3'],
        output), 2);
      assert.match(err.join('\n'), /no data file .*3_part_1\.dat, .*3_part_2\.dat/);
      assert.deepEqual(readdirSync(directory).sort(), before);
    });
});
