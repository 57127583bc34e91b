import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueTql, type TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import {
  memorySource,
  resultRows,
  runTql,
  SAMPLE,
  sampleRow,
  tqlError,
} from './tql-test-helpers.ts';

const ROWS: Row[] = [
  sampleRow({ i: 3, s: 'b', d: 1, b: true }, 1),
  sampleRow({ i: null, s: 'a', d: Number.NaN, b: false }, 2),
  sampleRow({ i: 1, s: null, d: -1, b: null }, 3),
  sampleRow({ i: 3, s: 'a', d: null, b: true }, 4),
  sampleRow({ i: 2, s: 'c', d: 0, b: false }, 5),
];

function ids(tql: string, rows: readonly Row[] = ROWS): number[] {
  return resultRows(runTql(SAMPLE, rows, tql)).map((row) => row[0] as number);
}

describe('TQL ORDER BY, LIMIT, OFFSET', () => {
  it('returns rows in row-key order without ORDER BY', () => {
    assert.deepEqual(ids('SELECT *'), [1, 2, 3, 4, 5]);
    assert.deepEqual(ids('SELECT * ORDER BY id DESC'), [5, 4, 3, 2, 1]);
  });

  it('sorts NULL as the largest value: last ascending, first descending', () => {
    assert.deepEqual(ids('SELECT * ORDER BY i'), [3, 5, 1, 4, 2]);
    assert.deepEqual(ids('SELECT * ORDER BY i DESC'), [2, 1, 4, 5, 3]);
    assert.deepEqual(ids('SELECT * ORDER BY s ASC'), [2, 4, 1, 5, 3]);
  });

  it('sorts NaN above every number and below NULL', () => {
    assert.deepEqual(ids('SELECT * ORDER BY d'), [3, 5, 1, 2, 4]);
    assert.deepEqual(ids('SELECT * ORDER BY d DESC'), [4, 2, 1, 5, 3]);
  });

  it('applies several keys in turn; ties keep row-key order', () => {
    assert.deepEqual(ids('SELECT * ORDER BY i DESC, s'), [2, 4, 1, 5, 3]);
    assert.deepEqual(ids('SELECT * ORDER BY b'), [2, 5, 1, 4, 3]);
    assert.deepEqual(ids('SELECT * ORDER BY b DESC, id DESC'), [3, 4, 1, 5, 2]);
  });

  it('takes LIMIT and OFFSET after ordering', () => {
    assert.deepEqual(ids('SELECT * ORDER BY i LIMIT 2'), [3, 5]);
    assert.deepEqual(ids('SELECT * ORDER BY i LIMIT 2 OFFSET 2'), [1, 4]);
    assert.deepEqual(ids('SELECT * ORDER BY i LIMIT 10 OFFSET 4'), [2]);
    assert.deepEqual(ids('SELECT * ORDER BY i LIMIT 10 OFFSET 5'), []);
    assert.deepEqual(ids('SELECT * LIMIT 0'), []);
    assert.deepEqual(ids('SELECT * WHERE i > 1 LIMIT 2'), [1, 4]);
    assert.deepEqual(ids('SELECT * WHERE i > 1 LIMIT 2 OFFSET 1'), [4, 5]);
    assert.deepEqual(ids('SELECT * LIMIT 99999999999999999999 OFFSET 3'), [4, 5]);
    assert.deepEqual(ids('SELECT * LIMIT 1 OFFSET 99999999999999999999'), []);
  });

  it('keeps only the best rows of a sorted LIMIT, with the same result as a full sort', () => {
    const rows = Array.from({ length: 5000 }, (_, index) =>
      sampleRow({ i: (index * 7919) % 101 }, index),
    );
    const full = ids('SELECT * ORDER BY i DESC', rows);
    assert.deepEqual(ids('SELECT * ORDER BY i DESC LIMIT 30 OFFSET 20', rows), full.slice(20, 50));
    assert.deepEqual(
      ids('SELECT * ORDER BY i LIMIT 600', rows),
      ids('SELECT * ORDER BY i', rows).slice(0, 600),
    );
  });

  it('stops reading once LIMIT rows are there, when the scan order is the result order', () => {
    const rows = Array.from({ length: 100 }, (_, index) => sampleRow({ i: index }, index));
    const result = runTql(SAMPLE, rows, 'SELECT * WHERE i % 2 = 0 LIMIT 3');
    assert.equal(result.scannedRowCount, 5);
    assert.equal(runTql(SAMPLE, rows, 'SELECT * ORDER BY id DESC LIMIT 3').scannedRowCount, 3);
    assert.equal(runTql(SAMPLE, rows, 'SELECT * ORDER BY i LIMIT 3').scannedRowCount, 100);
  });

  it('refuses ORDER BY of what does not sort', () => {
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * ORDER BY i + 1'),
      tqlError('TQL_SEMANTIC', { column: 19 }, /column names/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * ORDER BY la'),
      tqlError('TQL_SEMANTIC', { column: 19 }, /LONG_ARRAY/),
    );
    assert.throws(() => runTql(SAMPLE, [], 'SELECT * ORDER BY blob'), tqlError('TQL_SEMANTIC'));
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * ORDER BY nope'),
      tqlError('COLUMN_NOT_FOUND', { column: 19 }),
    );
  });

  it('checks FROM against the container', () => {
    assert.deepEqual(ids('SELECT * FROM Sample WHERE id = 2'), [2]);
    assert.deepEqual(ids('SELECT * FROM "SAMPLE"'), [1, 2, 3, 4, 5]);
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * FROM other'),
      tqlError('TQL_SEMANTIC', { column: 15 }, /"other"/),
    );
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * FROM db.sample'),
      tqlError('NOT_SUPPORTED', { column: 15 }),
    );
  });
});

describe('TQL results in parts', () => {
  const rows = Array.from({ length: 20 }, (_, index) => sampleRow({ i: index % 4 }, index));

  /** Every row of a query, answer by answer; returns the rows and how many answers it took. */
  function drain(tql: string, options: { fetchSizeRows: number; partialExecution?: boolean }) {
    const source = memorySource(SAMPLE, rows);
    let result: TqlResult = runTql(SAMPLE, rows, tql, options);
    const all = [...resultRows(result)];
    let answers = 1;
    while (result.kind === 'rows' && result.cursor !== undefined) {
      result = continueTql(result.cursor, source, { fetchSizeRows: options.fetchSizeRows });
      const page = resultRows(result);
      assert.ok(page.length <= options.fetchSizeRows);
      all.push(...page);
      answers++;
    }
    return { ids: all.map((row) => row[0] as number), answers };
  }

  it('hands out a computed result fetch by fetch', () => {
    const whole = ids('SELECT * WHERE i <> 1 ORDER BY i DESC', rows);
    const parts = drain('SELECT * WHERE i <> 1 ORDER BY i DESC', { fetchSizeRows: 4 });
    assert.deepEqual(parts.ids, whole);
    assert.equal(parts.answers, Math.ceil(whole.length / 4));
  });

  it('partial execution reads only as far as each fetch needs and resumes after its last row', () => {
    const tql = 'SELECT * WHERE i <> 1 LIMIT 9 OFFSET 2';
    const whole = ids(tql, rows);
    const first = runTql(SAMPLE, rows, tql, { fetchSizeRows: 3, partialExecution: true });
    assert.deepEqual(
      resultRows(first).map((row) => row[0]),
      whole.slice(0, 3),
    );
    assert.ok(first.scannedRowCount < rows.length);
    assert.deepEqual(drain(tql, { fetchSizeRows: 3, partialExecution: true }).ids, whole);
    assert.deepEqual(
      drain('SELECT * ORDER BY id DESC', { fetchSizeRows: 7, partialExecution: true }).ids,
      ids('SELECT * ORDER BY id DESC', rows),
    );
  });

  it('partial execution needs SELECT * in row-key order', () => {
    assert.throws(
      () => runTql(SAMPLE, rows, 'SELECT * ORDER BY i', { partialExecution: true }),
      tqlError('NOT_SUPPORTED', undefined, /partial execution/),
    );
    assert.throws(
      () => runTql(SAMPLE, rows, 'SELECT *', { fetchSizeRows: 0 }),
      tqlError('ROW_INVALID'),
    );
  });
});
