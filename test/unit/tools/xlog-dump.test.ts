import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generation, lsn, partitionId } from '../../../lib/base/ids.ts';
import { storageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { main } from '../../../tools/xlog-dump.ts';
import { xlogFilePath } from '../../../wal/xlog-files.ts';
import { XlogRecordType } from '../../../wal/xlog-format.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';
import { JournalWriter } from '../../../wal/journal-writer.ts';

function run(argv: string[]): { code: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

describe('xlog-dump', () => {
  let home = '';
  let txnlog = '';

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'store-xlog-dump-'));
    txnlog = join(home, 'txnlog');
    mkdirSync(txnlog);
    const writer = await XlogWriter.create({
      fileSystem: new NodeFileSystem(), root: txnlog, partitionId: partitionId(7),
      blockSizeBytes: 65_536, generation: generation(1), lastLsn: lsn(0n),
    });
    writer.append(XlogRecordType.CREATE_CONTAINER, Uint8Array.of(0xca, 0xfe));
    writer.append(XlogRecordType.COMMIT, new Uint8Array(40).fill(0xab));
    await writer.startGeneration(generation(2));
    writer.append(XlogRecordType.COMMIT, Uint8Array.of(1));
    await writer.datasync();
    await writer.close();
  });

  after(() => rmSync(home, { recursive: true, force: true }));

  it('prints one line per record and a summary', () => {
    const { code, out, err } = run(['--txnlog', txnlog, '--partition', '7', '--hex']);
    assert.equal(code, 0, err.join('\n'));
    assert.deepEqual(out, [
      'generation=1 offset=31 lsn=1 type=CREATE_CONTAINER payloadBytes=2 undecodable payload ' +
        '(read of 4 bytes at 0 passes the end (2 bytes)) hex=cafe',
      'generation=1 offset=50 lsn=2 type=COMMIT payloadBytes=40 undecodable payload ' +
        `(varuint at 8 is longer than 8 bytes) hex=${'ab'.repeat(32)}...`,
      'generation=2 offset=31 lsn=3 type=COMMIT payloadBytes=1 undecodable payload ' +
        '(read of 4 bytes at 0 passes the end (1 bytes)) hex=01',
      'summary: records=3 printed=3 baseLsn=0 lastLsn=3 lastGeneration=2 tailOffsetBytes=49 ' +
        'tornBytes=0 journalRecords=0',
    ]);
  });

  it('filters by LSN, limits, and speaks JSON; --home means <home>/txnlog', () => {
    const { code, out } = run(
      ['--home', home, '--partition', '7', '--from-lsn', '2', '--limit', '1', '--json']);
    assert.equal(code, 0);
    assert.deepEqual(out.map((line) => JSON.parse(line)), [
      { generation: 1, offsetBytes: 50, lsn: '2', type: 'COMMIT', payloadBytes: 40,
        detail: 'undecodable payload (varuint at 8 is longer than 8 bytes)' },
      { summary: { records: 3, printed: 1, baseLsn: '0', lastLsn: '3', lastGeneration: 2,
        tailOffsetBytes: 49, tornBytes: 0, journalRecords: 0 } },
    ]);
  });

  it('follows the xlog with the commit journal records that continue it', async () => {
    const journalHome = mkdtempSync(join(tmpdir(), 'store-xlog-dump-journal-'));
    try {
      const root = join(journalHome, 'txnlog');
      const fileSystem = new NodeFileSystem();
      fileSystem.mkdirp(root);
      const writer = await XlogWriter.create({
        fileSystem, root, partitionId: partitionId(7), blockSizeBytes: 65_536,
        generation: generation(1), lastLsn: lsn(0n),
      });
      writer.append(XlogRecordType.COMMIT, Uint8Array.of(1));
      await writer.datasync();
      await writer.close();
      const journal = await JournalWriter.create({
        fileSystem, root, range: { startPartitionId: 4, partitionCount: 4 }, sequence: 1,
      });
      const record = (id: number, n: bigint) => ({
        partitionId: partitionId(id), lsn: lsn(n), type: XlogRecordType.COMMIT,
        payload: Uint8Array.of(Number(n)),
      });
      // 1 is in the xlog already, 2 and 3 continue it, 5 is past a gap; 6 is another partition's.
      for (const r of [record(7, 1n), record(7, 2n), record(6, 6n), record(7, 3n), record(7, 5n)]) {
        journal.append(r);
      }
      await journal.sync();
      journal.close();
      const { code, out } = run(['--txnlog', root, '--partition', '7']);
      assert.equal(code, 0);
      assert.deepEqual(out.map((line) => line.replace(/ undecodable.*/, '')), [
        'generation=1 offset=31 lsn=1 type=COMMIT payloadBytes=1',
        'source=journal journal=4-7_1.journal lsn=2 type=COMMIT payloadBytes=1',
        'source=journal journal=4-7_1.journal lsn=3 type=COMMIT payloadBytes=1',
        'summary: records=1 printed=3 baseLsn=0 lastLsn=1 lastGeneration=1 tailOffsetBytes=49 ' +
          'tornBytes=0 journalRecords=2',
      ]);
    } finally {
      rmSync(journalHome, { recursive: true, force: true });
    }
  });

  it('describes the records a real store writes', async () => {
    const storeHome = mkdtempSync(join(tmpdir(), 'store-xlog-dump-store-'));
    try {
      const store = await Store.open({ home: storeHome, options: storageOptions({ logWriteMode: 0 }) });
      await store.createContainer({
        name: 'Dumped', type: 'TIME_SERIES',
        columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
      });
      await store.session().container('dumped').multiPut([[1, 1.5], [2, 2.5]]);
      await store.dropContainer('DUMPED');
      const pId = String(store.partitionIdOf('dumped'));
      await store.close();
      const { code, out } = run(['--home', storeHome, '--partition', pId]);
      assert.equal(code, 0);
      assert.match(out[0]!, /lsn=1 type=CREATE_CONTAINER .* name="Dumped" type=TIME_SERIES key=1 /);
      assert.match(out[1]!, /lsn=2 type=COMMIT .* schemaVersion=1 puts=2 removes=0$/);
      assert.match(out[2]!, /lsn=3 type=DROP_CONTAINER .* container=1$/);
    } finally {
      rmSync(storeHome, { recursive: true, force: true });
    }
  });

  it('exits 2 on bad usage, a missing directory or an unknown partition', () => {
    for (const argv of [
      ['--partition', '7'],
      ['--txnlog', txnlog, '--home', home, '--partition', '7'],
      ['--txnlog', txnlog, '--partition', 'seven'],
      ['--txnlog', txnlog, '--partition', '7', '--limit', '0'],
      ['--txnlog', txnlog, '--partition', '7', '--bogus'],
      ['--txnlog', join(home, 'nowhere'), '--partition', '7'],
      ['--txnlog', txnlog, '--partition', '8'],
    ]) {
      const { code, err } = run(argv);
      assert.equal(code, 2, argv.join(' '));
      assert.match(err.join('\n'), /xlog-dump: /);
    }
  });

  it('reports a torn tail without touching it, and corruption (exit 3) after what it read', () => {
    const last = xlogFilePath(txnlog, partitionId(7), generation(2));
    const lastBytes = readFileSync(last);
    writeFileSync(last, Buffer.concat([lastBytes, Buffer.of(1, 2, 3)]));
    const torn = run(['--txnlog', txnlog, '--partition', '7']);
    assert.equal(torn.code, 0);
    assert.match(torn.out.at(-1)!, /records=3 .* tornBytes=3 journalRecords=0$/);
    assert.equal(statSync(last).size, lastBytes.length + 3); // read-only

    const first = xlogFilePath(txnlog, partitionId(7), generation(1));
    const firstBytes = readFileSync(first);
    firstBytes[60]! ^= 0xff; // inside the second record's payload
    writeFileSync(first, firstBytes);
    const corrupt = run(['--txnlog', txnlog, '--partition', '7']);
    assert.equal(corrupt.code, 3);
    assert.equal(corrupt.out.length, 1); // the first record was readable
    assert.match(corrupt.err.join('\n'), /CORRUPTION: .*7_1\.xlog, offset 50: checksum mismatch/);
  });
});
