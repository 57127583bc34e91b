// gs_export's pipelining (tools/gs_export.ts: several containers at once, pages of up to 10,000
// rows fetched ahead, two print threads, pages of fixed-size columns printed whole by the
// double_text addon) changes no byte: random sets of containers, more than are exported at once,
// of three kinds (fixed-size columns, printed whole; with a STRING, printed a cell at a time on a
// print thread; with an array, decoded and printed on the main thread) and of row counts around
// the page sizes (2,000 and 10,000 rows), exported by the command, each row file compared with the
// rows printed one by one by rowLine in the order the node returns them (what a serial export
// writes), and gs_export.json listing every container in order.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TIMESTAMP_MS_MAX, type Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { fileStemOf } from '../../../tools/expimp-metadata.ts';
import { rowLine } from '../../../tools/expimp-row-file.ts';
import { runTool } from '../node/node-process.ts';
import { expimpNodeFixture } from './expimp-node-fixture.ts';

const RUN_COUNT = Number(process.env['EXPIMP_RUNS'] ?? 3);
const ROW_COUNTS = [0, 1, 1_999, 2_001, 9_999, 10_001, 20_003] as const;
const KINDS = ['fixed', 'string', 'array'] as const;
type Kind = typeof KINDS[number];
const DAY_MS = 86_400_000;

function definitionOf(name: string, kind: Kind): ContainerDefinition {
  const columns: ContainerDefinition['columns'] = [
    { name: 'ts', type: 'TIMESTAMP' }, { name: 'd', type: 'DOUBLE' }, { name: 'f', type: 'FLOAT' },
    { name: 'l', type: 'LONG' }, { name: 'b', type: 'BOOL' }, { name: 'i', type: 'INTEGER' },
  ];
  if (kind === 'string') columns.push({ name: 's', type: 'STRING' });
  if (kind === 'array') columns.push({ name: 'a', type: 'SHORT', array: true });
  return { name, type: 'TIME_SERIES', columns };
}

/** `count` rows from `seed` (xorshift32): days apart and within a day, edge doubles, NULLs. */
function rowsOf(kind: Kind, count: number, seed: number): Row[] {
  let state = seed | 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const doubles = [NaN, -0, Infinity, -Infinity, 5e-324, 1e21, 1.7976931348623157e308, 0.1 + 0.2];
  const rows: Row[] = [];
  let ms = Math.floor(next() * (TIMESTAMP_MS_MAX - 30 * DAY_MS));
  for (let r = 0; r < count; r++) {
    ms += 1 + Math.floor(next() * (next() < 0.01 ? DAY_MS : 10_000));
    const pick = next();
    const double = pick < 0.05 ? doubles[Math.floor(next() * doubles.length)]! : (next() - 0.5) * 10 ** (pick * 40 - 20);
    const row: Row = [
      ms, double, pick < 0.1 ? null : Math.fround((next() - 0.5) * 1000),
      pick < 0.2 ? null : BigInt(Math.floor((next() - 0.5) * 2 ** 53)) * 1024n,
      pick < 0.3 ? null : next() < 0.5, Math.floor((next() - 0.5) * 2 ** 32),
    ];
    if (kind === 'string') row.push(pick < 0.4 ? null : `s,"${r}"é${Math.floor(next() * 1e6)}`);
    if (kind === 'array') row.push(pick < 0.4 ? null : [Math.floor(next() * 100), -r % 32768]);
    rows.push(row);
  }
  return rows;
}

/** The data lines of a row file: what follows its `"$"` header line. */
function dataLines(text: string): string {
  const header = text.indexOf('\n"$"');
  assert.ok(header >= 0, 'a row file header');
  return text.slice(text.indexOf('\n', header + 1) + 1);
}

const CONTAINERS = fc.array(fc.record({
  kind: fc.constantFrom(...KINDS), rowCount: fc.constantFrom(...ROW_COUNTS), seed: fc.integer({ min: 1, max: 2 ** 30 }),
}, { noNullPrototype: true }), { minLength: 5, maxLength: 9 });

describe('gs_export pipelining', { timeout: 600_000 }, () => {
  const fixture = expimpNodeFixture('store-export-pipelining-');

  it('writes each container\'s rows as a serial export does, many containers and pages at once', async () => {
    await fc.assert(fc.asyncProperty(CONTAINERS, async (specs) => {
      for (const name of await fixture.store.getContainerNames()) await fixture.store.dropContainer(name);
      const names = specs.map((_, i) => `p_${i}`);
      for (const [i, spec] of specs.entries()) {
        const container = await fixture.store.putContainer(definitionOf(names[i]!, spec.kind));
        const rows = rowsOf(spec.kind, spec.rowCount, spec.seed);
        if (rows.length > 0) await container.multiPut(rows);
      }
      const directory = fixture.newDirectory();
      const exported = await runTool('gs_export.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
      assert.equal(exported.code, 0, exported.stderr);
      const listed = JSON.parse(readFileSync(join(directory, 'gs_export.json'), 'utf8')) as
        { container: Array<{ name: string }> };
      const order = await fixture.store.getContainerNames();
      assert.deepStrictEqual(listed.container.map((entry) => entry.name), order);
      for (const [sequence, name] of order.entries()) {
        const container = (await fixture.store.getContainer(name))!;
        const rows = await (await container.query('select *').fetch()).toArray();
        const place = { directory, stem: fileStemOf('public', name, sequence), rowIndex: 0 };
        const expected = rows.map((row, rowIndex) => rowLine(container.info.columns, row, { ...place, rowIndex }))
          .join('');
        const written = dataLines(readFileSync(join(directory, `${place.stem}.csv`), 'utf8'));
        assert.equal(written.length, expected.length, `${name}: ${rows.length} rows`);
        assert.ok(written === expected, `${name}: the row file differs from a serial export's`);
      }
      rmSync(directory, { recursive: true, force: true });
    }), { numRuns: RUN_COUNT });
  });
});
