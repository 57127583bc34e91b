// TQL through the engine: ContainerHandle.query and queryMore on a store, with transactions,
// key-range planning, partial execution and keyless collections.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { openTestStore, storageError, type TestStore } from '../engine/engine-test-helpers.ts';

const SECOND_MS = 1000;
const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function rowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

describe('TQL through the engine', () => {
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
    for (let i = 0; i < 50_000; i++)
      rows.push([T0 + i * SECOND_MS, (i % 100) / 10, i % 7 === 0 ? null : `h${i % 5}`]);
    await test.store.session().container('cpu').multiPut(rows);
    await test.store.createContainer({
      name: 'log',
      type: 'COLLECTION',
      rowKey: false,
      columns: [
        { name: 'n', type: 'INTEGER' },
        { name: 'text', type: 'STRING' },
      ],
    });
    const log: Row[] = Array.from({ length: 3000 }, (_, n) => [n, `line ${n}`]);
    await test.store.session().container('log').multiPut(log);
  });

  after(async () => {
    await test.store.close();
  });

  it('reads only the rows of a time range of a time series', async () => {
    const cpu = test.store.session().container('cpu');
    const from = T0 + 20_000 * SECOND_MS;
    const result = await cpu.query(
      `SELECT * WHERE ts >= TIMESTAMP('${iso(from)}') AND ` +
        `ts < TIMESTAMP('${iso(from + 600 * SECOND_MS)}') AND usage > 5`,
    );
    const rows = rowsOf(result);
    assert.equal(result.scannedRowCount, 600);
    assert.deepEqual(
      rows.map((row) => row[0]),
      Array.from({ length: 600 }, (_, i) => from + i * SECOND_MS).filter(
        (_, i) => ((20_000 + i) % 100) / 10 > 5,
      ),
    );
    assert.deepEqual(result.kind === 'rows' && result.columns.map((column) => column.name), [
      'ts',
      'usage',
      'host',
    ]);
  });

  it('stops at LIMIT, also scanning backwards for ORDER BY ts DESC', async () => {
    const cpu = test.store.session().container('cpu');
    const latest = await cpu.query('SELECT * ORDER BY ts DESC LIMIT 3');
    assert.deepEqual(
      rowsOf(latest).map((row) => row[0]),
      [49_999, 49_998, 49_997].map((i) => T0 + i * SECOND_MS),
    );
    assert.equal(latest.scannedRowCount, 3);
    const count = await cpu.query("SELECT COUNT(*) WHERE ts < TIMESTAMP('2026-01-01T00:01:00Z')");
    assert.deepEqual(count.kind === 'aggregate' && count.value, 60n);
    const max = await cpu.query('SELECT MAX(usage) WHERE host IS NULL');
    assert.deepEqual(max.kind === 'aggregate' && [max.value, max.type], [9.9, { type: 'DOUBLE' }]);
  });

  it("sees the session's own uncommitted changes, and only its own", async () => {
    await test.store.createContainer({
      name: 'meters',
      type: 'COLLECTION',
      rowKey: true,
      columns: [
        { name: 'id', type: 'STRING' },
        { name: 'kwh', type: 'LONG' },
      ],
    });
    const writer = test.store.session().container('meters');
    await writer.multiPut([
      ['a', 1n],
      ['b', 2n],
      ['c', 3n],
    ]);
    await writer.setAutoCommit(false);
    await writer.put(['b', 20n]);
    await writer.put(['d', 4n]);
    await writer.remove('a');
    const reader = test.store.session().container('meters');
    const sum = async (handle: typeof writer) => {
      const result = await handle.query('SELECT SUM(kwh)');
      return result.kind === 'aggregate' ? result.value : undefined;
    };
    assert.deepEqual(rowsOf(await writer.query('SELECT * ORDER BY kwh DESC')), [
      ['b', 20n],
      ['d', 4n],
      ['c', 3n],
    ]);
    assert.deepEqual(rowsOf(await writer.query("SELECT * WHERE id = 'a'")), []);
    assert.equal(await sum(writer), 27n);
    const count = await writer.query('SELECT COUNT(*)');
    assert.equal(count.kind === 'aggregate' && count.value, 3n);
    assert.equal(await sum(reader), 6n);
    assert.deepEqual(rowsOf(await reader.query("SELECT * WHERE id IN ('a', 'd')")), [['a', 1n]]);
    await writer.commit();
    assert.equal(await sum(reader), 27n);
  });

  it('sees its own appends to a keyless collection', async () => {
    const log = test.store.session().container('log');
    await log.setAutoCommit(false);
    await log.put([-1, 'mine']);
    const mine = rowsOf(await log.query("SELECT * WHERE text LIKE 'mine' OR n >= 2998"));
    assert.deepEqual(mine, [
      [2998, 'line 2998'],
      [2999, 'line 2999'],
      [-1, 'mine'],
    ]);
    const other = rowsOf(
      await test.store.session().container('log').query("SELECT * WHERE text = 'mine'"),
    );
    assert.deepEqual(other, []);
    await log.abort();
  });

  it('partial execution pages a keyless collection by rowId', async () => {
    const log = test.store.session().container('log');
    const seen: Row[] = [];
    let result = await log.query('SELECT * WHERE n % 3 = 0', {
      fetchSizeRows: 128,
      partialExecution: true,
    });
    seen.push(...rowsOf(result));
    let answers = 1;
    while (result.kind === 'rows' && result.cursor !== undefined) {
      result = await log.queryMore(result.cursor, { fetchSizeRows: 128 });
      // Each answer reads about as far as its 128 rows need, not the whole collection.
      assert.ok(result.scannedRowCount <= 3 * 128 + 3);
      seen.push(...rowsOf(result));
      answers++;
    }
    assert.deepEqual(
      seen.map((row) => row[0]),
      Array.from({ length: 1000 }, (_, i) => 3 * i),
    );
    assert.equal(answers, 8);
  });

  it('partial execution of a time series goes on from its last row, seeing later commits', async () => {
    await test.store.createContainer({
      name: 'temp',
      type: 'TIME_SERIES',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 'c', type: 'DOUBLE' },
      ],
    });
    const temp = test.store.session().container('temp');
    await temp.multiPut(Array.from({ length: 10 }, (_, i) => [T0 + i, i]));
    const first = await temp.query('SELECT * ORDER BY ts DESC', {
      fetchSizeRows: 4,
      partialExecution: true,
    });
    assert.deepEqual(
      rowsOf(first).map((row) => row[1]),
      [9, 8, 7, 6],
    );
    assert.equal(first.scannedRowCount, 4);
    assert.ok(first.kind === 'rows' && first.cursor !== undefined);
    await temp.put([T0 + 5, 50]); // below where the query stopped: seen
    await temp.put([T0 + 100, 100]); // above: not seen
    const second = await temp.queryMore(first.cursor, { fetchSizeRows: 4 });
    assert.deepEqual(
      rowsOf(second).map((row) => row[1]),
      [50, 4, 3, 2],
    );
    await test.store.addColumn('temp', {
      name: 'unit',
      type: 'STRING',
      array: false,
      notNull: false,
    });
    assert.ok(second.kind === 'rows' && second.cursor !== undefined);
    await assert.rejects(temp.queryMore(second.cursor), storageError('SCHEMA_CHANGED'));
  });

  it('partial execution needs auto-commit mode', async () => {
    const cpu = test.store.session().container('cpu');
    await cpu.setAutoCommit(false);
    await assert.rejects(
      cpu.query('SELECT *', { partialExecution: true, fetchSizeRows: 10 }),
      storageError('NOT_SUPPORTED', /auto-commit/),
    );
    await cpu.setAutoCommit(true);
  });

  it('hands out a large computed result in fetches', async () => {
    const cpu = test.store.session().container('cpu');
    let result = await cpu.query("SELECT * WHERE host = 'h1' ORDER BY usage DESC, ts LIMIT 2500", {
      fetchSizeRows: 1000,
    });
    const sizes = [rowsOf(result).length];
    while (result.kind === 'rows' && result.cursor !== undefined) {
      result = await cpu.queryMore(result.cursor, { fetchSizeRows: 1000 });
      sizes.push(rowsOf(result).length);
    }
    assert.deepEqual(sizes, [1000, 1000, 500]);
  });

  it('queries composite keys', async () => {
    await test.store.createContainer({
      name: 'pairs',
      type: 'COLLECTION',
      rowKey: 2,
      columns: [
        { name: 'a', type: 'STRING' },
        { name: 'b', type: 'INTEGER' },
        { name: 'v', type: 'DOUBLE' },
      ],
    });
    const pairs = test.store.session().container('pairs');
    await pairs.multiPut([
      ['x', 2, 1.5],
      ['x', 1, 2.5],
      ['w', 9, null],
      ['y', 0, 0],
    ]);
    assert.deepEqual(rowsOf(await pairs.query('SELECT * ORDER BY a DESC, b DESC')), [
      ['y', 0, 0],
      ['x', 2, 1.5],
      ['x', 1, 2.5],
      ['w', 9, null],
    ]);
    assert.deepEqual(rowsOf(await pairs.query("SELECT * WHERE a = 'x' ORDER BY v DESC LIMIT 1")), [
      ['x', 1, 2.5],
    ]);
  });

  it('answers a bad query with a clear error and changes nothing', async () => {
    const cpu = test.store.session().container('cpu');
    const before = await cpu.count();
    await assert.rejects(
      cpu.query('SELECT * WHERE'),
      storageError('TQL_SYNTAX', /line 1, column 15/),
    );
    await assert.rejects(cpu.query("SELECT * WHERE host > 'a'"), storageError('TQL_SEMANTIC'));
    await assert.rejects(
      cpu.query('SELECT * WHERE cores = 1'),
      storageError('COLUMN_NOT_FOUND', /"cores"/),
    );
    await assert.rejects(
      cpu.query('SELECT TIME_WINDOW_AGG(usage, NOW(), NOW(), 1, HOUR)'),
      storageError('NOT_SUPPORTED', /not supported yet/),
    );
    await assert.rejects(
      cpu.query("SELECT * WHERE usage > 1 AND SUBSTRING(host, 0) = 'h'"),
      storageError('TQL_EVALUATION', /start of SUBSTRING/),
    );
    await assert.rejects(cpu.query(42 as unknown as string), storageError('TQL_SYNTAX'));
    await assert.rejects(
      test.store.session().container('nope').query('SELECT *'),
      storageError('CONTAINER_NOT_FOUND'),
    );
    await assert.rejects(cpu.queryMore({} as never), storageError('ROW_INVALID', /cursor/));
    const paged = await test.store
      .session()
      .container('log')
      .query('SELECT *', { fetchSizeRows: 10 });
    assert.ok(paged.kind === 'rows' && paged.cursor !== undefined);
    await assert.rejects(
      cpu.queryMore(paged.cursor),
      storageError('ROW_INVALID', /"log", not "cpu"/),
    );
    assert.equal(await cpu.count(), before);
  });

  it('queries the same rows after a restart', async () => {
    const before = rowsOf(
      await test.store.session().container('cpu').query('SELECT * WHERE usage = 9.9 LIMIT 5'),
    );
    await test.reopen();
    const afterRestart = rowsOf(
      await test.store.session().container('cpu').query('SELECT * WHERE usage = 9.9 LIMIT 5'),
    );
    assert.deepEqual(afterRestart, before);
    assert.equal(before.length, 5);
  });
});
