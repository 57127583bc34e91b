import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { NOW_MS, SAMPLE } from './tql-test-helpers.ts';

const SERIES: ContainerSchema = {
  name: 'series',
  type: 'TIME_SERIES',
  rowKeyColumnCount: 1,
  indexes: [],
  schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
  ],
};

const keyed = (
  name: string,
  type: 'STRING' | 'LONG',
  extra: Partial<ContainerSchema> = {},
): ContainerSchema => ({
  name,
  type: 'COLLECTION',
  rowKeyColumnCount: 1,
  indexes: [],
  schemaVersion: 1,
  columns: [
    { name: 'k', type, array: false, notNull: true },
    { name: 'k2', type: 'INTEGER', array: false, notNull: true },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
  ],
  ...extra,
});

function plan(schema: ContainerSchema, tql: string) {
  const { empty, from, to, direction, ordered } = prepareTql(tql, schema, { nowMs: NOW_MS }).plan;
  return { empty, from, to, direction, ordered };
}

const T0 = Date.UTC(2026, 0, 1);
const T1 = Date.UTC(2026, 0, 2);

describe('TQL planner', () => {
  it('turns a time range of a time series into inclusive key bounds', () => {
    assert.deepEqual(
      plan(
        SERIES,
        "SELECT * WHERE ts >= TIMESTAMP('2026-01-01T00:00:00Z') AND ts < TIMESTAMP('2026-01-02T00:00:00Z')",
      ),
      { empty: false, from: T0, to: T1 - 1, direction: 'asc', ordered: true },
    );
    assert.deepEqual(
      plan(SERIES, "SELECT * WHERE TIMESTAMP('2026-01-01T00:00:00Z') < ts AND v > 1"),
      { empty: false, from: T0 + 1, to: undefined, direction: 'asc', ordered: true },
    );
    assert.deepEqual(plan(SERIES, "SELECT * WHERE ts = TIMESTAMP('2026-01-01T00:00:00Z')"), {
      empty: false,
      from: T0,
      to: T0,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(
      plan(SERIES, "SELECT * WHERE ts BETWEEN TIMESTAMP('2026-01-01T00:00:00Z') AND NOW()"),
      { empty: false, from: T0, to: NOW_MS, direction: 'asc', ordered: true },
    );
  });

  it('rounds finer constants outward on a millisecond key', () => {
    assert.deepEqual(
      plan(
        SERIES,
        "SELECT * WHERE ts > TIMESTAMP_NS('2026-01-01T00:00:00.000000500Z') " +
          "AND ts <= TIMESTAMP_US('2026-01-01T00:00:00.002500Z')",
      ),
      { empty: false, from: T0 + 1, to: T0 + 2, direction: 'asc', ordered: true },
    );
    assert.equal(
      plan(SERIES, "SELECT * WHERE ts = TIMESTAMP_NS('2026-01-01T00:00:00.000000500Z')").empty,
      true,
    );
  });

  it('intersects AND, takes the hull of OR, and ignores what it does not understand', () => {
    const day = (d: number) => `TIMESTAMP('2026-01-0${d}T00:00:00Z')`;
    assert.deepEqual(
      plan(SERIES, `SELECT * WHERE (ts < ${day(2)} OR ts > ${day(5)}) AND ts > ${day(1)}`),
      { empty: false, from: T0 + 1, to: undefined, direction: 'asc', ordered: true },
    );
    assert.deepEqual(plan(SERIES, `SELECT * WHERE ts = ${day(1)} OR ts = ${day(2)}`), {
      empty: false,
      from: T0,
      to: T1,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SERIES, `SELECT * WHERE ts IN (${day(2)}, ${day(1)}, NULL)`), {
      empty: false,
      from: T0,
      to: T1,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SERIES, `SELECT * WHERE NOT ts < ${day(1)}`), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SERIES, `SELECT * WHERE ts < ${day(1)} OR v > 0`), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SERIES, `SELECT * WHERE TIMESTAMPADD(DAY, ts, 1) > ${day(1)}`), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
  });

  it('knows when nothing can match', () => {
    for (const where of [
      "ts > TIMESTAMP('2026-01-02T00:00:00Z') AND ts < TIMESTAMP('2026-01-01T00:00:00Z')",
      'ts = NULL',
      'FALSE',
      'NULL',
      'v > 1 AND FALSE',
      'ts IN (NULL)',
    ]) {
      assert.equal(plan(SERIES, `SELECT * WHERE ${where}`).empty, true, where);
    }
    assert.equal(plan(SERIES, 'SELECT * WHERE FALSE OR v > 1').empty, false);
  });

  it('plans integer, LONG and STRING keys, NaN and INF included', () => {
    assert.deepEqual(plan(SAMPLE, 'SELECT * WHERE id > 2.5 AND id < 7.5'), {
      empty: false,
      from: 3,
      to: 7,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SAMPLE, 'SELECT * WHERE id >= -2.5 AND id <= 1e300'), {
      empty: false,
      from: -2,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(SAMPLE, 'SELECT * WHERE id < NaN AND id < INF').empty, false);
    assert.equal(plan(SAMPLE, 'SELECT * WHERE id > NaN').empty, true);
    assert.equal(plan(SAMPLE, 'SELECT * WHERE id = 2.5').empty, true);
    assert.equal(plan(SAMPLE, 'SELECT * WHERE id > 9223372036854775807').empty, true);
    const long = keyed('longs', 'LONG');
    assert.deepEqual(plan(long, 'SELECT * WHERE k >= 5 AND k < 9223372036854775807'), {
      empty: false,
      from: 5n,
      to: 9_223_372_036_854_775_806n,
      direction: 'asc',
      ordered: true,
    });
    // Beyond 2^53 a LONG compares with a DOUBLE as a double: no narrowing there.
    assert.deepEqual(plan(long, 'SELECT * WHERE k <= 1e18'), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
    const strings = keyed('strings', 'STRING');
    assert.deepEqual(plan(strings, "SELECT * WHERE k = 'b' OR k IN ('d', 'a')"), {
      empty: false,
      from: 'a',
      to: 'd',
      direction: 'asc',
      ordered: true,
    });
    assert.deepEqual(plan(strings, "SELECT * WHERE k <> 'b'"), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'asc',
      ordered: true,
    });
  });

  it('knows when the key range is all the WHERE says, so WHERE need not run', () => {
    const covered = (schema: ContainerSchema, where: string) =>
      prepareTql(`SELECT * WHERE ${where}`, schema, { nowMs: NOW_MS }).plan.whereCovered;
    const day = (d: number) => `TIMESTAMP('2026-01-0${d}T00:00:00Z')`;
    assert.equal(covered(SERIES, `ts >= ${day(1)} AND ts < ${day(2)}`), true);
    assert.equal(covered(SERIES, `ts BETWEEN ${day(1)} AND ${day(2)} AND ${day(1)} < ts`), true);
    assert.equal(covered(SERIES, `ts > TIMESTAMP_NS('2026-01-01T00:00:00.000000001Z')`), false);
    assert.equal(covered(SERIES, `ts >= ${day(1)} AND v > 0`), false);
    assert.equal(covered(SERIES, `ts < ${day(1)} OR ts > ${day(2)}`), false);
    assert.equal(covered(SERIES, `ts <> ${day(1)}`), false);
    assert.equal(covered(SAMPLE, 'id >= 1 AND id <= 9223372036854775807'), true);
    assert.equal(covered(SAMPLE, 'id > 1.5'), false);
    assert.equal(covered(keyed('strings', 'STRING'), "k = 'a'"), true);
    assert.equal(
      prepareTql(`SELECT * WHERE ts >= ${day(1)}`, SERIES, { nowMs: NOW_MS }).filter,
      undefined,
    );
  });

  it('scans in ORDER BY order when the keys are the row key; sorts otherwise', () => {
    assert.deepEqual(plan(SERIES, 'SELECT * ORDER BY ts DESC LIMIT 5'), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'desc',
      ordered: true,
    });
    assert.equal(plan(SERIES, 'SELECT * ORDER BY ts, v').ordered, true);
    assert.equal(plan(SERIES, 'SELECT * ORDER BY v').ordered, false);
    assert.equal(plan(SERIES, 'SELECT * ORDER BY v, ts').ordered, false);
    const composite = keyed('pairs', 'STRING', { rowKeyColumnCount: 2 });
    assert.deepEqual(plan(composite, "SELECT * WHERE k = 'a' ORDER BY k DESC, k2 DESC"), {
      empty: false,
      from: undefined,
      to: undefined,
      direction: 'desc',
      ordered: true,
    });
    assert.equal(plan(composite, 'SELECT * ORDER BY k').ordered, true);
    assert.equal(plan(composite, 'SELECT * ORDER BY k DESC').ordered, false);
    assert.equal(plan(composite, 'SELECT * ORDER BY k, k2 DESC').ordered, false);
    const keyless = keyed('bag', 'STRING', { rowKeyColumnCount: 0 });
    assert.equal(plan(keyless, 'SELECT *').ordered, true);
    assert.equal(plan(keyless, 'SELECT * ORDER BY k').ordered, false);
  });
});
