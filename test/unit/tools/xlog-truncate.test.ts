// xlog-truncate, the repair of a corrupt xlog: it cuts at the file and offset a CORRUPTION names,
// saves what it cut, moves later generations aside, and refuses while the node of the home runs.

import assert from 'node:assert/strict';
import {
  appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { generation, lsn, partitionId } from '../../../lib/base/ids.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { homeLocker } from '../../../lib/io/home-lock.ts';
import { main } from '../../../tools/xlog-truncate.ts';
import { xlogFilePath } from '../../../wal/xlog-files.ts';
import { XlogRecordType } from '../../../wal/xlog-format.ts';
import { scanXlog } from '../../../wal/xlog-reader.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';

const P7 = partitionId(7);
const homes: string[] = [];

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A home whose partition 7 has generation 1 (LSN 1-2) and 2 (LSN 3-5). */
async function homeWithLog(): Promise<{ home: string; txnlog: string }> {
  const home = mkdtempSync(join(tmpdir(), 'store-xlog-truncate-'));
  homes.push(home);
  mkdirSync(join(home, 'conf'));
  const txnlog = join(home, 'txnlog');
  mkdirSync(txnlog);
  const writer = await XlogWriter.create({
    fileSystem: new NodeFileSystem(), root: txnlog, partitionId: P7, blockSizeBytes: 65_536,
    generation: generation(1), lastLsn: lsn(0n),
  });
  for (let i = 0; i < 2; i++) writer.append(XlogRecordType.COMMIT, new Uint8Array(30).fill(i));
  await writer.startGeneration(generation(2));
  for (let i = 0; i < 3; i++) writer.append(XlogRecordType.COMMIT, new Uint8Array(30).fill(9));
  await writer.datasync();
  await writer.close();
  return { home, txnlog };
}

function scanError(txnlog: string): { generation: number; offsetBytes: number } {
  try {
    scanXlog(new NodeFileSystem(), { root: txnlog, partitionId: P7 });
  } catch (error) {
    assert.ok(isStorageError(error, 'CORRUPTION'), String(error));
    const match = /7_(\d+)\.xlog, offset (\d+)/.exec(error.message);
    assert.ok(match !== null, error.message);
    return { generation: Number(match[1]), offsetBytes: Number(match[2]) };
  }
  assert.fail('the log reads without error');
}

describe('xlog-truncate', () => {
  after(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

  it('cuts the newest file where the corruption is, saving the cut bytes', async () => {
    const { home, txnlog } = await homeWithLog();
    const path = xlogFilePath(txnlog, P7, generation(2));
    const bytes = readFileSync(path);
    const secondRecordAt = 31 + 47; // FILE_HEADER, then a 47-byte record
    bytes[secondRecordAt + 20]! ^= 0xff; // LSN 4 damaged, LSN 5 intact after it
    writeFileSync(path, bytes);
    const damage = scanError(txnlog);
    assert.deepEqual(damage, { generation: 2, offsetBytes: secondRecordAt });
    const save = join(home, 'cut.bin');
    const result = await run(['--home', home, '--partition', '7', '--generation', '2',
      '--offset', String(damage.offsetBytes), '--save', save]);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /now ends at LSN 3 /);
    assert.deepEqual(readFileSync(save), bytes.subarray(secondRecordAt));
    assert.equal(readFileSync(path).length, secondRecordAt);
    const scan = scanXlog(new NodeFileSystem(), { root: txnlog, partitionId: P7 });
    assert.equal(scan.lastLsn, 3n);
    assert.equal(scan.tornBytes, 0);
  });

  it('cuts an older file and moves the later generations beside the saved bytes', async () => {
    const { home, txnlog } = await homeWithLog();
    const older = xlogFilePath(txnlog, P7, generation(1));
    appendFileSync(older, Uint8Array.of(1, 2, 3));
    const damage = scanError(txnlog);
    assert.equal(damage.generation, 1);
    const save = join(home, 'cut.bin');
    const result = await run(['--txnlog', txnlog, '--partition', '7', '--generation', '1',
      '--offset', String(damage.offsetBytes), '--save', save]);
    assert.equal(result.code, 0, result.err);
    assert.deepEqual([...readFileSync(save)], [1, 2, 3]);
    assert.ok(existsSync(`${save}.7_2.xlog`));
    assert.ok(!existsSync(xlogFilePath(txnlog, P7, generation(2))));
    assert.equal(scanXlog(new NodeFileSystem(), { root: txnlog, partitionId: P7 }).lastLsn, 2n);
  });

  it('refuses while the node of the home runs, and changes nothing', async () => {
    const { home, txnlog } = await homeWithLog();
    writeFileSync(join(home, 'conf', 'store.pid'), String(process.pid));
    const path = xlogFilePath(txnlog, P7, generation(2));
    const before = readFileSync(path);
    const result = await run(['--home', home, '--partition', '7', '--generation', '2',
      '--offset', '31', '--save', join(home, 'cut.bin')]);
    assert.equal(result.code, 2);
    assert.match(result.err, new RegExp(`is running \\(pid ${process.pid}\\)`));
    assert.deepEqual(readFileSync(path), before);
    assert.ok(!existsSync(join(home, 'cut.bin')));
  });

  it('refuses while another process holds the home lock, and changes nothing', async () => {
    const { home, txnlog } = await homeWithLog();
    const lock = homeLocker.lock(home, { nowMs: 0 });
    try {
      const path = xlogFilePath(txnlog, P7, generation(2));
      const before = readFileSync(path);
      const result = await run(['--home', home, '--partition', '7', '--generation', '2',
        '--offset', '31', '--save', join(home, 'cut.bin')]);
      assert.equal(result.code, 2);
      assert.match(result.err, /in use by the node with pid \d+.*stop the node first/);
      assert.deepEqual(readFileSync(path), before);
      assert.ok(!existsSync(join(home, 'cut.bin')));
    } finally {
      lock.release();
    }
  });

  it('reports bad usage, a missing file, an offset past the end and an existing save file',
    async () => {
      const { home } = await homeWithLog();
      const base = ['--home', home, '--partition', '7'];
      const save = join(home, 'cut.bin');
      assert.match((await run(base)).err, /--generation must be.*--offset must be.*--save/);
      assert.match((await run([...base, '--generation', '3', '--offset', '0', '--save', save]))
        .err, /7_3\.xlog does not exist/);
      assert.match((await run([...base, '--generation', '2', '--offset', '99999', '--save',
        save])).err, /past the end/);
      writeFileSync(save, 'x');
      assert.match((await run([...base, '--generation', '2', '--offset', '31', '--save', save]))
        .err, /exists/);
    });
});
