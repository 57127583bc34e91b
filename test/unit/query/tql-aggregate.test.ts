import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import { INT64_MAX, INT64_MIN, type Row } from '../../../lib/schema/column-type.ts';
import { runTql, SAMPLE, sampleRow, tqlError } from './tql-test-helpers.ts';

function aggregate(rows: readonly Row[], tql: string): { value: unknown; type: string } {
  const result: TqlResult = runTql(SAMPLE, rows, tql);
  assert.equal(result.kind, 'aggregate');
  if (result.kind !== 'aggregate') return { value: undefined, type: '' };
  const precision = result.type.timePrecision === undefined ? '' : `/${result.type.timePrecision}`;
  return { value: result.value, type: `${result.type.type}${precision}` };
}

const ROWS: Row[] = [
  sampleRow({ i: 1, l: 10n, d: 1.5, f: 0.5, t: 1000, s: 'a' }, 1),
  sampleRow({ i: 2, l: 20n, d: null, f: 1.5, t: 3000, s: null }, 2),
  sampleRow({ i: null, l: 30n, d: 4.5, f: null, t: 2000, s: 'c' }, 3),
  sampleRow({ i: 4, l: null, d: -3, f: 2, t: null, s: 'd' }, 4),
];

describe('TQL aggregates', () => {
  it('COUNT(*) counts rows, COUNT(column) non-NULL values, 0 when empty', () => {
    assert.deepEqual(aggregate(ROWS, 'SELECT COUNT(*)'), { value: 4n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT COUNT(i)'), { value: 3n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT count(s) WHERE id > 1'), { value: 2n, type: 'LONG' });
    assert.deepEqual(aggregate([], 'SELECT COUNT(*)'), { value: 0n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT COUNT(*) WHERE id > 10'), { value: 0n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT COUNT(*) WHERE FALSE'), { value: 0n, type: 'LONG' });
  });

  it('SUM gives a LONG over integers, a DOUBLE over floats, no row when empty', () => {
    assert.deepEqual(aggregate(ROWS, 'SELECT SUM(i)'), { value: 7n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT SUM(l)'), { value: 60n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT SUM(d)'), { value: 3, type: 'DOUBLE' });
    assert.deepEqual(aggregate(ROWS, 'SELECT SUM(f)'), { value: 4, type: 'DOUBLE' });
    assert.deepEqual(aggregate(ROWS, 'SELECT SUM(i) WHERE id = 3'), { value: null, type: 'LONG' });
    assert.deepEqual(aggregate([], 'SELECT SUM(d)'), { value: null, type: 'DOUBLE' });
  });

  it('SUM of LONG extremes is exact, and refuses a sum beyond the LONG range', () => {
    const rows = (values: bigint[]) => values.map((l, index) => sampleRow({ l }, index));
    assert.deepEqual(aggregate(rows([INT64_MAX, INT64_MIN]), 'SELECT SUM(l)'), {
      value: -1n,
      type: 'LONG',
    });
    // The running sum leaves the LONG range and comes back: the total is still exact.
    assert.deepEqual(
      aggregate(rows([INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN, 5n]), 'SELECT SUM(l)'),
      { value: 3n, type: 'LONG' },
    );
    assert.deepEqual(aggregate(rows([INT64_MAX]), 'SELECT SUM(l)'), {
      value: INT64_MAX,
      type: 'LONG',
    });
    assert.throws(
      () => runTql(SAMPLE, rows([INT64_MAX, 1n]), 'SELECT SUM(l)'),
      tqlError('VALUE_OUT_OF_RANGE', { column: 8 }, /beyond the LONG range/),
    );
    assert.throws(
      () => runTql(SAMPLE, rows([INT64_MIN, -1n]), 'SELECT SUM(l)'),
      tqlError('VALUE_OUT_OF_RANGE'),
    );
    // Integers past 2^53 stay exact where doubles would not.
    assert.deepEqual(aggregate(rows([2n ** 53n, 1n, 1n]), 'SELECT SUM(l)'), {
      value: 2n ** 53n + 2n,
      type: 'LONG',
    });
    const ints = Array.from({ length: 3000 }, (_, index) => sampleRow({ i: 2_147_483_647 }, index));
    assert.deepEqual(aggregate(ints, 'SELECT SUM(i)'), {
      value: 3000n * 2_147_483_647n,
      type: 'LONG',
    });
  });

  it('AVG divides the exact sum, as a DOUBLE', () => {
    assert.deepEqual(aggregate(ROWS, 'SELECT AVG(i)'), { value: 7 / 3, type: 'DOUBLE' });
    assert.deepEqual(aggregate(ROWS, 'SELECT AVG(d)'), { value: 1, type: 'DOUBLE' });
    const rows = [INT64_MAX, INT64_MAX, INT64_MAX].map((l, index) => sampleRow({ l }, index));
    assert.deepEqual(aggregate(rows, 'SELECT AVG(l)'), {
      value: Number(INT64_MAX),
      type: 'DOUBLE',
    });
    assert.deepEqual(aggregate([], 'SELECT AVG(i)'), { value: null, type: 'DOUBLE' });
  });

  it('MIN and MAX keep the column type, NaN above every number', () => {
    assert.deepEqual(aggregate(ROWS, 'SELECT MIN(i)'), { value: 1, type: 'INTEGER' });
    assert.deepEqual(aggregate(ROWS, 'SELECT MAX(l)'), { value: 30n, type: 'LONG' });
    assert.deepEqual(aggregate(ROWS, 'SELECT MIN(d)'), { value: -3, type: 'DOUBLE' });
    assert.deepEqual(aggregate(ROWS, 'SELECT MAX(f)'), { value: 2, type: 'FLOAT' });
    assert.deepEqual(aggregate(ROWS, 'SELECT MAX(t)'), {
      value: 3000,
      type: 'TIMESTAMP/MILLISECOND',
    });
    assert.deepEqual(aggregate(ROWS, 'SELECT MIN(t)'), {
      value: 1000,
      type: 'TIMESTAMP/MILLISECOND',
    });
    const nan = [sampleRow({ d: 1 }, 1), sampleRow({ d: Number.NaN }, 2), sampleRow({ d: -1 }, 3)];
    assert.ok(Number.isNaN(aggregate(nan, 'SELECT MAX(d)').value));
    assert.equal(aggregate(nan, 'SELECT MIN(d)').value, -1);
    const extremes = [INT64_MIN, 0n, INT64_MAX].map((l, index) => sampleRow({ l }, index));
    assert.equal(aggregate(extremes, 'SELECT MIN(l)').value, INT64_MIN);
    assert.equal(aggregate(extremes, 'SELECT MAX(l)').value, INT64_MAX);
    const nanos = [sampleRow({ tn: 5n }, 1), sampleRow({ tn: 3n }, 2)];
    assert.deepEqual(aggregate(nanos, 'SELECT MAX(tn)'), {
      value: 5n,
      type: 'TIMESTAMP/NANOSECOND',
    });
    assert.deepEqual(aggregate([], 'SELECT MAX(t)'), {
      value: null,
      type: 'TIMESTAMP/MILLISECOND',
    });
  });

  it('VARIANCE and STDDEV are sample statistics, 0 for one value; _POP divides by n', () => {
    const rows = [2, 4, 4, 4, 5, 5, 7, 9].map((i, index) => sampleRow({ i }, index));
    assert.deepEqual(aggregate(rows, 'SELECT VARIANCE(i)'), { value: 32 / 7, type: 'DOUBLE' });
    assert.equal(aggregate(rows, 'SELECT STDDEV(i)').value, Math.sqrt(32 / 7));
    assert.equal(aggregate(rows, 'SELECT VARIANCE_SAMP(i)').value, 32 / 7);
    assert.equal(aggregate(rows, 'SELECT VARIANCE_POP(i)').value, 4);
    assert.equal(aggregate(rows, 'SELECT STDDEV_POP(i)').value, 2);
    assert.equal(aggregate(rows, 'SELECT STDDEV_SAMP(i)').value, Math.sqrt(32 / 7));
    assert.deepEqual(aggregate([sampleRow({ d: 3 })], 'SELECT VARIANCE(d)'), {
      value: 0,
      type: 'DOUBLE',
    });
    assert.deepEqual(aggregate([sampleRow({ d: 3 })], 'SELECT STDDEV(d)'), {
      value: 0,
      type: 'DOUBLE',
    });
    assert.deepEqual(aggregate([], 'SELECT STDDEV(d)'), { value: null, type: 'DOUBLE' });
    // Large offsets do not cost precision (Welford, not sum of squares).
    const shifted = [1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16].map((d, index) =>
      sampleRow({ d }, index),
    );
    assert.equal(aggregate(shifted, 'SELECT VARIANCE(d)').value, 30);
  });

  it('applies LIMIT and OFFSET to the one result row', () => {
    assert.equal(aggregate(ROWS, 'SELECT COUNT(*) LIMIT 1').value, 4n);
    assert.equal(aggregate(ROWS, 'SELECT COUNT(*) LIMIT 0').value, null);
    assert.equal(aggregate(ROWS, 'SELECT SUM(i) LIMIT 5 OFFSET 1').value, null);
  });

  it("checks the aggregate's argument", () => {
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT SUM(s)'),
      tqlError('TQL_SEMANTIC', { column: 12 }, /numeric column/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT AVG(t)'),
      tqlError('TQL_SEMANTIC', { column: 12 }, /numeric column/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT MAX(s)'),
      tqlError('TQL_SEMANTIC', { column: 12 }, /TIMESTAMP column/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT SUM(*)'),
      tqlError('TQL_SEMANTIC', { column: 8 }, /one column name/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT SUM(i + 1)'),
      tqlError('TQL_SEMANTIC', { column: 12 }, /one column name/),
    );
    assert.throws(() => runTql(SAMPLE, [], 'SELECT SUM(i, d)'), tqlError('TQL_SEMANTIC'));
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT SUM(x)'),
      tqlError('COLUMN_NOT_FOUND', { column: 12 }),
    );
  });
});
