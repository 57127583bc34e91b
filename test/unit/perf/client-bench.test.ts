// The client and thread benchmarks' own logic: InfluxDB's line protocol and config, the node
// process's start line, the callers' row streams and batch sharing, a skipped peer in the table,
// and the engine/thread harness on a tiny load in both threads. The timings are never tested.

import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { resultTable, throughputResult } from '../../../perf/bench-result.ts';
import {
  PutRows, loadBatchesByWriter, putLoops, putLoopsRowsPerS,
} from '../../../perf/concurrent-callers.ts';
import { TsbsRowBytes } from '../../../perf/engine-thread-messages.ts';
import { engineTarget, type EngineThread } from '../../../perf/engine-thread-targets.ts';
import {
  influxBatchBody, influxConfigText, influxLinePrefix,
} from '../../../perf/influx-line-protocol.ts';
import { influxdPath } from '../../../perf/influx-peer.ts';
import { benchNodeJson, nodeStartedEndpoint } from '../../../perf/node-process.ts';
import { TSBS_START_MS, tsbsDataset, type TsbsHost } from '../../../perf/tsbs.ts';

const DAY_MS = 86_400_000;
const dataset = tsbsDataset(
  { hostCount: 3, durationMs: DAY_MS, intervalMs: 3_600_000, batchRowCountMax: 10, seed: 7 });

function withTempDirectory<T>(body: (directory: string) => T): T {
  const directory = mkdtempSync(join(tmpdir(), 'client-bench-test-'));
  try {
    return body(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('InfluxDB line protocol', () => {
  it('writes one line per row: cpu, every tag, the 10 fields, the ms timestamp', () => {
    const prefix = influxLinePrefix(dataset.hosts[0]!);
    const body = influxBatchBody(dataset.batches[0]!, prefix);
    const lines = body.split('\n');
    assert.equal(lines.pop(), '', 'every line ends in a newline');
    assert.equal(lines.length, dataset.batches[0]!.rows.length);
    const [measurementAndTags, fields, timestamp] = lines[0]!.split(' ');
    assert.equal(measurementAndTags, `cpu,${Object.entries(dataset.hosts[0]!.tags)
      .map(([key, value]) => `${key}=${value}`).join(',')}`);
    const row = dataset.batches[0]!.rows[0]!;
    assert.equal(timestamp, String(TSBS_START_MS));
    const values = fields!.split(',').map((field) => Number(field.split('=')[1]));
    assert.deepEqual(values, row.slice(1), 'the very doubles, printed round-trip');
    assert.match(fields!, /^usage_user=[^,]+,usage_system=/);
  });

  it('escapes space, comma and equals sign in tags', () => {
    const host: TsbsHost = { containerName: 'x', tags: { 'a b': 'c,d=e' } };
    assert.equal(influxLinePrefix(host), 'cpu,a\\ b=c\\,d\\=e ');
  });

  it('prints whole-number doubles as floats (no i suffix)', () => {
    const batch = { hostIndex: 0, rows: [[TSBS_START_MS, 100, 0, 1, 2, 3, 4, 5, 6, 7, 8.5]] };
    assert.match(influxBatchBody(batch, 'cpu '),
      /^cpu usage_user=100,usage_system=0,.*=8\.5 \d+\n$/);
  });

  it('configures influxd under its root on 127.0.0.1, durable writes, no reporting', () => {
    const text = influxConfigText({ root: '/tmp/r', httpPort: 1234, rpcPort: 5678 });
    assert.match(text, /^reporting-disabled = true$/m);
    assert.match(text, /^bind-address = "127\.0\.0\.1:5678"$/m);
    assert.match(text, /^\[http\]\n {2}bind-address = "127\.0\.0\.1:1234"$/m);
    assert.match(text, /^ {2}dir = "\/tmp\/r\/meta"$/m);
    assert.match(text, /^ {2}wal-dir = "\/tmp\/r\/wal"$/m);
    assert.match(text, /^ {2}wal-fsync-delay = "0s"$/m);
    assert.match(text, /^\[monitor\]\n {2}store-enabled = false$/m);
  });

  it('finds influxd on PATH only where an executable of that name is', () => {
    withTempDirectory((directory) => {
      assert.equal(influxdPath(`${directory}${delimiter}`), undefined);
      const executable = join(directory, 'influxd');
      writeFileSync(executable, '#!/bin/sh\n');
      chmodSync(executable, 0o644);
      assert.equal(influxdPath(directory), undefined, 'not executable');
      chmodSync(executable, 0o755);
      assert.equal(influxdPath(`/nonexistent${delimiter}${directory}`), executable);
    });
  });
});

describe('node process', () => {
  it('reads the transaction endpoint from the line tools/store-node.ts prints', () => {
    const line = 'node started on /tmp/h (cluster myCluster): transaction 127.0.0.1:41609, ' +
      'system 127.0.0.1:44939; event log in /tmp/h/log';
    assert.deepEqual(nodeStartedEndpoint(line), { host: '127.0.0.1', port: 41609 });
    assert.equal(nodeStartedEndpoint('node failed to start: CONFIG_INVALID'), undefined);
  });

  it('asks for any free port for every service and no periodic checkpoint', () => {
    const json = benchNodeJson({ logWriteMode: 0 }) as Record<string, Record<string, unknown>>;
    for (const service of ['system', 'transaction', 'sql', 'cluster', 'sync']) {
      assert.deepEqual(json[service], { servicePort: 0 });
    }
    assert.deepEqual(json['dataStore'], { logWriteMode: 0 });
    assert.match(String(json['checkpoint']!['checkpointInterval']), /^\d+s$/);
  });
});

describe('concurrent callers', () => {
  it('PutRows gives each caller its own increasing timestamps and its host values', () => {
    const rows = new PutRows(dataset, 4);
    const first = rows.next(3);
    const second = rows.next(3);
    assert.equal(rows.next(0)[0], TSBS_START_MS);
    assert.equal(first[0], TSBS_START_MS);
    assert.equal(second[0], TSBS_START_MS + 3_600_000);
    assert.deepEqual(first.slice(1), dataset.rowsByHost[0]![0]!.slice(1), 'host 3 % 3');
    assert.deepEqual(second.slice(1), dataset.rowsByHost[0]![1]!.slice(1));
  });

  it('loadBatchesByWriter sends every batch once, in order, writerCount at a time', async () => {
    const sent: Array<{ writer: number; index: number }> = [];
    let inFlight = 0;
    let inFlightMax = 0;
    await loadBatchesByWriter([0, 1, 2, 3, 4, 5, 6], 3, async (writer, index) => {
      inFlight++;
      inFlightMax = Math.max(inFlightMax, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1 + (index % 2)));
      sent.push({ writer, index });
      inFlight--;
    });
    assert.deepEqual(sent.map((s) => s.index).sort(), [0, 1, 2, 3, 4, 5, 6]);
    assert.ok(sent.every((s) => s.writer >= 0 && s.writer < 3));
    assert.equal(inFlightMax, 3);
  });

  it('putLoops counts every acknowledged put and stops starting new ones after the duration',
    async () => {
      const run = await putLoops({ callerCount: 2, durationMs: 20 },
        () => new Promise((resolve) => setTimeout(resolve, 1)));
      assert.ok(run.latenciesMs.length >= 2);
      assert.ok(run.elapsedMs >= 20);
      assert.ok(putLoopsRowsPerS(run) > 0);
    });
});

describe('a peer that was skipped', () => {
  it('has no peer value or ratio, and the table says so', () => {
    const result = throughputResult('client/x', 1000, null,
      { peer: 'influxdb', target: { of: 'ratio', min: 2 } });
    assert.equal(result.peerValue, null);
    assert.equal(result.ratio, null);
    const row = resultTable([result]).split('\n')[2]!;
    assert.match(row,
      /client\/x +rows\/s +1,000 +influxdb +skipped +- +ratio >= 2\.00x \(no peer\)$/);
  });
});

describe('engine/thread harness', { timeout: 60_000 }, () => {
  it('round-trips TSBS rows through the row codec bytes', () => {
    const rowBytes = new TsbsRowBytes();
    const rows = dataset.batches[1]!.rows;
    assert.deepEqual(rowBytes.decode(rowBytes.encode(rows), rows.length), rows);
  });

  for (const thread of ['in-thread', 'worker'] satisfies EngineThread[]) {
    it(`${thread}: puts batches and single rows, counts them, reopens on a new home`, async () => {
      const target = engineTarget(thread);
      const rowBytes = new TsbsRowBytes();
      const homes = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'client-bench-thread-')));
      try {
        for (const home of homes) {
          await target.open(home, { logWriteMode: 0, partitionNum: 4, concurrency: 2 },
            ['a', 'b']);
          const batch = dataset.rowsByHost[0]!.slice(0, 10);
          const bytes = rowBytes.encode(batch);
          await target.put(0, batch.length, bytes);
          if (thread === 'worker') assert.equal(bytes.byteLength, 0, 'transferred, not copied');
          await target.put(1, 1, rowBytes.encode([dataset.rowsByHost[1]![0]!]));
          assert.equal(await target.count(0), 10);
          assert.equal(await target.count(1), 1);
          assert.ok(await target.logSyncCount() >= 2, 'logWriteMode 0: each put synced');
          await assert.rejects(target.put(0, 2, rowBytes.encode(batch.slice(0, 1))));
          await target.close();
        }
      } finally {
        await target.end();
        for (const home of homes) rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
