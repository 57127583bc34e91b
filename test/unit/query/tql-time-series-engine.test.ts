// The time-series functions through the engine (ContainerHandle.query): they read only the rows
// they need (TIME_NEXT/TIME_PREV one row, TIME_SAMPLING one pass, TIME_AVG and MAX_ROWS from
// column batches), see a session's own uncommitted rows, and give the same answers either way.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { openTestStore, type TestStore } from '../engine/engine-test-helpers.ts';

const T0 = Date.UTC(2026, 0, 1);
const ROW_COUNT = 50_000;
const iso = (ms: number) => `TIMESTAMP('${new Date(ms).toISOString()}')`;
const at = (i: number) => T0 + i * 10_000;

function rowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

describe('TQL time-series functions through the engine', () => {
  let test: TestStore;

  before(async () => {
    test = await openTestStore();
    await test.store.createContainer({
      name: 'cpu',
      type: 'TIME_SERIES',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 'usage', type: 'DOUBLE' },
        { name: 'host', type: 'STRING' },
      ],
    });
    const rows: Row[] = [];
    for (let i = 0; i < ROW_COUNT; i++) rows.push([at(i), i % 100, i % 9 === 0 ? null : 'h']);
    await test.store.session().container('cpu').multiPut(rows);
  });

  after(async () => {
    await test.store.close();
  });

  it('TIME_NEXT and TIME_PREV read one row, not a page', async () => {
    const cpu = test.store.session().container('cpu');
    const next = await cpu.query(`SELECT TIME_NEXT(*, ${iso(at(20_000) + 1)})`);
    assert.deepEqual(rowsOf(next), [[at(20_001), 1, 'h']]);
    assert.equal(next.scannedRowCount, 1);
    const prev = await cpu.query(`SELECT TIME_PREV(*, ${iso(at(ROW_COUNT + 100))})`);
    assert.deepEqual(rowsOf(prev), [[at(ROW_COUNT - 1), 99, 'h']]);
    assert.equal(prev.scannedRowCount, 1);
    const filtered = await cpu.query(`SELECT TIME_PREV_ONLY(*, ${iso(at(9))}) WHERE host IS NULL`);
    assert.deepEqual(rowsOf(filtered), [[at(0), 0, null]]);
  });

  it('TIME_SAMPLING reads the rows of its range once', async () => {
    const cpu = test.store.session().container('cpu');
    const result = await cpu.query(
      `SELECT TIME_SAMPLING(usage, ${iso(at(1000) + 5000)}, ${iso(at(1600))}, 1, MINUTE)`);
    const rows = rowsOf(result);
    assert.equal(rows.length, 100);
    assert.deepEqual(rows[0], [at(1000) + 5000, 0.5, 'h']);
    assert.deepEqual(rows[1], [at(1006) + 5000, 6.5, 'h']);
    assert.ok(result.scannedRowCount <= 602, `${result.scannedRowCount} rows read`);
  });

  it('TIME_AVG and MAX_ROWS read columns without WHERE and rows with it, alike', async () => {
    const cpu = test.store.session().container('cpu');
    const explain = await cpu.query('EXPLAIN ANALYZE SELECT TIME_AVG(usage)');
    const input = explain.kind === 'explain'
      ? explain.rows.find((row) => row[2] === 'AGGREGATION_INPUT')?.[4] : undefined;
    assert.equal(input, 'COLUMN_BATCHES');
    const columnar = await cpu.query('SELECT TIME_AVG(usage)');
    const rowwise = await cpu.query('SELECT TIME_AVG(usage) WHERE usage = usage');
    assert.ok(columnar.kind === 'aggregate' && rowwise.kind === 'aggregate');
    assert.ok(Math.abs((columnar.value as number) - 49.5) < 0.01, String(columnar.value));
    assert.equal(columnar.value, rowwise.value);
    const max = rowsOf(await cpu.query('SELECT MAX_ROWS(usage) LIMIT 3'));
    assert.deepEqual(max, [[at(99), 99, null], [at(199), 99, 'h'], [at(299), 99, 'h']]);
    const maxWhere = rowsOf(await cpu.query('SELECT MAX_ROWS(usage) WHERE usage >= 0'));
    const all = rowsOf(await cpu.query('SELECT MAX_ROWS(usage)'));
    assert.equal(all.length, ROW_COUNT / 100);
    assert.deepEqual(all, maxWhere);
  });

  it('runs every example of docs/tql.md\'s time-series section as written', async () => {
    const docs = readFileSync(fileURLToPath(new URL('../../../docs/tql.md', import.meta.url)),
      'utf8');
    const section = docs.slice(docs.indexOf('## Time-series functions'));
    const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
    const examples = block.split('\n').filter((line) => line.startsWith('SELECT'));
    assert.equal(examples.length, 10);
    const cpu = test.store.session().container('cpu');
    for (const tql of examples) {
      const result = await cpu.query(tql);
      assert.ok(result.kind === 'rows' || result.kind === 'aggregate', tql);
    }
  });

  it('sees the session\'s own uncommitted rows', async () => {
    const session = test.store.session();
    const cpu = session.container('cpu');
    await cpu.setAutoCommit(false);
    try {
      await cpu.put([at(ROW_COUNT) + 5000, 1000, 'new']);
      assert.deepEqual(rowsOf(await cpu.query('SELECT MAX_ROWS(usage)')),
        [[at(ROW_COUNT) + 5000, 1000, 'new']]);
      assert.deepEqual(rowsOf(await cpu.query(`SELECT TIME_PREV(*, ${iso(at(ROW_COUNT + 100))})`)),
        [[at(ROW_COUNT) + 5000, 1000, 'new']]);
      const other = test.store.session().container('cpu');
      const last = `SELECT TIME_PREV(*, ${iso(at(ROW_COUNT + 100))})`;
      assert.deepEqual(rowsOf(await other.query(last)),
        [[at(ROW_COUNT - 1), 99, 'h']]);
    } finally {
      await cpu.abort();
      session.close();
    }
  });
});
