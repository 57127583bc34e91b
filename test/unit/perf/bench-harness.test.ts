// The benchmark harness's own logic: results merged by name across runs, the day-shifted large
// load, and the table's target column. The timings themselves are never tested.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeByName } from '../../../perf/bench-files.ts';
import { resultTable, throughputResult } from '../../../perf/bench-result.ts';
import { tsbsDataset } from '../../../perf/tsbs.ts';
import { tsbsDayBatches, tsbsDays, tsbsDaysLastRow } from '../../../perf/tsbs-days.ts';

const DAY_MS = 86_400_000;

describe('mergeByName', () => {
  it('replaces entries of the same name in place and appends new names', () => {
    const previous = [{ name: 'a', value: 1 }, { name: 'b', value: 2 }];
    const merged = mergeByName(previous, [{ name: 'c', value: 30 }, { name: 'b', value: 20 }]);
    assert.deepEqual(merged,
      [{ name: 'a', value: 1 }, { name: 'b', value: 20 }, { name: 'c', value: 30 }]);
  });

  it('starts afresh from a missing or malformed file', () => {
    const current = [{ name: 'a', value: 1 }];
    assert.deepEqual(mergeByName(undefined, current), current);
    assert.deepEqual(mergeByName({ not: 'an array' }, current), current);
    assert.deepEqual(mergeByName([7, null, { value: 3 }, { name: 'z' }], current),
      [{ name: 'z' }, { name: 'a', value: 1 }]);
  });
});

describe('tsbsDays', () => {
  const dataset = tsbsDataset(
    { hostCount: 2, durationMs: DAY_MS, intervalMs: 3_600_000, batchRowCountMax: 10, seed: 1 });

  it('shifts every row of day d by d days and keeps each host in time order', () => {
    const days = tsbsDays(dataset, 3);
    assert.equal(days.rowCount, 3 * 48);
    assert.equal(days.toMs, dataset.fromMs + 3 * DAY_MS);
    const timestampsByHost: number[][] = [[], []];
    for (let day = 0; day < 3; day++) {
      for (const batch of tsbsDayBatches(days, day)) {
        for (const row of batch.rows) timestampsByHost[batch.hostIndex]!.push(row[0] as number);
      }
    }
    for (const timestamps of timestampsByHost) {
      assert.equal(timestamps.length, 72);
      timestamps.forEach((ms, i) => assert.equal(ms, dataset.fromMs + i * 3_600_000));
    }
    const last = tsbsDaysLastRow(days, 1);
    assert.equal(last[0], days.toMs - 3_600_000);
    assert.deepEqual(last.slice(1), dataset.rowsByHost[1]!.at(-1)!.slice(1));
  });

  it('leaves the dataset itself unshifted', () => {
    const days = tsbsDays(dataset, 2);
    const before = dataset.rowsByHost[0]![0]![0];
    tsbsDayBatches(days, 1);
    assert.equal(dataset.rowsByHost[0]![0]![0], before);
    assert.equal(tsbsDayBatches(days, 0), dataset.batches);
  });
});

describe('resultTable', () => {
  it('names the peer and says whether a target was met', () => {
    const table = resultTable([
      throughputResult('checkpoint/X', 60, 100,
        { unit: 'MB/s', peer: 'disk', target: { of: 'ratio', min: 0.5 } }),
      throughputResult('recovery/Y', 900_000, 450_000, { target: { of: 'value', min: 1e6 } }),
    ]);
    const lines = table.split('\n');
    assert.match(lines[2]!,
      /checkpoint\/X +MB\/s +60\.0 +disk +100\.0 +0\.60x +ratio >= 0\.50x met$/);
    assert.match(lines[3]!, /recovery\/Y .* leveldb .* 2\.00x +>= 1,000,000 MISSED$/);
  });
});
