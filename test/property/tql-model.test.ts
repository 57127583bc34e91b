// TQL against a reference: fast-check makes random schemas, rows and queries; each query runs
// through the engine (ContainerHandle.query, with the planner's key ranges, paging, partial
// execution and a session's uncommitted changes) and must answer exactly as the reference
// (tql-reference.ts) evaluating the same query naively over every row. Doubles of AVG, VARIANCE and
// STDDEV are compared within a relative 1e-9 (the engine divides an exact sum and uses Welford).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError } from '../../lib/base/errors.ts';
import type { TqlResult } from '../../lib/query/tql/execute.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ContainerHandle } from '../../lib/engine/session.ts';
import { openTestStore, type TestStore } from '../unit/engine/engine-test-helpers.ts';
import {
  queryArbitrary,
  rowArbitrary,
  rowsArbitrary,
  schemaArbitrary,
  type ModelQuery,
  type ModelSchema,
} from './tql-model-generators.ts';
import { refAnswer, refCompare, refValue, type Kind, type RefAnswer } from './tql-reference.ts';

const RUN_COUNT = Number(process.env.TQL_MODEL_RUNS ?? 300);

interface ModelCase {
  schema: ModelSchema;
  rows: Row[];
  /** Changes of an open transaction, whose session runs the queries. */
  transaction: { puts: Row[]; removeCount: number } | undefined;
  queries: ModelQuery[];
}

const caseArbitrary = (schemas: fc.Arbitrary<ModelSchema>): fc.Arbitrary<ModelCase> =>
  schemas.chain((schema) =>
  fc.record({
    schema: fc.constant(schema),
    rows: rowsArbitrary(schema),
    transaction: fc.option(
      fc.record({
        puts: fc.array(rowArbitrary(schema), { maxLength: 8 }),
        removeCount: fc.integer({ min: 0, max: 4 }),
      }),
      { nil: undefined, freq: 3 },
    ),
    queries: fc.array(queryArbitrary(schema), { minLength: 1, maxLength: 6 }),
  }),
);

function keyOf(schema: ModelSchema, row: Row): Row {
  return row.slice(0, schema.keyColumnCount);
}

function compareRowKeys(a: Row, b: Row): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string | number | bigint;
    const y = b[i] as string | number | bigint;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The rows a session sees, in row-key order (keyless: committed rows, then its own appends). */
function visibleRows(schema: ModelSchema, committed: Row[], puts: Row[], removed: Row[]): Row[] {
  if (schema.keyColumnCount === 0) return [...committed, ...puts];
  const byKey = new Map<string, Row>();
  const id = (row: Row) =>
    JSON.stringify(keyOf(schema, row), (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
  for (const row of committed) byKey.set(id(row), row);
  for (const key of removed) byKey.delete(id(key));
  for (const row of puts) byKey.set(id(row), row);
  return [...byKey.values()].sort((a, b) => compareRowKeys(keyOf(schema, a), keyOf(schema, b)));
}

/** Partial execution needs scan order = result order: no ORDER BY, or the single key first. */
function streamed(schema: ModelSchema, query: ModelQuery): boolean {
  const orderBy = query.ref.orderBy;
  if (query.ref.aggregate !== undefined || query.ref.timeSeries !== undefined) return false;
  return orderBy.length === 0 || (schema.keyColumnCount === 1 && orderBy[0]!.index === 0);
}

async function answer(
  handle: ContainerHandle,
  query: ModelQuery,
  partial: boolean,
): Promise<TqlResult | StorageError> {
  const options = { fetchSizeRows: query.fetchSizeRows, partialExecution: partial };
  try {
    let result = await handle.query(query.text, options);
    if (result.kind !== 'rows') return result;
    const rows = [...result.rows];
    while (result.kind === 'rows' && result.cursor !== undefined) {
      result = await handle.queryMore(result.cursor, { fetchSizeRows: query.fetchSizeRows });
      if (result.kind === 'rows') rows.push(...result.rows);
    }
    return { ...result, rows, cursor: undefined } as TqlResult;
  } catch (error) {
    if (error instanceof StorageError) return error;
    throw error;
  }
}

function close(a: number, b: number): boolean {
  if (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function checkAnswer(
  actual: TqlResult | StorageError,
  expected: RefAnswer,
  query: ModelQuery,
  kinds: Kind[],
): void {
  const context = query.text;
  if (expected.kind === 'error') {
    assert.ok(actual instanceof StorageError, `${context}: expected ${expected.code}`);
    assert.equal(actual.code, expected.code, context);
    return;
  }
  if (actual instanceof StorageError) assert.fail(`${context}: ${actual.code} ${actual.message}`);
  if (expected.kind === 'rows') {
    assert.equal(actual.kind, 'rows', context);
    assert.deepStrictEqual(actual.kind === 'rows' ? actual.rows : [], expected.rows, context);
    return;
  }
  assert.equal(actual.kind, 'aggregate', context);
  if (actual.kind !== 'aggregate') return;
  const fn = query.ref.aggregate?.fn ?? query.ref.timeSeries!.fn;
  if (expected.value === null || actual.value === null) {
    assert.equal(actual.value, expected.value, context);
    return;
  }
  if (fn === 'AVG' || fn === 'VARIANCE' || fn === 'STDDEV' || fn === 'TIME_AVG') {
    const a = actual.value as number;
    const e = expected.value as number;
    const bothOff = fn !== 'AVG' && fn !== 'TIME_AVG' && !Number.isFinite(a) && !Number.isFinite(e);
    assert.ok(bothOff || close(a, e), `${context}: ${a} ≠ ${e}`);
    return;
  }
  if (fn === 'MIN' || fn === 'MAX') {
    const kind = kinds[query.ref.aggregate!.index!]!;
    assert.equal(
      refCompare(refValue(actual.value, kind), refValue(expected.value, kind)),
      0,
      `${context}: ${actual.value} ≠ ${expected.value}`,
    );
    return;
  }
  assert.ok(
    Object.is(actual.value, expected.value) || actual.value === expected.value,
    `${context}: ${String(actual.value)} ≠ ${String(expected.value)}`,
  );
}

describe('TQL model', () => {
  let test: TestStore;
  let containerCount = 0;

  before(async () => {
    test = await openTestStore();
  });

  after(async () => {
    await test.store.close();
  });

  /** Runs one case: its rows in a new container, its queries against the reference. */
  async function runCase(model: ModelCase): Promise<void> {
    const name = `tql${containerCount++}`;
    const { schema } = model;
    await test.store.createContainer({ ...schema.definition, name });
    const writer = test.store.session();
    const reader = test.store.session();
    try {
      if (model.rows.length > 0) await writer.container(name).multiPut(model.rows);
      const handle = reader.container(name);
      let puts: Row[] = [];
      let removed: Row[] = [];
      if (model.transaction !== undefined && schema.keyColumnCount > 0) {
        await handle.setAutoCommit(false);
        removed = model.rows
          .slice(0, model.transaction.removeCount)
          .map((row) => keyOf(schema, row));
        for (const key of removed)
          await handle.remove(key.length === 1 ? (key[0] as string) : (key as string[]));
        puts = model.transaction.puts;
        if (puts.length > 0) await handle.multiPut(puts);
      } else if (model.transaction !== undefined) {
        await handle.setAutoCommit(false);
        puts = model.transaction.puts;
        if (puts.length > 0) await handle.multiPut(puts);
      }
      const rows = visibleRows(schema, model.rows, puts, removed);
      const kinds = schema.columns.map((column) => column.kind);
      for (const query of model.queries) {
        const partial =
          query.partialExecution && handle.isAutoCommit && streamed(schema, query);
        const actual = await answer(handle, query, partial);
        checkAnswer(actual, refAnswer(query.ref, rows, kinds), query, kinds);
      }
    } finally {
      writer.close();
      reader.close();
      await test.store.dropContainer(name);
    }
  }

  it('answers random queries as a naive reference over every row does', async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary(schemaArbitrary), runCase),
      { numRuns: RUN_COUNT });
  });

  it('answers random time-series functions on time series as the reference does', async () => {
    const series = schemaArbitrary.filter((schema) => schema.keyKind === 'series');
    await fc.assert(fc.asyncProperty(caseArbitrary(series), runCase), { numRuns: RUN_COUNT });
  });
});
