// Expiry release (§4.9) under a clock the test moves: rows past expiration_time are invisible at
// once, a sweep drops every whole expired data partition and punches the freed slots (the data
// files' allocated bytes fall), the other partitions' rows stay as they were, and the drops hold
// through a crash. A write of an expired row is accepted and not stored.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expirySweep } from '../../../lib/engine/partition-expiry.ts';
import { partitionTestDatabase } from './partition-test-helpers.ts';

const HOUR_MS = 3_600_000;
const T0_MS = Date.UTC(2024, 0, 1);
const ROWS_PER_HOUR = 400;

describe('expiry release', () => {
  it('hides expired rows at once, then drops whole expired partitions and returns their space, through a crash', async () => {
    let nowMs = T0_MS;
    const db = await partitionTestDatabase(() => nowMs);
    await db.update('CREATE TABLE e (ts TIMESTAMP PRIMARY KEY, payload STRING) USING TIMESERIES ' +
      "WITH (expiration_type='PARTITION', expiration_time=2, expiration_time_unit='HOUR') " +
      'PARTITION BY RANGE (ts) EVERY (1, HOUR)');
    // Six hours of rows 9 s apart, each hour its own data partition; large values so each takes blocks.
    const payload = 'x'.repeat(200);
    for (let hour = 0; hour < 6; hour++) {
      const values = Array.from({ length: ROWS_PER_HOUR }, (_v, i) =>
        `(TIMESTAMP('${new Date(T0_MS + hour * HOUR_MS + i * 9000).toISOString()}'), '${payload}')`);
      await db.update(`INSERT INTO e VALUES ${values.join(', ')}`);
    }
    await db.test.store.checkpoint();
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM e'), [[BigInt(6 * ROWS_PER_HOUR)]]);
    const allocatedBeforeBytes = db.test.store.stats().dataFiles.allocatedBytes;

    // 03:30 + 2 h expiry at 05:30: hours 0–2 whole and half of hour 3 are past the cutoff.
    nowMs = T0_MS + 5.5 * HOUR_MS;
    const cutoffMs = nowMs - 2 * HOUR_MS;
    const visible = await db.rows('SELECT ts FROM e');
    assert.equal(visible.length, 2.5 * ROWS_PER_HOUR, 'invisible at once');
    assert.ok(visible.every(([ts]) => (ts as number) >= cutoffMs));
    assert.deepStrictEqual((await db.scanPlan('SELECT * FROM e')).partitions,
      { type: 'INTERVAL', total: 6, read: 3 }, 'the expired partitions are pruned before the sweep');
    assert.deepStrictEqual(await db.rows(`SELECT COUNT(*) FROM e WHERE ts < TIMESTAMP('${new Date(cutoffMs).toISOString()}')`),
      [[0n]]);
    // An expired row is accepted and not stored.
    assert.equal(await db.update(`INSERT INTO e VALUES (TIMESTAMP('${new Date(T0_MS).toISOString()}'), 'late')`), 1);
    assert.deepStrictEqual(await db.rows("SELECT COUNT(*) FROM e WHERE payload = 'late'"), [[0n]]);

    const report = await expirySweep(db.test.store);
    assert.equal(report.droppedCount, 3, 'hours 0, 1 and 2');
    assert.ok(report.releasedSlotCount > 0);
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM "#table_partitions"'), [[3n]]);
    const allocatedAfterBytes = db.test.store.stats().dataFiles.allocatedBytes;
    assert.ok(allocatedAfterBytes < allocatedBeforeBytes,
      `allocated bytes fall: ${allocatedBeforeBytes} before, ${allocatedAfterBytes} after`);
    assert.deepStrictEqual(await db.rows('SELECT ts FROM e'), visible, 'the rest as it was');

    await db.reopenAfterCrash();
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM "#table_partitions"'), [[3n]]);
    assert.deepStrictEqual(await db.rows('SELECT ts FROM e'), visible);
    // Later still, everything expires; the sweep the open ran is on the virtual scheduler, so run one here.
    nowMs = T0_MS + 10 * HOUR_MS;
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM e'), [[0n]]);
    assert.equal((await expirySweep(db.test.store)).droppedCount, 3);
    assert.deepStrictEqual(await db.rows('SELECT EXPIRATION_TIME, EXPIRATION_TIME_UNIT, EXPIRATION_DIVISION_COUNT, ' +
      'EXPIRATION_TYPE FROM "#tables"'), [[2, 'HOUR', 8, 'PARTITION']]);
    await db.test.store.close();
  });

  it('runs a sweep when the store opens and then every interval, on the store\'s scheduler', async () => {
    let nowMs = T0_MS;
    const db = await partitionTestDatabase(() => nowMs);
    await db.update("CREATE TABLE s (ts TIMESTAMP PRIMARY KEY) WITH (expiration_time=1, expiration_time_unit='HOUR') " +
      'PARTITION BY RANGE (ts) EVERY (1, HOUR)');
    await db.update(`INSERT INTO s VALUES (TIMESTAMP('${new Date(T0_MS).toISOString()}'))`);
    nowMs = T0_MS + 3 * HOUR_MS;
    await db.test.advanceMs(60_000);
    assert.equal(db.test.store.expiryDroppedCount, 1);
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM "#table_partitions"'), [[0n]]);
    await db.test.store.close();
  });
});
