// The SPATIAL index against a full scan: two collections of one schema, one with a SPATIAL index
// on its GEOMETRY column, one without, get the same random puts (2-D and 3-D points, lines,
// rectangles, 3-D boxes, empty geometries, NULL), updates and removes. After each step random
// window queries, ST_MBRIntersects(g, <2-D rectangle | 3-D box | point>), alone or ANDed with a
// key condition, must select the same rows from both, also after a checkpoint, a clean restart
// (the index is built again from the rows) and a crash. The indexed side must have read through
// the index in a known share of the queries, so that the test fails if the index stops being used.
//
//   STORE_PROPERTY_RUNS=500 node --import tsx --test test/property/spatial-model.test.ts

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { storageOptions } from '../../lib/base/options.ts';
import type { ContainerHandle } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { SimFileSystem } from '../sim/sim-file-system.ts';

const RUN_COUNT = Number(process.env['STORE_PROPERTY_RUNS'] ?? 60);
const STEP_COUNT_MAX = 12;
const HOME = '/h';
const OPTIONS = storageOptions({ partitionNum: 2, concurrency: 1, logWriteMode: 0 });
const INDEX_USED_SHARE_MIN = 0.5;

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'INTEGER' }, { name: 'g', type: 'GEOMETRY' }],
  };
}

const coordinate = fc.integer({ min: -20, max: 20 }).map((n) => n / 2);
const point2 = fc.tuple(coordinate, coordinate);
const point3 = fc.tuple(coordinate, coordinate, coordinate);
const text = (p: readonly number[]) => p.join(' ');

/** Distinct coordinates on each axis, as a rectangle or a box needs. */
const apart = fc.tuple(coordinate, fc.integer({ min: 1, max: 12 })).map(([a, d]) => [a, a + d / 2]);

const geometryArbitrary: fc.Arbitrary<string | null> = fc.oneof(
  point2.map((p) => `POINT(${text(p)})`),
  point3.map((p) => `POINT(${text(p)})`),
  fc.array(point2, { minLength: 2, maxLength: 4 }).map((ps) => `LINESTRING(${ps.map(text).join(',')})`),
  fc.tuple(apart, apart).map(([[x0, x1], [y0, y1]]) =>
    `POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))`),
  fc.array(point3, { minLength: 2, maxLength: 3 }).map((ps) => `LINESTRING(${ps.map(text).join(',')})`),
  fc.constantFrom('POINT(EMPTY)', 'POLYGON(EMPTY)', null),
);

const rowsArbitrary = fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), geometryArbitrary),
  { minLength: 1, maxLength: 30 }).map((rows) => rows.map(([id, g]): Row => [id, g]));

type Step =
  | { kind: 'put'; rows: Row[] }
  | { kind: 'remove'; ids: number[] }
  | { kind: 'checkpoint' }
  | { kind: 'reopen' }
  | { kind: 'crash' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: rowsArbitrary.map((rows) => ({ kind: 'put' as const, rows })) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 8 })
    .map((ids) => ({ kind: 'remove' as const, ids })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

const windowArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(apart, apart).map(([[x0, x1], [y0, y1]]) => `ST_MakeRect(${x0}, ${y0}, ${x1}, ${y1})`),
  fc.tuple(apart, apart).map(([[x0, x1], [y0, y1]]) =>
    `ST_GeomFromText('POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))')`),
  fc.tuple(apart, apart, apart).map(([[x0, x1], [y0, y1], [z0, z1]]) =>
    `ST_MakeBox(${x0}, ${y0}, ${z0}, ${x1}, ${y1}, ${z1})`),
  point2.map((p) => `ST_GeomFromText('POINT(${text(p)})')`),
);

const queryArbitrary: fc.Arbitrary<string> = fc.tuple(
  windowArbitrary, fc.boolean(), fc.option(fc.integer({ min: 0, max: 40 })),
).map(([window, flipped, idMin]) => {
  const condition = flipped ? `ST_MBRIntersects(${window}, g)` : `ST_MBRIntersects(g, ${window})`;
  return `SELECT * WHERE ${condition}${idMin === null ? '' : ` AND id >= ${idMin}`}`;
});

const counts = { queryCount: 0, indexUsedCount: 0 };

async function compare(handles: ContainerHandle[], tql: string, where: string): Promise<void> {
  const [indexed, plain] = [await handles[0]!.query(tql), await handles[1]!.query(tql)];
  assert.ok(indexed.kind === 'rows' && plain.kind === 'rows');
  assert.deepEqual(indexed.rows, plain.rows, `${where}: ${tql}`);
  assert.equal(plain.indexUsed, undefined);
  counts.queryCount++;
  if (indexed.indexUsed !== undefined) {
    assert.equal(indexed.indexUsed, 'SPATIAL(g)');
    counts.indexUsedCount++;
  }
}

async function run(steps: Step[], queries: string[][], seed: number): Promise<void> {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(HOME);
  await fileSystem.syncDirectory('/');
  const open = () => Store.open({
    home: HOME, options: OPTIONS, fileSystem, scheduler: new VirtualTimeScheduler(),
  });
  let store = await open();
  const handlesOf = () => ['indexed', 'plain'].map((name) => store.session().container(name));
  try {
    await store.createContainer(definition('indexed'));
    await store.createContainer(definition('plain'));
    await store.createIndex('indexed', { columnNames: ['g'], type: 'SPATIAL' });
    let handles = handlesOf();
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      switch (step.kind) {
        case 'put':
          for (const handle of handles) await handle.multiPut(structuredClone(step.rows));
          break;
        case 'remove':
          for (const handle of handles) for (const id of step.ids) await handle.remove(id);
          break;
        case 'checkpoint':
          await store.checkpoint();
          break;
        case 'reopen':
          await store.close();
          store = await open();
          handles = handlesOf();
          break;
        case 'crash':
          fileSystem.crash();
          store = await open();
          handles = handlesOf();
          break;
      }
      for (const tql of queries[i] ?? []) await compare(handles, tql, `step ${i} (${step.kind})`);
    }
  } finally {
    await store.close().catch(() => undefined);
  }
}

describe('spatial index model', () => {
  it(`answers through the SPATIAL index as a full scan (${RUN_COUNT} runs)`,
    { timeout: 600_000 }, async () => {
      assert.ok(Number.isSafeInteger(RUN_COUNT) && RUN_COUNT > 0, 'STORE_PROPERTY_RUNS');
      const property = fc.asyncProperty(
        fc.nat(),
        fc.array(stepArbitrary, { minLength: 1, maxLength: STEP_COUNT_MAX }),
        fc.array(fc.array(queryArbitrary, { minLength: 1, maxLength: 4 }),
          { minLength: STEP_COUNT_MAX, maxLength: STEP_COUNT_MAX }),
        async (seed, steps, queries) => run(steps, queries, seed),
      );
      await fc.assert(property, { numRuns: RUN_COUNT, includeErrorInReport: true });
      const share = counts.indexUsedCount / counts.queryCount;
      assert.ok(share >= INDEX_USED_SHARE_MIN,
        `${counts.indexUsedCount} of ${counts.queryCount} queries read through the index`);
    });
});
