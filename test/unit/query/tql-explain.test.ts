// EXPLAIN and EXPLAIN ANALYZE: the plan as rows (ID, DEPTH, TYPE, VALUE_TYPE, VALUE, STATEMENT)
// saying what the executor does: the read (row-key scan or index, bounds), the filter, the sort,
// the aggregate, LIMIT/OFFSET; ANALYZE adds the measures of a real run.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TQL_EXPLAIN_COLUMNS } from '../../../lib/query/tql/explain.ts';
import type { TqlResult, TqlRowSource } from '../../../lib/query/tql/execute.ts';
import { executeTql } from '../../../lib/query/tql/execute.ts';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { memorySource, NOW_MS, runTql, SAMPLE, sampleRow } from './tql-test-helpers.ts';

const ROWS = [1, 2, 3, 4, 5].map((id) => sampleRow({ i: id * 10, s: `s${id}` }, id));

/** A time series with a TREE index on site and one on (site, kw). */
const METERS: ContainerSchema = {
  name: 'meters', type: 'TIME_SERIES', rowKeyColumnCount: 1, schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' },
    { name: 'site', type: 'STRING', array: false, notNull: false },
    { name: 'kw', type: 'DOUBLE', array: false, notNull: false },
  ],
  indexes: [
    { name: 'bySite', columnIndexes: [1], type: 'TREE' },
    { name: '', columnIndexes: [1, 2], type: 'TREE' },
  ],
};
const T0 = Date.UTC(2026, 0, 1);
const METER_ROWS: Row[] = [0, 1, 2, 3].map((i) => [T0 + i * 1000, i % 2 === 0 ? 'a' : 'b', i]);

/** The entries as `DEPTH TYPE VALUE_TYPE VALUE [STATEMENT]` lines (ID is checked once below). */
function lines(result: TqlResult): string[] {
  assert.equal(result.kind, 'explain');
  if (result.kind !== 'explain') return [];
  return result.rows.map((row, index) => {
    assert.equal(row[0], index);
    const [, depth, type, valueType, value, statement] = row;
    return `${String(depth)} ${String(type)} ${String(valueType)} ${String(value)}` +
      (statement === '' ? '' : ` | ${String(statement)}`);
  });
}

function explain(tql: string, schema = SAMPLE, rows: readonly Row[] = ROWS): string[] {
  return lines(runTql(schema, rows, tql));
}

/** A source whose reads fail: EXPLAIN alone must not read. */
const UNREADABLE: TqlRowSource = {
  pages() {
    throw new Error('EXPLAIN read the container');
  },
};

describe('TQL EXPLAIN', () => {
  it('gives six columns; a plain SELECT * reads as GridDB documents it', () => {
    const result = runTql(SAMPLE, ROWS, 'EXPLAIN SELECT *');
    assert.equal(result.kind, 'explain');
    assert.deepEqual(result.kind === 'explain' && result.columns.map((c) => [c.name, c.type]), [
      ['ID', 'INTEGER'], ['DEPTH', 'INTEGER'], ['TYPE', 'STRING'], ['VALUE_TYPE', 'STRING'],
      ['VALUE', 'STRING'], ['STATEMENT', 'STRING'],
    ]);
    assert.equal(TQL_EXPLAIN_COLUMNS.length, 6);
    assert.deepEqual(lines(result), [
      '0 SELECTION CONDITION NULL',
      '1 INDEX BTREE ROWMAP',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
  });

  it('does not read a row', () => {
    const tql = "EXPLAIN SELECT * WHERE s = 'x' ORDER BY i";
    const query = prepareTql(tql, SAMPLE, { nowMs: NOW_MS });
    const result = executeTql(query, UNREADABLE);
    assert.equal(result.kind, 'explain');
    assert.equal(result.scannedRowCount, 0);
  });

  it('shows the row-key range, the filter and the WHERE text', () => {
    assert.deepEqual(explain('explain select * where id >= 2 and i > 15'), [
      '0 SELECTION CONDITION WHERE | id >= 2 and i > 15',
      '1 INDEX BTREE ROWMAP',
      '2 KEY_RANGE STRING [2, *]',
      '1 FILTER BOOLEAN TRUE',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    // The key range says all WHERE says: no row is filtered.
    assert.deepEqual(explain('EXPLAIN SELECT * WHERE id > 1 AND id <= 3'), [
      '0 SELECTION CONDITION WHERE | id > 1 AND id <= 3',
      '1 INDEX BTREE ROWMAP',
      '2 KEY_RANGE STRING [2, 3]',
      '1 FILTER BOOLEAN FALSE',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    assert.deepEqual(explain('EXPLAIN SELECT * WHERE id = 1 AND id = 2'), [
      '0 SELECTION CONDITION EMPTY | id = 1 AND id = 2',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
  });

  it('names the index a WHERE reads through, and its range', () => {
    assert.deepEqual(explain("EXPLAIN SELECT * WHERE site = 'a'", METERS, METER_ROWS), [
      "0 SELECTION CONDITION WHERE | site = 'a'",
      '1 INDEX BTREE bySite',
      "2 INDEX_RANGE STRING ['a', 'a']",
      '1 FILTER BOOLEAN TRUE',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    const where = "site = 'a' AND kw > 1.5 AND ts < TIMESTAMP('2026-01-01T00:00:03Z')";
    assert.deepEqual(explain(`EXPLAIN SELECT * WHERE ${where}`, METERS, METER_ROWS), [
      `0 SELECTION CONDITION WHERE | ${where}`,
      '1 INDEX BTREE TREE(site, kw)',
      "2 INDEX_RANGE STRING (('a', 1.5), ('a', NULL))",
      "2 KEY_RANGE STRING [*, TIMESTAMP('2026-01-01T00:00:02.999Z')]",
      '1 FILTER BOOLEAN TRUE',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    // Without an index on kw the same condition is a scan.
    assert.deepEqual(explain('EXPLAIN SELECT * WHERE kw > 1', METERS, METER_ROWS).slice(0, 3), [
      '0 SELECTION CONDITION WHERE | kw > 1',
      '1 INDEX BTREE ROWMAP',
      '1 FILTER BOOLEAN TRUE',
    ]);
  });

  it('tells a sort from row-key order, and how LIMIT and OFFSET apply', () => {
    assert.deepEqual(explain('EXPLAIN SELECT * ORDER BY i DESC, s LIMIT 2 OFFSET 1'), [
      '0 SELECTION CONDITION NULL',
      '1 INDEX BTREE ROWMAP',
      '0 QUERY_RESULT_SORT BOOLEAN TRUE | i DESC, s',
      '1 QUERY_RESULT_SORT_EXPRESSION STRING i | DESC',
      '1 QUERY_RESULT_SORT_EXPRESSION STRING s | ASC',
      '0 QUERY_LIMIT LONG 2 | LIMIT 2 OFFSET 1',
      '1 QUERY_OFFSET LONG 1',
      '1 LIMIT_MODE STRING TOP_ROWS',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    assert.deepEqual(explain('EXPLAIN SELECT * ORDER BY id DESC LIMIT 3;'), [
      '0 SELECTION CONDITION NULL',
      '1 INDEX BTREE ROWMAP',
      '2 SCAN_ORDER STRING DESC',
      '0 QUERY_RESULT_SORT BOOLEAN TRUE | id DESC',
      '1 QUERY_RESULT_SORT_API_INDEX_ORDER STRING DESC',
      '0 QUERY_LIMIT LONG 3 | LIMIT 3',
      '1 LIMIT_MODE STRING STOP_SCAN',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
  });

  it('shows the aggregate and where its values come from', () => {
    assert.deepEqual(explain('EXPLAIN SELECT COUNT(*) WHERE id > 2'), [
      '0 SELECTION CONDITION WHERE | id > 2',
      '1 INDEX BTREE ROWMAP',
      '2 KEY_RANGE STRING [3, *]',
      '1 FILTER BOOLEAN FALSE',
      '0 AGGREGATION STRING COUNT | COUNT(*)',
      '1 AGGREGATION_INPUT STRING ROW_COUNT',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    assert.deepEqual(explain('EXPLAIN SELECT avg(i) ORDER BY s LIMIT 1').slice(2), [
      '0 AGGREGATION STRING AVG | avg(i)',
      '1 AGGREGATION_INPUT STRING COLUMN_BATCHES',
      '0 QUERY_LIMIT LONG 1 | LIMIT 1',
      '1 LIMIT_MODE STRING RESULT_ROW',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    assert.deepEqual(explain('EXPLAIN SELECT MAX(i) WHERE i > 3').slice(3, 5), [
      '0 AGGREGATION STRING MAX | MAX(i)',
      '1 AGGREGATION_INPUT STRING ROWS',
    ]);
  });

  it('writes bounds as TQL literals: timestamps of every precision, strings, NULL', () => {
    const nanos: ContainerSchema = {
      name: 'nanos', type: 'TIME_SERIES', rowKeyColumnCount: 1, schemaVersion: 1, indexes: [],
      columns: [
        { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'NANOSECOND' },
        { name: 'v', type: 'DOUBLE', array: false, notNull: false },
      ],
    };
    const tql = "EXPLAIN SELECT * WHERE ts >= TIMESTAMP_NS('2026-01-01T00:00:00.000000001Z')";
    assert.equal(explain(tql, nanos, [])[2],
      "2 KEY_RANGE STRING [TIMESTAMP_NS('2026-01-01T00:00:00.000000001Z'), *]");
    const before = "EXPLAIN SELECT * WHERE ts < TIMESTAMP('1970-01-01T00:00:00Z')";
    assert.equal(explain(before, nanos, [])[2],
      "2 KEY_RANGE STRING [*, TIMESTAMP_NS('1969-12-31T23:59:59.999999999Z')]");
    const strings: ContainerSchema = {
      name: 'strings', type: 'COLLECTION', rowKeyColumnCount: 1, schemaVersion: 1, indexes: [],
      columns: [{ name: 'k', type: 'STRING', array: false, notNull: true }],
    };
    assert.equal(explain("EXPLAIN SELECT * WHERE k = 'it''s'", strings, [])[2],
      "2 KEY_RANGE STRING ['it''s', 'it''s']");
    assert.equal(explain('EXPLAIN SELECT * WHERE site IS NULL', METERS, [])[2],
      '2 INDEX_RANGE STRING [NULL, NULL]');
  });

  it('refuses what the query itself would refuse', () => {
    assert.throws(() => runTql(SAMPLE, ROWS, 'EXPLAIN SELECT * WHERE nope = 1'),
      (error: Error & { code?: string }) => error.code === 'COLUMN_NOT_FOUND');
    assert.throws(() => runTql(SAMPLE, ROWS, 'EXPLAIN EXPLAIN SELECT *'),
      (error: Error & { code?: string }) => error.code === 'TQL_SYNTAX');
  });
});

describe('TQL EXPLAIN ANALYZE', () => {
  let clockMs = 100;
  const tick = () => (clockMs += 2.5);

  it('runs the query and adds what it measured', () => {
    const result = runTql(SAMPLE, ROWS,
      'EXPLAIN ANALYZE SELECT * WHERE id >= 2 AND i > 25 ORDER BY i DESC LIMIT 2 OFFSET 1',
      { monotonicMs: tick });
    assert.deepEqual(lines(result).slice(-5), [
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 3',
      '0 QUERY_SCANNED_ROWS INTEGER 4',
      '0 QUERY_RESULT_TYPE STRING RESULT_ROW_ID_SET',
      '0 QUERY_RESULT_ROWS INTEGER 2',
      '0 QUERY_EXECUTE_TIME_MS DOUBLE 2.500',
    ]);
    assert.equal(result.scannedRowCount, 4);
  });

  it('counts a stopped scan, an empty result and an aggregate', () => {
    assert.deepEqual(explain('EXPLAIN ANALYZE SELECT * LIMIT 2').slice(-4), [
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 2',
      '0 QUERY_SCANNED_ROWS INTEGER 2',
      '0 QUERY_RESULT_TYPE STRING RESULT_ROW_ID_SET',
      '0 QUERY_RESULT_ROWS INTEGER 2',
    ]);
    assert.deepEqual(explain("EXPLAIN ANALYZE SELECT * WHERE s = 'none'").slice(-3), [
      '0 QUERY_SCANNED_ROWS INTEGER 5',
      '0 QUERY_RESULT_TYPE STRING RESULT_ROWSET',
      '0 QUERY_RESULT_ROWS INTEGER 0',
    ]);
    // The memory source cannot count: the run reads rows where EXPLAIN planned a count.
    const counted = explain('EXPLAIN ANALYZE SELECT COUNT(*)');
    assert.ok(counted.includes('1 AGGREGATION_INPUT STRING ROWS'));
    assert.deepEqual(counted.slice(-3), [
      '0 QUERY_SCANNED_ROWS INTEGER 5',
      '0 QUERY_RESULT_TYPE STRING RESULT_AGGREGATE',
      '0 QUERY_RESULT_ROWS INTEGER 1',
    ]);
  });

  it('reports the index the run read through, or that it scanned instead', () => {
    const source = memorySource(METERS, METER_ROWS);
    const tql = "EXPLAIN ANALYZE SELECT * WHERE site = 'b'";
    const query = prepareTql(tql, METERS, { nowMs: NOW_MS });
    const scanned = lines(executeTql(query, { ...source, indexRead: () => undefined }));
    assert.deepEqual(scanned.slice(0, 4), [
      "0 SELECTION CONDITION WHERE | site = 'b'",
      '1 INDEX BTREE ROWMAP',
      '2 INDEX_SKIPPED STRING bySite',
      '1 FILTER BOOLEAN TRUE',
    ]);
    const indexed = lines(executeTql(query, { ...source, indexRead: () => query.plan.index }));
    assert.deepEqual(indexed.slice(1, 3),
      ['1 INDEX BTREE bySite', "2 INDEX_RANGE STRING ['b', 'b']"]);
    assert.ok(indexed.includes('0 QUERY_RESULT_ROWS INTEGER 2'));
  });

  it('fails as the query fails', () => {
    const tql = 'EXPLAIN ANALYZE SELECT * WHERE 1 / i > 0';
    assert.throws(() => runTql(SAMPLE, [sampleRow({ i: 0 })], tql),
      (error: Error & { code?: string }) => error.code === 'TQL_EVALUATION');
  });
});
