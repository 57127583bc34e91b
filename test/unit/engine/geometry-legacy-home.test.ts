// A home written before GEOMETRY had its binary form, when rows, xlog records and checkpoint
// images held the WKT text, opens with the binary form and answers the same: before and after a
// checkpoint and a restart, through the SPATIAL index and through a full scan.
//
// The old home is written by the engine itself with the old validator kept here (legacyValidate:
// the row as today's validator makes it, with each GEOMETRY back to the canonical WKT text it
// used to keep). The codecs write a string GEOMETRY as text, byte for byte the old layout (row
// codec: varuint size + UTF-8; row block: u32 length + UTF-8), which the test checks in the files.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualTimeScheduler } from 'rxjs';
import { storageOptions } from '../../../lib/base/options.ts';
import { geometryMbr, mbrIntersects } from '../../../lib/geometry/geometry.ts';
import { isGeometryValue } from '../../../lib/geometry/geometry-value.ts';
import { isWktProblem, parseWkt } from '../../../lib/geometry/wkt-parse.ts';
import { Store } from '../../../lib/engine/store.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const HOME = '/h';
const OPTIONS = storageOptions({ partitionNum: 1, concurrency: 1, logWriteMode: 0 });
const ROW_COUNT = 400;

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'INTEGER' }, { name: 'g', type: 'GEOMETRY' }],
  };
}

/** Points, 3-D points, lines, rectangles, empties and NULLs over a 100 × 100 field. */
function geometryOf(id: number): string | null {
  const x = (id * 37) % 100;
  const y = (id * 53) % 100;
  switch (id % 7) {
    case 0: return `POINT(${x} ${y})`;
    case 1: return `POINT(${x} ${y} ${id % 5})`;
    case 2: return `LINESTRING(${x} ${y},${x + 3} ${y + 1.5})`;
    case 3: return `POLYGON((${x} ${y},${x + 2} ${y},${x + 2} ${y + 2},${x} ${y + 2},${x} ${y}))`;
    case 4: return 'POINT(EMPTY)';
    case 5: return null;
    default: return `POINT(${x} ${y};4326)`;
  }
}

const WINDOWS = [[10, 10, 30, 30], [0, 0, 100, 100], [50, 20, 52, 90], [99, 99, 120, 120]];

/** The ids each window selects, computed here from the WKT. */
function expectedIds(rows: readonly Row[], [x0, y0, x1, y1]: number[]): number[] {
  const window = { minX: x0!, minY: y0!, minZ: -Infinity, maxX: x1!, maxY: y1!, maxZ: Infinity };
  return rows.filter((row) => {
    if (row[1] === null) return false;
    const geometry = parseWkt(row[1] as string);
    assert.ok(!isWktProblem(geometry));
    const mbr = geometryMbr(geometry);
    return mbr !== undefined && mbrIntersects(mbr, window);
  }).map((row) => row[0] as number);
}

async function openStore(fileSystem: SimFileSystem): Promise<Store> {
  return Store.open({
    home: HOME, options: OPTIONS, fileSystem, scheduler: new VirtualTimeScheduler(),
  });
}

/** The validator of before the binary form: canonical WKT text, kept as text. */
function useLegacyValidator(store: Store, name: string): void {
  const entry = store.partitionFor(name).lookupOrThrow(name);
  const validate = entry.validateRow;
  entry.validateRow = (row) =>
    validate(row).map((value) => (isGeometryValue(value) ? value.wkt : value));
}

async function answers(store: Store, rows: readonly Row[], where: string): Promise<void> {
  for (const name of ['indexed', 'plain']) {
    const handle = store.session().container(name);
    for (const window of WINDOWS) {
      const tql = `SELECT * WHERE ST_MBRIntersects(g, ST_MakeRect(${window.join(', ')}))` +
        ' ORDER BY id';
      const result = await handle.query(tql);
      assert.ok(result.kind === 'rows');
      assert.deepEqual(result.rows.map((row) => row[0]), expectedIds(rows, window),
        `${where}, ${name}: ${tql}`);
      assert.equal(result.indexUsed, name === 'indexed' ? 'SPATIAL(g)' : undefined);
      for (const row of result.rows) assert.equal(typeof row[1], 'string');
    }
    const all = await handle.query('SELECT * ORDER BY id');
    assert.ok(all.kind === 'rows');
    assert.deepEqual(all.rows, rows, `${where}, ${name}: every row reads back as its WKT`);
    const srid = await handle.query('SELECT * WHERE ST_GetSrId(g) = 4326');
    assert.ok(srid.kind === 'rows');
    assert.equal(srid.rows.length, rows.filter((row) => /;4326\)$/.test(String(row[1]))).length);
  }
}

function filesHolding(fileSystem: SimFileSystem, directory: string, text: string): string[] {
  const needle = Buffer.from(text, 'utf8');
  return fileSystem.list(directory).flatMap((name) => {
    const path = `${directory}/${name}`;
    const bytes = fileSystem.fileBytes(path);
    if (bytes === undefined) return filesHolding(fileSystem, path, text);
    return Buffer.from(bytes).includes(needle) ? [path] : [];
  });
}

describe('a home with GEOMETRY kept as WKT text', () => {
  it('opens and answers the same, after a checkpoint and a restart too',
    { timeout: 120_000 }, async () => {
      const fileSystem = new SimFileSystem({ seed: 14 });
      fileSystem.mkdirp(HOME);
      await fileSystem.syncDirectory('/');
      const rows: Row[] = Array.from({ length: ROW_COUNT }, (_, id) => [id, geometryOf(id)]);
      const half = ROW_COUNT / 2;

      // The old home: half the rows checkpointed into blocks, the rest only in the xlog (the
      // node stops without a checkpoint, so opening replays them).
      let store = await openStore(fileSystem);
      for (const name of ['indexed', 'plain']) {
        await store.createContainer(definition(name));
        useLegacyValidator(store, name);
      }
      await store.createIndex('indexed', { columnNames: ['g'], type: 'SPATIAL' });
      for (const name of ['indexed', 'plain']) {
        await store.session().container(name).multiPut(structuredClone(rows.slice(0, half)));
      }
      await store.checkpoint();
      for (const name of ['indexed', 'plain']) {
        await store.session().container(name).multiPut(structuredClone(rows.slice(half)));
      }
      fileSystem.crash();
      const checkpointed = filesHolding(fileSystem, HOME, rows[3]![1] as string);
      const logged = filesHolding(fileSystem, HOME, rows[half + 3]![1] as string);
      assert.ok(checkpointed.some((path) => path.endsWith('.dat')), 'blocks hold WKT text');
      assert.ok(logged.length > 0 && logged.every((path) => path.startsWith(`${HOME}/txnlog/`)),
        'only the log holds the text of rows written after the checkpoint');

      // Today's engine: the same answers at open, after a checkpoint, after a restart.
      store = await openStore(fileSystem);
      await answers(store, rows, 'opened');
      // Rows written now are binary; an old row replaced keeps its answer.
      const more: Row[] = Array.from({ length: 50 }, (_, i) => [ROW_COUNT + i, geometryOf(i + 3)]);
      for (const name of ['indexed', 'plain']) {
        const handle = store.session().container(name);
        await handle.multiPut(structuredClone(more));
        await handle.put([7, 'POINT(60.25 60.75)']);
      }
      const now = [...rows, ...more].map((row): Row => (row[0] === 7 ? [7, 'POINT(60.25 60.75)'] : row));
      await answers(store, now, 'written');
      await store.checkpoint();
      await answers(store, now, 'checkpointed');
      await store.close();
      store = await openStore(fileSystem);
      try {
        await answers(store, now, 'restarted');
      } finally {
        await store.close();
      }
      assert.deepEqual(filesHolding(fileSystem, HOME, 'POINT(60.25 60.75)'), [],
        'a row written now is kept in its binary form, in the xlog and in blocks');
    });
});
