// GridDB's sampling call against the reference: random time series (gaps between keys, NULLs,
// duplicated values) of DOUBLE, FLOAT, INTEGER, LONG, STRING and BOOL columns, sampled through the
// engine call the client's querySampling uses (ContainerHandle.query with `sampling`) with a random
// range, interval, mode and set of columns (wrong ones included), must answer exactly as
// refSamplingCall (tql-reference-time-series.ts) working point by point over every row.
//
//   TQL_MODEL_RUNS=2000 node --import tsx --test test/property/tql-model-sampling.test.ts

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError } from '../../lib/base/errors.ts';
import type { SamplingApi } from '../../lib/query/tql/time-series-sampling-api.ts';
import type { ColumnType, Row } from '../../lib/schema/column-type.ts';
import { openTestStore, type TestStore } from '../unit/engine/engine-test-helpers.ts';
import { refSamplingCall } from './tql-reference-time-series.ts';

const RUN_COUNT = Number(process.env.TQL_MODEL_RUNS ?? 300);
const T0 = Date.UTC(2026, 0, 1);
const VALUE_TYPES: readonly ColumnType[] = ['DOUBLE', 'FLOAT', 'INTEGER', 'LONG', 'STRING', 'BOOL'];

/** A few values per type, so that neighbours often hold the same one. */
const valueArbitrary = (type: ColumnType): fc.Arbitrary<Row[number]> => {
  const some = ((): fc.Arbitrary<Row[number]> => {
    switch (type) {
      case 'DOUBLE': return fc.constantFrom(0, -1.5, 0.1, 0.2, 7, 1e6 + 0.25);
      case 'FLOAT': return fc.constantFrom(0, -1.5, 0.5, 3, 1024.25);
      case 'INTEGER': return fc.integer({ min: -50, max: 50 });
      case 'LONG': return fc.bigInt({ min: -1000n, max: 1000n });
      case 'STRING': return fc.constantFrom('a', 'b', '');
      default: return fc.boolean();
    }
  })();
  return fc.option(some, { nil: null, freq: 4 });
};

const caseArbitrary = fc.array(fc.constantFrom(...VALUE_TYPES), { minLength: 1, maxLength: 4 })
  .chain((types) => fc.record({
    types: fc.constant(['TIMESTAMP', ...types] as ColumnType[]),
    // Keys: a subset of 0..60 s in ms steps of 250, so gaps of every size.
    rows: fc.uniqueArray(fc.integer({ min: 0, max: 240 }), { maxLength: 30 }).chain((ticks) =>
      fc.tuple(...ticks.sort((a, b) => a - b).map((tick) =>
        fc.tuple(...types.map(valueArbitrary)).map((values) => [T0 + tick * 250, ...values]))))
      .map((rows) => rows as Row[]),
    mode: fc.constantFrom('LINEAR_OR_PREVIOUS', 'LINEAR_OR_PREVIOUS', 'EMPTY' as const),
    columns: fc.uniqueArray(fc.integer({ min: 0, max: types.length }), { maxLength: 3 }),
    // The columns are named in most cases only when they can be interpolated.
    numericOnly: fc.boolean(),
    start: fc.integer({ min: -20, max: 260 }),
    span: fc.integer({ min: -10, max: 240 }),
    interval: fc.integer({ min: 1, max: 40 }),
    unit: fc.constantFrom('MILLISECOND', 'SECOND' as const),
    // End on a point: GridDB's rules differ for a last point at end itself.
    endOnPoint: fc.boolean(),
  }, { noNullPrototype: true }));

describe('the sampling call against the reference', () => {
  let test: TestStore;

  before(async () => {
    test = await openTestStore();
  });

  after(async () => {
    await test.store.close();
  });

  it(`answers as refSamplingCall (${RUN_COUNT} cases)`, async () => {
    let run = 0;
    let rowCount = 0;
    await fc.assert(fc.asyncProperty(caseArbitrary, async (c) => {
      const name = `s${run++}`;
      await test.store.createContainer({
        name, type: 'TIME_SERIES',
        columns: c.types.map((type, i) => ({ name: i === 0 ? 'ts' : `c${i}`, type })),
      });
      const handle = test.store.session().container(name);
      if (c.rows.length > 0) await handle.multiPut(c.rows);
      const numeric = ['DOUBLE', 'FLOAT', 'INTEGER', 'LONG'];
      const columns = c.mode === 'EMPTY' && c.numericOnly ? []
        : c.numericOnly ? c.columns.filter((i) => i > 0 && numeric.includes(c.types[i]!))
          : c.columns;
      // Times in 250 ms ticks, an interval in ms (MILLISECOND: ×25 so points fall on keys).
      const start = T0 + c.start * 250;
      const intervalMs = c.unit === 'SECOND' ? c.interval * 1000 : c.interval * 25;
      const end = start + (c.endOnPoint ? (Math.abs(c.span) % 13) * intervalMs : c.span * 250);
      const interval = c.unit === 'SECOND' ? c.interval : c.interval * 25;
      const tql = `SELECT TIME_SAMPLING(*, TIMESTAMP('${new Date(start).toISOString()}'), ` +
        `TIMESTAMP('${new Date(end).toISOString()}'), ${interval}, ${c.unit})`;
      const api: SamplingApi = { mode: c.mode, columnIndexes: columns };
      const expected = refSamplingCall({ mode: c.mode, columns, start: BigInt(start),
        end: BigInt(end), intervalMs: BigInt(intervalMs) }, c.rows, c.types);
      let actual: Row[] | string;
      try {
        const result = await handle.query(tql, { sampling: api });
        assert.equal(result.kind, 'rows');
        actual = result.kind === 'rows' ? result.rows : [];
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        actual = error.code;
      }
      const context = `${tql} ${JSON.stringify({ ...api, types: c.types })}`;
      if (expected.kind === 'error') {
        assert.equal(actual, expected.code, context);
      } else {
        assert.ok(expected.kind === 'rows');
        assert.deepStrictEqual(actual, expected.rows, context);
        rowCount += expected.rows.length;
      }
    }), { numRuns: RUN_COUNT });
    // The cases must sample something, not only refuse.
    assert.ok(rowCount > RUN_COUNT, `${rowCount} sampled rows in ${RUN_COUNT} cases`);
  });
});
