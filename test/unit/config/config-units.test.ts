// Sizes and durations carry a unit (any case), and come out as bytes and milliseconds.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatSize, parseDurationMs, parseSizeBytes } from '../../../lib/base/units.ts';
import { readConfig } from '../../../lib/config/config.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

describe('units', () => {
  it('parses every size unit GridDB takes, in any case', () => {
    const cases: [string, number][] = [
      ['1B', 1], ['64KB', 64 * KiB], ['64kb', 64 * KiB], ['64K', 64 * KiB], ['64k', 64 * KiB],
      ['1024MB', GiB], ['1024M', GiB], ['2GB', 2 * GiB], ['2g', 2 * GiB], ['1TB', 1024 * GiB],
      ['1T', 1024 * GiB], [' 32 MB ', 32 * MiB],
    ];
    for (const [text, bytes] of cases) assert.equal(parseSizeBytes(text), bytes, text);
  });

  it('parses every duration unit', () => {
    const cases: [string, number][] = [
      ['300s', 300_000], ['5S', 5_000], ['100ms', 100], ['2min', 120_000], ['1h', 3_600_000],
      ['0s', 0],
    ];
    for (const [text, ms] of cases) assert.equal(parseDurationMs(text), ms, text);
  });

  it('refuses a missing unit, an unknown unit, signs, fractions and non-strings', () => {
    for (const text of ['64', '64XB', '-1MB', '1.5MB', '', 'MB', 64, null, ['64KB']]) {
      assert.equal(parseSizeBytes(text), undefined, String(text));
    }
    for (const text of ['300', '5sec', '-1s', '1.5s', 'm', 300, true]) {
      assert.equal(parseDurationMs(text), undefined, String(text));
    }
  });

  it('refuses sizes beyond what a number holds exactly', () => {
    assert.equal(parseSizeBytes('99999999999TB'), undefined);
  });

  it('round-trips formatted sizes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (bytes) => {
      assert.equal(parseSizeBytes(formatSize(bytes)), bytes);
    }));
  });

  it('turns the members of the files into bytes and milliseconds', () => {
    const { config, problems } = readConfig({
      cluster: { cluster: { heartbeatInterval: '2min' }, sync: { timeoutInterval: '1500ms' } },
      node: {
        dataStore: { storeMemoryLimit: '2g', checkpointFileFlushSize: '4MB' },
        sql: { storeSwapSyncSize: '512m', traceLimitExecutionTime: '1h' },
        transaction: { workMemoryLimit: '64KB', reauthenticationInterval: '10min' },
        sync: { redoLogErrorKeepInterval: '1h' },
        trace: { auditFileLimit: '1MB' },
      },
    });
    assert.deepEqual(problems, []);
    assert.equal(config.cluster.heartbeatIntervalMs, 120_000);
    assert.equal(config.cluster.sync.timeoutIntervalMs, 1_500);
    assert.equal(config.storage.storeMemoryLimitBytes, 2 * GiB);
    assert.equal(config.storage.checkpointFileFlushSizeBytes, 4 * MiB);
    assert.equal(config.node.sql.storeSwapSyncSizeBytes, 512 * MiB);
    assert.equal(config.node.sql.traceLimitExecutionTimeMs, 3_600_000);
    assert.equal(config.node.transaction.workMemoryLimitBytes, 64 * KiB);
    assert.equal(config.node.transaction.reauthenticationIntervalMs, 600_000);
    assert.equal(config.node.sync.redoLogErrorKeepIntervalMs, 3_600_000);
    assert.equal(config.node.trace.auditFileLimitBytes, MiB);
  });

  it('takes 0 without a unit where GridDB means "automatic"', () => {
    const { config, problems } = readConfig({
      node: {
        sql: { totalMemoryLimit: 0, jobTotalMemoryLimit: 0 },
        dataStore: { checkpointFileFlushSize: 0 },
      },
    });
    assert.deepEqual(problems, []);
    assert.equal(config.storage.checkpointFileFlushSizeBytes, 0);
    assert.equal(config.node.sql.totalMemoryLimitBytes, 0);
    assert.equal(config.node.tuning['/sql/jobTotalMemoryLimit'], 0);
  });
});
