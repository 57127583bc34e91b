// GridDB's sampling call (TimeSeries.query(start, end, columnSet, InterpolationMode, interval,
// unit)) through the engine: ContainerHandle.query with `sampling`, as the node runs the client's
// querySampling (lib/query/tql/time-series-sampling-api.ts): several columns interpolated at once,
// the others the earlier row's, the row after end as a neighbour, EMPTY's empty values, the rules
// of GridDB's TimeSeries::sample that differ from TQL's TIME_SAMPLING, and GridDB's refusals.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { SamplingApi } from '../../../lib/query/tql/time-series-sampling-api.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { openTestStore, storageError, type TestStore } from '../engine/engine-test-helpers.ts';

const T0 = Date.UTC(2026, 0, 1);
const s = (seconds: number) => T0 + seconds * 1000;
const iso = (ms: number) => `TIMESTAMP('${new Date(ms).toISOString()}')`;
const sampling = (start: number, end: number, interval: number) =>
  `SELECT TIME_SAMPLING(*, ${iso(s(start))}, ${iso(s(end))}, ${interval}, SECOND)`;

// Columns: ts, v DOUBLE, i INTEGER, n STRING, l LONG, b BOOL, t TIMESTAMP.
const ROWS: Row[] = [
  [s(0), 4, 40, 'a', 100n, true, s(1)],
  [s(10), 3, 30, 'b', 200n, false, s(2)],
  [s(20), null, 21, 'c', 300n, true, s(3)],
  [s(40), 1, 10, 'd', 500n, null, s(4)],
];
const [R0, R10, R20, R40] = ROWS as [Row, Row, Row, Row];
const V = 1;
const I = 2;
const N = 3;
const L = 4;

function rowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

/** `row` at `seconds`, with the given fields replaced. */
function at(seconds: number, row: Row, fields: Record<number, unknown> = {}): Row {
  const made = row.slice();
  made[0] = s(seconds);
  for (const [index, value] of Object.entries(fields)) made[Number(index)] = value as Row[number];
  return made;
}

describe('the sampling call (GridDB TimeSeries.query with columns and a mode)', () => {
  let test: TestStore;
  const run = async (tql: string, api: SamplingApi, name = 'meter') =>
    rowsOf(await test.store.session().container(name).query(tql, { sampling: api }));

  before(async () => {
    test = await openTestStore();
    await test.store.createContainer({
      name: 'meter', type: 'TIME_SERIES',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' },
        { name: 'i', type: 'INTEGER' }, { name: 'n', type: 'STRING' },
        { name: 'l', type: 'LONG' }, { name: 'b', type: 'BOOL' },
        { name: 't', type: 'TIMESTAMP' },
      ],
    });
    await test.store.session().container('meter').multiPut(ROWS);
    await test.store.createContainer({
      name: 'tenths', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
    });
    await test.store.session().container('tenths').multiPut([[s(0), 0.1], [s(10), 0.2]]);
  });

  after(async () => {
    await test.store.close();
  });

  it('LINEAR_OR_PREVIOUS interpolates every named column in one pass', async () => {
    const api: SamplingApi = { mode: 'LINEAR_OR_PREVIOUS', columnIndexes: [V, I, L] };
    assert.deepEqual(await run(sampling(0, 40, 5), api), [
      R0, at(5, R0, { [V]: 3.5, [I]: 35, [L]: 150n }), R10,
      // A NULL neighbour gives NULL; integers are truncated toward zero.
      at(15, R10, { [V]: null, [I]: 25, [L]: 250n }), R20,
      at(25, R20, { [V]: null, [I]: 18, [L]: 350n }),
      at(30, R20, { [V]: null, [I]: 15, [L]: 400n }),
      at(35, R20, { [V]: null, [I]: 12, [L]: 450n }), R40,
    ]);
  });

  it('reads the row after end as the later neighbour when columns are named', async () => {
    const api: SamplingApi = { mode: 'LINEAR_OR_PREVIOUS', columnIndexes: [I] };
    assert.deepEqual(await run(sampling(0, 30, 15), api),
      [R0, at(15, R10, { [I]: 25 }), at(30, R20, { [I]: 15 })]);
  });

  it('with no column named, points after the last row take it, but not a last point at end',
    async () => {
      const api: SamplingApi = { mode: 'LINEAR_OR_PREVIOUS', columnIndexes: [] };
      // GridDB's TimeSeries::sample fills the points after the last row only while one is before
      // end (`targetT < endT`): the point 30 is end itself and is left out.
      assert.deepEqual(await run(sampling(0, 30, 15), api), [R0, at(15, R10)]);
      assert.deepEqual(await run(sampling(0, 35, 15), api), [R0, at(15, R10), at(30, R20)]);
      assert.deepEqual(await run(sampling(30, 60, 10), api),
        [at(30, R20), R40, at(50, R40), at(60, R40)]);
    });

  it('takes the row before start as a neighbour, and gives nothing without rows in range',
    async () => {
      const api: SamplingApi = { mode: 'LINEAR_OR_PREVIOUS', columnIndexes: [V] };
      assert.deepEqual(await run(sampling(5, 10, 5), api), [at(5, R0, { [V]: 3.5 }), R10]);
      // TQL's TIME_SAMPLING gives the points 25, 30, 35 here; GridDB's call reads rows in range.
      assert.deepEqual(await run(sampling(25, 35, 5), { ...api, columnIndexes: [I] }), []);
      assert.deepEqual(await run(sampling(-20, -5, 5), api), []);
    });

  it('rounds an interpolated DOUBLE to single precision, as GridDB\'s server does', async () => {
    const api: SamplingApi = { mode: 'LINEAR_OR_PREVIOUS', columnIndexes: [V] };
    const rows = await run(sampling(0, 10, 5), api, 'tenths');
    assert.deepEqual(rows, [[s(0), 0.1], [s(5), Math.fround(0.1 + 0.5 * (0.2 - 0.1))],
      [s(10), 0.2]]);
    assert.notEqual(rows[1]![1], 0.1 + 0.5 * (0.2 - 0.1));
  });

  it('EMPTY gives every point a row: empty values where there is none', async () => {
    const api: SamplingApi = { mode: 'EMPTY', columnIndexes: [] };
    const empty = (seconds: number): Row => [s(seconds), 0, 0, '', 0n, false, 0];
    assert.deepEqual(await run(sampling(-10, 50, 10), api),
      [empty(-10), R0, R10, R20, empty(30), R40, empty(50)]);
    assert.deepEqual(await run(sampling(41, 44, 1), api),
      [empty(41), empty(42), empty(43), empty(44)]);
    assert.deepEqual(await run(sampling(5, 1, 1), api), [], 'end before start: no point');
  });

  it('refuses what GridDB refuses', async () => {
    const linear = (columnIndexes: number[]): SamplingApi =>
      ({ mode: 'LINEAR_OR_PREVIOUS', columnIndexes });
    await assert.rejects(run(sampling(0, 40, 5), { mode: 'EMPTY', columnIndexes: [V] }),
      storageError('TQL_SEMANTIC', /EMPTY interpolation names no columns/));
    await assert.rejects(run(sampling(0, 40, 5), linear([V, N])),
      storageError('TQL_SEMANTIC', /cannot interpolate column n \(STRING\)/));
    await assert.rejects(run(sampling(0, 40, 5), linear([0])),
      storageError('TQL_SEMANTIC', /cannot interpolate column ts/));
    await assert.rejects(run(sampling(0, 40, 5), linear([7])),
      storageError('TQL_SEMANTIC', /column 7 does not exist/));
    await assert.rejects(run(`${sampling(0, 40, 5)} WHERE i > 0`, linear([V])),
      storageError('TQL_SEMANTIC', /alone/));
    await assert.rejects(run(`SELECT TIME_SAMPLING(v, ${iso(s(0))}, ${iso(s(9))}, 1, SECOND)`,
      linear([V])), storageError('TQL_SEMANTIC', /alone/));
    await assert.rejects(run(`${sampling(0, 40, 0)}`, linear([V])),
      storageError('TQL_SEMANTIC', /positive/));
  });
});
