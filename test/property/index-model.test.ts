// Secondary indexes against the same rows without any index: two containers of one schema, one
// with random TREE indexes (single and composite, created and dropped as the run goes), one with
// none, get the same random puts, updates and removes, auto-committed and in manual transactions
// (committed, aborted, or left open), across clean restarts and crashes (SimFileSystem: logWriteMode
// 0, so every acknowledged commit survives and open transactions do not). After each step random
// TQL queries with WHERE conditions on the indexed columns (=, ranges, IS [NOT] NULL, AND, OR,
// ORDER BY, LIMIT/OFFSET) must answer exactly alike on both: from the writing session, which sees
// its own uncommitted rows, and from another, which must not. The planner must have read through an
// index in a known share of the queries, so that the test can fail if indexes stop being used.
//
//   STORE_PROPERTY_RUNS=2000 node --import tsx --test test/property/index-model.test.ts

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { storageOptions } from '../../lib/base/options.ts';
import type { ContainerHandle, Session } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { SimFileSystem } from '../sim/sim-file-system.ts';

const RUN_COUNT = Number(process.env['STORE_PROPERTY_RUNS'] ?? 250);
const STEP_COUNT_MAX = 24;
const HOME = '/h';
const OPTIONS = storageOptions({ partitionNum: 4, concurrency: 1, logWriteMode: 0 });
/** Share of queries, over all runs, that must have been answered through an index. */
const INDEX_USED_SHARE_MIN = 0.3;

const COLUMNS = ['a', 'b', 'c', 'd'] as const;
type ColumnName = (typeof COLUMNS)[number];

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'COLLECTION', rowKey: true,
    columns: [
      { name: 'id', type: 'INTEGER' }, { name: 'a', type: 'INTEGER' }, { name: 'b', type: 'STRING' },
      { name: 'c', type: 'DOUBLE' }, { name: 'd', type: 'TIMESTAMP' },
    ],
  };
}

// ---- generators --------------------------------------------------------------------------------

const A_VALUES = [-2, -1, 0, 1, 2, 3] as const;
const B_VALUES = ['', 'x', 'y', 'yy', 'z'] as const;
const C_VALUES = [-1.5, -0, 0, 0.5, 2, 7.25, Number.NaN, Number.POSITIVE_INFINITY] as const;
const D_VALUES = [0, 1000, 1001, 86_400_000, 1_700_000_000_000] as const;

/** Auto-commit writes keys 0..7, transactions 5..12: they overlap only at 5..7, see below. */
const rowArbitrary = (ids: fc.Arbitrary<number>): fc.Arbitrary<Row> => fc.tuple(
  ids,
  fc.option(fc.constantFrom(...A_VALUES), { freq: 5 }),
  fc.option(fc.constantFrom(...B_VALUES), { freq: 5 }),
  fc.option(fc.constantFrom(...C_VALUES), { freq: 5 }),
  fc.option(fc.constantFrom(...D_VALUES), { freq: 5 }),
).map((row) => [...row]);

const literal: Record<ColumnName, fc.Arbitrary<string>> = {
  a: fc.oneof(fc.constantFrom(...A_VALUES).map(String), fc.constantFrom('0.5', '-1.25', '2.0', '99')),
  b: fc.constantFrom(...B_VALUES).map((b) => `'${b}'`),
  c: fc.oneof(fc.constantFrom('-1.5', '0', '0.5', '2', '7.25', '1', '-3'), fc.constant('NaN')),
  d: fc.constantFrom(...D_VALUES).map((ms) => `TIMESTAMP('${new Date(ms).toISOString()}')`),
};

const conditionArbitrary: fc.Arbitrary<string> = fc.constantFrom(...COLUMNS).chain((column) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.tuple(
      column === 'b' ? fc.constant('=') : fc.constantFrom('=', '<', '<=', '>', '>=', '<>'),
      literal[column], fc.boolean(),
    ).map(([operator, value, flipped]) => (flipped
      ? `${value} ${flipOperator(operator)} ${column}` : `${column} ${operator} ${value}`)) },
    { weight: 2, arbitrary: fc.boolean().map((not) => `${column} IS ${not ? 'NOT ' : ''}NULL`) },
  ));

const whereArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(conditionArbitrary, { minLength: 1, maxLength: 3 })
    .map((parts) => parts.join(' AND ')) },
  { weight: 1, arbitrary: fc.tuple(conditionArbitrary, conditionArbitrary)
    .map(([x, y]) => `${x} OR ${y}`) },
);

const queryArbitrary: fc.Arbitrary<string> = fc.tuple(
  whereArbitrary,
  fc.option(fc.constantFrom('ORDER BY id DESC', 'ORDER BY c', 'ORDER BY b DESC, id', 'ORDER BY a'),
    { freq: 3 }),
  fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 3 })), { freq: 3 }),
  fc.constantFrom('*', '*', '*', 'COUNT(*)', 'MAX(c)', 'SUM(a)'),
).map(([where, order, limit, select]) => `SELECT ${select} WHERE ${where}` +
  (order === null || select !== '*' ? '' : ` ${order}`) +
  (limit === null ? '' : ` LIMIT ${limit[0]} OFFSET ${limit[1]}`));

const indexColumnsArbitrary = fc.shuffledSubarray([...COLUMNS], { minLength: 1, maxLength: 3 });

type Step =
  | { kind: 'put'; rows: Row[] }
  | { kind: 'remove'; id: number }
  | { kind: 'txnPut'; rows: Row[] }
  | { kind: 'txnRemove'; id: number }
  | { kind: 'commit' }
  | { kind: 'abort' }
  | { kind: 'createIndex'; columns: ColumnName[] }
  | { kind: 'dropIndex'; columns: ColumnName[] }
  | { kind: 'reopen' }
  | { kind: 'crash' };

const autoIdArbitrary = fc.integer({ min: 0, max: 7 });
const txnIdArbitrary = fc.integer({ min: 5, max: 12 });
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.array(rowArbitrary(autoIdArbitrary), { minLength: 1, maxLength: 6 })
    .map((rows) => ({ kind: 'put' as const, rows })) },
  { weight: 2, arbitrary: autoIdArbitrary.map((id) => ({ kind: 'remove' as const, id })) },
  { weight: 3, arbitrary: fc.array(rowArbitrary(txnIdArbitrary), { minLength: 1, maxLength: 3 })
    .map((rows) => ({ kind: 'txnPut' as const, rows })) },
  { weight: 1, arbitrary: txnIdArbitrary.map((id) => ({ kind: 'txnRemove' as const, id })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' as const }) },
  { weight: 4, arbitrary: indexColumnsArbitrary.map((columns) => ({ kind: 'createIndex' as const, columns })) },
  { weight: 1, arbitrary: indexColumnsArbitrary.map((columns) => ({ kind: 'dropIndex' as const, columns })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

function flipOperator(operator: string): string {
  return ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[operator] ?? operator;
}

// ---- the run -----------------------------------------------------------------------------------

interface Handles {
  writer: Session;
  reader: Session;
  /** [indexed, plain] for the writer (manual commit) and the reader (auto-commit). */
  written: [ContainerHandle, ContainerHandle];
  read: [ContainerHandle, ContainerHandle];
}

function handlesOf(store: Store): Handles {
  const writer = store.session();
  const reader = store.session();
  return {
    writer, reader,
    written: [writer.container('indexed'), writer.container('plain')],
    read: [reader.container('indexed'), reader.container('plain')],
  };
}

async function manual(handles: Handles): Promise<void> {
  for (const handle of handles.written) await handle.setAutoCommit(false);
}

async function commitAll(handles: Handles): Promise<void> {
  for (const handle of handles.written) await handle.commit();
}

const counts = { queryCount: 0, indexUsedCount: 0 };

async function compareQuery(pair: [ContainerHandle, ContainerHandle], tql: string, who: string) {
  const indexed = await pair[0].query(tql);
  const plain = await pair[1].query(tql);
  counts.queryCount++;
  if (indexed.indexUsed !== undefined) counts.indexUsedCount++;
  assert.equal(plain.indexUsed, undefined);
  const { indexUsed: _used, scannedRowCount: _a, ...indexedAnswer } = indexed;
  const { scannedRowCount: _b, ...plainAnswer } = plain;
  assert.deepStrictEqual(indexedAnswer, plainAnswer, `${who}: ${tql}`);
}

async function run(
  initialIndexes: ColumnName[][],
  steps: Step[],
  queries: string[][],
  seed: number,
): Promise<void> {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(HOME);
  await fileSystem.syncDirectory('/');
  const open = () => Store.open({
    home: HOME, options: OPTIONS, fileSystem, scheduler: new VirtualTimeScheduler(),
  });
  let store = await open();
  try {
    await store.createContainer(definition('indexed'));
    await store.createContainer(definition('plain'));
    for (const columns of initialIndexes) await store.createIndex('indexed', { columnNames: columns });
    let handles = handlesOf(store);
    await manual(handles);
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      switch (step.kind) {
        case 'put':
          // An auto-commit write waits for a transaction holding its rows (5..7): commit it first.
          if (step.rows.some((row) => (row[0] as number) >= 5)) await commitAll(handles);
          for (const handle of handles.read) await handle.multiPut(structuredClone(step.rows));
          break;
        case 'remove':
          if (step.id >= 5) await commitAll(handles);
          for (const handle of handles.read) await handle.remove(step.id);
          break;
        case 'txnPut':
          for (const handle of handles.written) await handle.multiPut(structuredClone(step.rows));
          break;
        case 'txnRemove':
          for (const handle of handles.written) await handle.remove(step.id);
          break;
        case 'commit':
          for (const handle of handles.written) await handle.commit();
          break;
        case 'abort':
          for (const handle of handles.written) await handle.abort();
          break;
        case 'createIndex':
          // Open transactions hold row locks: DDL waits for them, so commit first.
          await commitAll(handles);
          await store.createIndex('indexed', { columnNames: step.columns });
          break;
        case 'dropIndex':
          await commitAll(handles);
          await store.dropIndex('indexed', { columnNames: step.columns });
          break;
        case 'reopen':
          await store.close();
          store = await open();
          handles = handlesOf(store);
          await manual(handles);
          break;
        case 'crash':
          fileSystem.crash();
          store = await open();
          handles = handlesOf(store);
          await manual(handles);
          break;
      }
      for (const tql of queries[i] ?? []) {
        await compareQuery(handles.written, tql, `step ${i} (${step.kind}), writer`);
        await compareQuery(handles.read, tql, `step ${i} (${step.kind}), reader`);
      }
    }
  } finally {
    await store.close().catch(() => undefined);
  }
}

describe('index model', () => {
  it(`answers through indexes as without them (${RUN_COUNT} runs)`, { timeout: 600_000 }, async () => {
    assert.ok(Number.isSafeInteger(RUN_COUNT) && RUN_COUNT > 0, 'STORE_PROPERTY_RUNS');
    const property = fc.asyncProperty(
      fc.nat(),
      fc.array(indexColumnsArbitrary, { maxLength: 3 }),
      fc.array(stepArbitrary, { minLength: 1, maxLength: STEP_COUNT_MAX }),
      fc.array(fc.array(queryArbitrary, { maxLength: 3 }), { maxLength: STEP_COUNT_MAX }),
      async (seed, indexes, steps, queries) => run(indexes, steps, queries, seed),
    );
    await fc.assert(property, { numRuns: RUN_COUNT, includeErrorInReport: true });
    const share = counts.indexUsedCount / counts.queryCount;
    assert.ok(share >= INDEX_USED_SHARE_MIN,
      `${counts.indexUsedCount} of ${counts.queryCount} queries read through an index`);
  });
});
