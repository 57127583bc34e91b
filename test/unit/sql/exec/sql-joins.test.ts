// Joins, subqueries and set operations through the executor: EXPLAIN names the join method the
// planner chose (by row counts and by the §5.9 hints), the hash join's build side is held in work
// memory and ends with LIMIT_EXCEEDED past the limit (the store still answering after), and the
// errors of these forms are GridDB's, with their place in the text; windows over a time frame.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const DEVICE_COUNT = 20;
const READING_COUNT = 400;

interface JoinEntry {
  readonly type: string;
  readonly detail: { readonly method?: string; readonly buildSide?: string; readonly lookup?: { readonly by: string } };
}

describe('sql joins', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE device (id INTEGER PRIMARY KEY, site STRING, rack INTEGER)');
    await db.update('CREATE TABLE reading (id INTEGER PRIMARY KEY, device INTEGER, value DOUBLE, note STRING)');
    await db.update('CREATE INDEX reading_device ON reading (device)');
    const devices = Array.from({ length: DEVICE_COUNT }, (_, i) => `(${i}, 's${i % 3}', ${i % 4})`).join(', ');
    await db.update(`INSERT INTO device VALUES ${devices}`);
    const readings = Array.from({ length: READING_COUNT }, (_, i) =>
      `(${i}, ${i % (DEVICE_COUNT + 5)}, ${i / 2}, '${'x'.repeat(i % 50)}')`).join(', ');
    await db.update(`INSERT INTO reading VALUES ${readings}`);
  });

  after(async () => {
    await db?.test.store.close();
  });

  async function joinOf(text: string): Promise<JoinEntry> {
    const rows = await db.rows(`EXPLAIN ${text}`);
    const entries = rows.map((row) => JSON.parse(row[0] as string) as JoinEntry);
    const join = entries.find((entry) => entry.type === 'JOIN');
    assert(join !== undefined, `no JOIN in ${JSON.stringify(entries)}`);
    return join;
  }

  it('EXPLAIN shows the join method chosen by row counts and hints', async () => {
    const equi = 'd.id, r.id FROM device AS d JOIN reading AS r ON r.device = d.id';
    // 20 devices against 400 readings: one lookup per device through reading's index pays.
    const chosen = await joinOf(`SELECT ${equi}`);
    assert.equal(chosen.detail.method, 'indexNestedLoop');
    assert.equal(chosen.detail.lookup?.by, 'reading_device');
    const hashed = await joinOf(`SELECT /*+ NoIndexJoin(device reading) */ ${equi}`);
    assert.deepEqual([hashed.detail.method, hashed.detail.buildSide], ['hash', 'left']);
    // Told reading is small, the planner no longer finds the lookups worth it.
    const counted = await joinOf(`SELECT /*+ TableRowCount(reading 10) */ ${equi}`);
    assert.deepEqual([counted.detail.method, counted.detail.buildSide], ['hash', 'right']);
    const byKey = await joinOf('SELECT /*+ IndexJoin(reading device) */ r.id FROM reading AS r JOIN device AS d ON d.id = r.device');
    assert.deepEqual([byKey.detail.method, byKey.detail.lookup?.by], ['indexNestedLoop', 'ROWKEY']);
    const loop = await joinOf('SELECT d.id FROM device AS d JOIN reading AS r ON r.value < d.rack');
    assert.equal(loop.detail.method, 'nestedLoop');
    // The same rows whichever method runs.
    const sorted = ' ORDER BY 1, 2';
    const answers = await Promise.all(['', '/*+ NoIndexJoin(device reading) */ ', '/*+ TableRowCount(reading 10) */ ']
      .map((hint) => db.rows(`SELECT ${hint}${equi}${sorted}`)));
    assert.equal(answers[0]!.length, 320);
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
  });

  it('holds the hash join build side in work memory and fails clearly past the limit', async () => {
    const query = 'SELECT /*+ NoIndexJoin(device reading) TableRowCount(device 100000) */ COUNT(*) ' +
      'FROM device AS d JOIN reading AS r ON r.device = d.id';
    assert.equal((await joinOf(query)).detail.buildSide, 'right');
    assert.deepEqual(await db.rows(query), [[320n]]);
    const small = { workMemoryLimitBytes: 16 * 1024 };
    await assert.rejects(db.rows(query, [], small), (error: unknown) =>
      isStorageError(error, 'LIMIT_EXCEEDED') && /join \(hash build side\)/.test(error.message) &&
      /workMemoryLimit/.test(error.message));
    // The build side of 20 devices fits where 400 readings did not.
    const devicesBuilt = query.replace('TableRowCount(device 100000)', 'TableRowCount(reading 100000)');
    assert.equal((await joinOf(devicesBuilt)).detail.buildSide, 'left');
    assert.deepEqual(await db.rows(devicesBuilt, [], small), [[320n]]);
  });

  it('holds the nested loop join right side in work memory too', async () => {
    await assert.rejects(db.rows('SELECT COUNT(*) FROM device AS d JOIN reading AS r ON r.value < d.rack', [],
      { workMemoryLimitBytes: 16 * 1024 }), (error: unknown) => isStorageError(error, 'LIMIT_EXCEEDED'));
  });

  it('gives GridDB\'s errors for these forms, at their place', async () => {
    const cases: [string, string, RegExp, number | undefined][] = [
      ['SELECT id FROM device JOIN reading ON device.id = reading.device', 'SQL_COMPILE_SYNTAX_ERROR', /id is ambiguous/, 8],
      ['SELECT (SELECT id FROM device)', 'SQL_PROC_MULTIPLE_TUPLE', /More than one tuples selected in a subquery/, 8],
      ['SELECT id FROM device UNION SELECT id, site FROM device', 'SQL_COMPILE_SYNTAX_ERROR', /gives 1 columns, the right 2/, 23],
      ['SELECT site FROM device UNION SELECT id FROM device', 'TYPE_MISMATCH', /cannot be mixed/, 25],
      ['SELECT 1 FROM device AS d JOIN reading AS r ON r.device IN (SELECT 1)', 'NOT_SUPPORTED', /subquery in ON/, 48],
      ['SELECT 1 FROM device WHERE id IN (SELECT id, site FROM device)', 'SQL_COMPILE_SYNTAX_ERROR', /one column/, 28],
      ['SELECT 1 FROM device WHERE site IN (SELECT id FROM device)', 'TYPE_MISMATCH', /cannot be compared/, 28],
      ['SELECT 1 FROM device, device', 'SQL_COMPILE_SYNTAX_ERROR', /appears twice in FROM/, 23],
      ['SELECT nothing FROM device JOIN reading ON TRUE', 'COLUMN_NOT_FOUND', /no column nothing/, 8],
      ['SELECT 1 FROM device ORDER BY 1 UNION SELECT 2', 'SQL_COMPILE_SYNTAX_ERROR', /after the last SELECT/, 33],
      ['SELECT id FROM device UNION SELECT id FROM device ORDER BY site', 'SQL_COMPILE_SYNTAX_ERROR',
        /ORDER BY of a set operation/, 60],
    ];
    for (const [text, code, message, column] of cases) {
      await assert.rejects(db.rows(text), (error: unknown) => {
        assert(isStorageError(error), String(error));
        assert.equal(error.code, code, `${text}: ${error.message}`);
        assert.match(error.message, message, text);
        if (column !== undefined) assert.match(error.message, new RegExp(`column ${column}:`), `${text}: ${error.message}`);
        return true;
      });
    }
  });

  it('runs a time-frame window: (n, unit) PRECEDING over a TIMESTAMP key', async () => {
    await db.update('CREATE TABLE series (ts TIMESTAMP PRIMARY KEY, v DOUBLE)');
    // One value a minute for 30 minutes: v = minute.
    const base = Date.UTC(2024, 0, 1);
    const values = Array.from({ length: 30 }, (_, m) => `(TIMESTAMP('${new Date(base + m * 60_000).toISOString()}'), ${m})`);
    await db.update(`INSERT INTO series VALUES ${values.join(', ')}`);
    const rows = await db.rows('SELECT v, AVG(v) OVER (ORDER BY ts RANGE BETWEEN (10, MINUTE) PRECEDING AND CURRENT ROW) ' +
      'FROM series ORDER BY ts');
    // Minute m averages minutes max(0, m - 10) … m.
    assert.deepEqual(rows.map((row) => row[1]), Array.from({ length: 30 }, (_, m) => (Math.max(0, m - 10) + m) / 2));
    const rowNumbers = await db.rows('SELECT ROW_NUMBER() OVER (ORDER BY ts DESC) FROM series WHERE v < 3 ORDER BY 1');
    assert.deepEqual(rowNumbers, [[1n], [2n], [3n]]);
  });

  it('refuses the window forms GridDB refuses, at their place', async () => {
    const cases: [string, string, RegExp, number][] = [
      ['SELECT ROW_NUMBER() OVER (), SUM(rack) OVER () FROM device', 'SQL_COMPILE_SYNTAX_ERROR', /at most one window/, 30],
      ['SELECT ROW_NUMBER() OVER (ORDER BY id ROWS 1 PRECEDING) FROM device', 'SQL_COMPILE_SYNTAX_ERROR', /takes no frame/, 8],
      ['SELECT id FROM device WHERE ROW_NUMBER() OVER () > 1', 'SQL_COMPILE_SYNTAX_ERROR', /only in the select list/, 29],
      ['SELECT GROUP_CONCAT(site) OVER () FROM device', 'SQL_COMPILE_SYNTAX_ERROR', /cannot be a window function/, 8],
      ['SELECT COUNT(DISTINCT rack) OVER () FROM device', 'SQL_COMPILE_SYNTAX_ERROR', /no DISTINCT/, 8],
      ['SELECT SUM(rack) OVER (ORDER BY id, rack RANGE 1 PRECEDING) FROM device', 'SQL_COMPILE_SYNTAX_ERROR',
        /exactly one ORDER BY key/, 8],
      ['SELECT SUM(rack) OVER (ORDER BY id RANGE (1, HOUR) PRECEDING) FROM device', 'SQL_COMPILE_SYNTAX_ERROR',
        /needs a TIMESTAMP/, 8],
    ];
    for (const [text, code, message, column] of cases) {
      await assert.rejects(db.rows(text), (error: unknown) => {
        assert(isStorageError(error), String(error));
        assert.equal(error.code, code, `${text}: ${error.message}`);
        assert.match(error.message, message, text);
        assert.match(error.message, new RegExp(`column ${column}:`), `${text}: ${error.message}`);
        return true;
      });
    }
  });

  it('runs a correlated subquery once per distinct outer value', async () => {
    const rows = await db.rows('SELECT d.id, (SELECT COUNT(*) FROM reading AS r WHERE r.device = d.id) FROM device AS d ' +
      'WHERE d.id < 3 ORDER BY 1');
    assert.deepEqual(rows, [[0, 16n], [1, 16n], [2, 16n]]);
    const sites = await db.rows('SELECT site FROM device AS d WHERE EXISTS (SELECT 1 FROM device AS e ' +
      'WHERE e.site = d.site AND e.rack = 3) GROUP BY site ORDER BY site');
    assert.deepEqual(sites, [['s0'], ['s1'], ['s2']]);
  });
});
