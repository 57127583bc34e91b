// Index planning: which TREE index a WHERE can use and the range of it, with constants rounded
// outward into the column's domain; what is left to the filter.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { NOW_MS } from './tql-test-helpers.ts';

const SCHEMA: ContainerSchema = {
  name: 'meters', type: 'TIME_SERIES', rowKeyColumnCount: 1, schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' },
    { name: 'site', type: 'STRING', array: false, notNull: false },
    { name: 'kw', type: 'DOUBLE', array: false, notNull: false },
    { name: 'count', type: 'LONG', array: false, notNull: false },
    { name: 'seen', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'MICROSECOND' },
  ],
  indexes: [
    { name: 'bySite', columnIndexes: [1], type: 'TREE' },
    { name: '', columnIndexes: [1, 2], type: 'TREE' },
    { name: 'byCount', columnIndexes: [3], type: 'TREE' },
    { name: 'bySeen', columnIndexes: [4], type: 'TREE' },
  ],
};

function indexOf(tql: string) {
  const range = prepareTql(tql, SCHEMA, { nowMs: NOW_MS }).plan.index;
  if (range === undefined) return undefined;
  const { name, low, lowInclusive, high, highInclusive } = range;
  return { name, low, lowInclusive, high, highInclusive };
}

describe('index planning', () => {
  it('prefers the index that pins more columns; equality on a prefix, then a range', () => {
    assert.deepStrictEqual(indexOf("SELECT * WHERE site = 'a'"),
      { name: 'bySite', low: ['a'], lowInclusive: true, high: ['a'], highInclusive: true });
    assert.deepStrictEqual(indexOf("SELECT * WHERE kw > 2 AND site = 'a' AND kw <= 5"),
      { name: '', low: ['a', 2], lowInclusive: false, high: ['a', 5], highInclusive: true });
    assert.deepStrictEqual(indexOf("SELECT * WHERE 'a' = site AND 3 < kw"),
      { name: '', low: ['a', 3], lowInclusive: false, high: ['a', null], highInclusive: false });
    assert.equal(indexOf('SELECT * WHERE kw > 2'), undefined, 'not the leading column');
  });

  it('rounds constants outward into the column domain, and maps NULL tests', () => {
    assert.deepStrictEqual(indexOf('SELECT * WHERE count > 2.5'),
      { name: 'byCount', low: [3n], lowInclusive: true, high: [null], highInclusive: false });
    assert.deepStrictEqual(indexOf('SELECT * WHERE count = 2.5'),
      { name: 'byCount', low: [2n], lowInclusive: true, high: [3n], highInclusive: true });
    assert.deepStrictEqual(indexOf('SELECT * WHERE count < 7'),
      { name: 'byCount', low: [], lowInclusive: true, high: [7n], highInclusive: false });
    assert.deepStrictEqual(indexOf("SELECT * WHERE seen >= TIMESTAMP('1970-01-01T00:00:01.500Z')"),
      { name: 'bySeen', low: [1_500_000n], lowInclusive: true, high: [null], highInclusive: false });
    assert.deepStrictEqual(indexOf('SELECT * WHERE count IS NULL'),
      { name: 'byCount', low: [null], lowInclusive: true, high: [null], highInclusive: true });
    assert.deepStrictEqual(indexOf('SELECT * WHERE count IS NOT NULL'),
      { name: 'byCount', low: [], lowInclusive: true, high: [null], highInclusive: false });
    assert.deepStrictEqual(indexOf('SELECT * WHERE count >= 2 AND count >= 4 AND count < 9'),
      { name: 'byCount', low: [4n], lowInclusive: true, high: [9n], highInclusive: false });
  });

  it('leaves to the filter what it cannot use', () => {
    for (const tql of [
      "SELECT * WHERE site = 'a' OR site = 'b'", "SELECT * WHERE site <> 'a'",
      "SELECT * WHERE NOT site = 'a'", 'SELECT * WHERE count = NULL',
      "SELECT * WHERE UPPER(site) = 'A'", "SELECT * WHERE ts > TIMESTAMP('2026-01-01T00:00:00Z')",
      'SELECT * WHERE count > 1e300',
    ]) {
      assert.equal(indexOf(tql), undefined, tql);
    }
  });
});
