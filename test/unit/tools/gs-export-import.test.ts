// gs_export and gs_import as child processes against a real node: a round trip of random schemas
// and rows (every column type, arrays, BLOB, GEOMETRY, TIMESTAMP(6/9), NULL, NaN, -0, LONG beyond
// 2^53, composite keys) is lossless; a corrupted row file names its file, line and column and
// changes nothing; --help, --version, and the log with the password masked.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import type { Row, Value } from '../../../lib/schema/column-type.ts';
import { INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { runTool } from '../node/node-process.ts';
import { expimpNodeFixture } from './expimp-node-fixture.ts';

const TOOLS = fileURLToPath(new URL('../../../tools/', import.meta.url));
const RUN_COUNT = Number(process.env['EXPIMP_RUNS'] ?? 4);
type Column = ContainerDefinition['columns'][number];

const TEXT = fc.string({ unit: fc.constantFrom('a', 'Z', '"', '\\', ',', '@', '\n', '\r', 'é', '😀', ' ', '#', '$', '['), maxLength: 8 });
const WKT = fc.constantFrom('POINT(1 2)', 'POINT(-1.5 2.25)', 'LINESTRING(0 0,1 1,2 0)', 'POLYGON((0 0,1 0,1 1,0 0))');
const LONG = fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n));

function scalarOf(column: Column): fc.Arbitrary<Value> {
  switch (column.type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'LONG': return LONG;
    case 'FLOAT': return fc.float();
    case 'DOUBLE': return fc.oneof(fc.double(), fc.constantFrom(NaN, -0, Infinity, -Infinity, 2 ** 53 + 2));
    case 'TIMESTAMP':
      if (column.timePrecision === 'MICROSECOND') return fc.bigInt({ min: 0n, max: TIMESTAMP_US_MAX });
      if (column.timePrecision === 'NANOSECOND') return fc.bigInt({ min: 0n, max: TIMESTAMP_NS_MAX });
      return fc.integer({ min: 0, max: TIMESTAMP_MS_MAX });
    case 'STRING': return TEXT;
    case 'GEOMETRY': return WKT;
    default: return fc.uint8Array({ maxLength: 24 });
  }
}

function valueOf(column: Column): fc.Arbitrary<Value> {
  const value = column.array ? fc.array(scalarOf(column), { maxLength: 4 }) as fc.Arbitrary<Value> : scalarOf(column);
  return column.notNull === true ? value : fc.option(value, { nil: null, freq: 4 });
}

const PRECISION = fc.constantFrom(undefined, 'MICROSECOND', 'NANOSECOND');
const VALUE_COLUMN = fc.record({
  type: fc.constantFrom('BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'STRING', 'GEOMETRY', 'BLOB'),
  array: fc.boolean(), notNull: fc.boolean(), timePrecision: PRECISION,
}, { noNullPrototype: true }).map((column) => {
  const array = column.array && column.type !== 'GEOMETRY' && column.type !== 'BLOB';
  const result: Column = { name: '', type: column.type, array, notNull: column.notNull };
  // TIMESTAMP arrays are millisecond only (as GridDB).
  if (column.type === 'TIMESTAMP' && !array && column.timePrecision !== undefined) result.timePrecision = column.timePrecision;
  return result;
});
const KEY_COLUMN = fc.record({
  type: fc.constantFrom('STRING', 'INTEGER', 'LONG', 'TIMESTAMP'), timePrecision: PRECISION,
}, { noNullPrototype: true }).map(({ type, timePrecision }) => {
  const column: Column = { name: '', type, notNull: true };
  if (type === 'TIMESTAMP' && timePrecision !== undefined) column.timePrecision = timePrecision;
  return column;
});

const CONTAINER = fc.oneof(
  fc.tuple(fc.array(KEY_COLUMN, { maxLength: 2 }), fc.array(VALUE_COLUMN, { minLength: 1, maxLength: 6 }))
    .map(([keys, rest]) => ({ type: 'COLLECTION' as const, rowKey: keys.length, columns: [...keys, ...rest] })),
  fc.array(VALUE_COLUMN, { minLength: 1, maxLength: 6 }).map((rest) => ({
    type: 'TIME_SERIES' as const, rowKey: 1,
    columns: [{ name: '', type: 'TIMESTAMP', notNull: true } as Column, ...rest],
  })),
).chain((shape) => {
  const columns = shape.columns.map((column, i) => ({ ...column, name: `col${i}` }));
  return fc.array(fc.tuple(...columns.map(valueOf)), { maxLength: 12 })
    .map((rows) => ({ ...shape, columns, rows: rows as Row[] }));
});

const EDGES: ContainerDefinition = { name: 'edges', type: 'COLLECTION', rowKey: 2, columns: [
  { name: 'k', type: 'STRING' }, { name: 'l', type: 'LONG' }, { name: 'd', type: 'DOUBLE' },
  { name: 'f', type: 'FLOAT' }, { name: 't9', type: 'TIMESTAMP', timePrecision: 'NANOSECOND' },
  { name: 'b', type: 'BLOB' }, { name: 'sa', type: 'STRING', array: true }, { name: 'g', type: 'GEOMETRY' },
  { name: 'la', type: 'LONG', array: true }, { name: 'da', type: 'DOUBLE', array: true }] };
const EDGE_ROWS: Row[] = [
  ['x"\\,y', 2n ** 62n + 1n, -0, -0, TIMESTAMP_NS_MAX, new Uint8Array([0, 1, 255]), ['a,b', '"', ''],
    'POINT(1 2)', [INT64_MIN, INT64_MAX], [NaN, -0, Infinity]],
  ['@z\nq', -1n, NaN, Infinity, 0n, new Uint8Array(0), [], null, null, null],
  ['', INT64_MIN, 2 ** 53 + 2, -Infinity, null, null, null, 'POLYGON((0 0,1 0,1 1,0 0))', [], []],
];

/** A canonical text of a row, for sorting and comparing (bigint, NaN, -0 and bytes kept apart). */
function rowText(row: Row): string {
  return JSON.stringify(row, (_, value: unknown) => {
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
    if (Object.is(value, -0)) return '-0';
    if (value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
    return value;
  });
}

async function rowsOf(store: ClientStore, name: string): Promise<string[]> {
  const container = await store.getContainer(name);
  assert.ok(container !== undefined, `${name} exists`);
  return (await (await container.query('select *').fetch()).toArray()).map(rowText).sort();
}

/**
 * Runs gs_import with a progress line every 1,000 rows and sends `signal` once at the first: the
 * import has written some batches, not all. (Once: a second signal ends the command at once.)
 */
async function interruptImport(toolArgs: string[], signal: NodeJS.Signals, env: NodeJS.ProcessEnv): Promise<{
  code: number | null; stdout: string; stderr: string;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(TOOLS, 'gs_import.ts'), ...toolArgs,
    '--progress', '1000'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (!signalled && / rows \(/.test(stdout)) {
      signalled = true;
      child.kill(signal);
    }
  });
  const [code] = await once(child, 'exit') as [number | null];
  return { code, stdout, stderr };
}

describe('gs_export and gs_import', { timeout: 600_000 }, () => {
  const fixture = expimpNodeFixture('store-expimp-');

  it('round-trips random schemas and rows losslessly: export, drop, import, compare', async () => {
    await fc.assert(fc.asyncProperty(fc.array(CONTAINER, { minLength: 1, maxLength: 3 }), async (containers) => {
      const names = containers.map((_, i) => `rt_${i}`);
      for (const name of ['rt_0', 'rt_1', 'rt_2']) await fixture.store.dropContainer(name);
      const before = new Map<string, string[]>();
      for (const [i, spec] of containers.entries()) {
        const container = await fixture.store.putContainer({ name: names[i]!, type: spec.type, rowKey: spec.rowKey, columns: spec.columns });
        if (spec.rows.length > 0) await container.multiPut(spec.rows);
        before.set(names[i]!, await rowsOf(fixture.store, names[i]!));
      }
      const directory = fixture.newDirectory();
      const exported = await runTool('gs_export.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
      assert.equal(exported.code, 0, exported.stderr);
      for (const name of names) await fixture.store.dropContainer(name);
      const imported = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
      assert.equal(imported.code, 0, imported.stderr);
      for (const name of names) {
        assert.deepStrictEqual(await rowsOf(fixture.store, name), before.get(name), name);
        await fixture.store.dropContainer(name);
      }
    }), { numRuns: RUN_COUNT });
  });

  it('round-trips the edge values of every type (fixed rows)', async () => {
    const container = await fixture.store.putContainer(EDGES);
    await container.multiPut(EDGE_ROWS);
    const before = await rowsOf(fixture.store, 'edges');
    const directory = fixture.newDirectory();
    assert.equal((await runTool('gs_export.ts', [...fixture.args, '-c', 'edges', '-d', directory], fixture.node.env)).code, 0);
    await fixture.store.dropContainer('edges');
    const result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepStrictEqual(await rowsOf(fixture.store, 'edges'), before);
    await fixture.store.dropContainer('edges');
  });

  it('--csv: plain CSV with a header row, out and in; a bad record names its line and writes nothing', async () => {
    const container = await fixture.store.putContainer(EDGES);
    await container.multiPut(EDGE_ROWS);
    const before = await rowsOf(fixture.store, 'edges');
    const path = join(fixture.newDirectory(), 'edges.csv');
    let result = await runTool('gs_export.ts', [...fixture.args, '-c', 'edges', '--csv', path], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    const text = readFileSync(path, 'utf8');
    assert.match(text, /^k,l,d,f,t9,b,sa,g,la,da\n/);
    await fixture.store.dropContainer('edges');
    await fixture.store.putContainer(EDGES);
    result = await runTool('gs_import.ts', [...fixture.args, '-c', 'edges', '--csv', path], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepStrictEqual(await rowsOf(fixture.store, 'edges'), before);
    // One record holds a quoted line feed, so the five lines hold four records: the bad one is on line 6.
    await fixture.store.dropContainer('edges');
    await fixture.store.putContainer(EDGES);
    const records = text.trimEnd().split('\n');
    assert.equal(records.length, 5);
    writeFileSync(path, [...records, 'new,12,x,,,,,,,'].join('\n') + '\n');
    result = await runTool('gs_import.ts', [...fixture.args, '-c', 'edges', '--csv', path], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /edges\.csv:6:3: column "d": expected a number/);
    assert.deepEqual(await rowsOf(fixture.store, 'edges'), []);
    await fixture.store.dropContainer('edges');
  });

  it('a corrupted row file names file, line and column and changes nothing', async () => {
    const definition: ContainerDefinition = { name: 'bad', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE' }, { name: 'n', type: 'BYTE' }] };
    const container = await fixture.store.putContainer(definition);
    await container.multiPut(Array.from({ length: 2500 }, (_, i) => [i, i / 2, i % 100]));
    const directory = fixture.newDirectory();
    assert.equal((await runTool('gs_export.ts', [...fixture.args, '-c', 'bad', '-d', directory], fixture.node.env)).code, 0);
    const rowFile = join(directory, 'public.bad.csv');
    const lines = readFileSync(rowFile, 'utf8').split('\n');
    const good = lines.slice();
    // Line 2004 (1-based) is row 2000: after two full batches would have been written.
    lines[2003] = '"1999","0.5","300"';
    writeFileSync(rowFile, lines.join('\n'));
    await fixture.store.dropContainer('bad');
    let result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /public\.bad\.csv:2004:3: .*"n"/);
    assert.equal(await fixture.store.getContainer('bad'), undefined, 'nothing created');
    // Over an existing container with --replace: the old rows stay.
    const old = await fixture.store.putContainer(definition);
    await old.put([7, 7.5, 7]);
    lines[2003] = '"1999","0.5,"1"';
    writeFileSync(rowFile, lines.join('\n'));
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '--replace', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /public\.bad\.csv:2004:\d+: /);
    assert.deepEqual(await rowsOf(fixture.store, 'bad'), [rowText([7, 7.5, 7])]);
    // Without --append/--replace an existing container is refused; with --append the rows come in.
    writeFileSync(rowFile, good.join('\n'));
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /exists; give --append or --replace/);
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '--append', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await rowsOf(fixture.store, 'bad')).length, 2500);
    await fixture.store.dropContainer('bad');
  });

  it('a bad container among several stops the import, or with --force is skipped and the next come in', async () => {
    const definitionOf = (name: string): ContainerDefinition => ({ name, type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'n', type: 'BYTE' }] });
    const names = ['force1', 'force2', 'force3'];
    for (const name of names) {
      const container = await fixture.store.putContainer(definitionOf(name));
      await container.multiPut(Array.from({ length: 1500 }, (_, i) => [i, i % 100]));
    }
    const directory = fixture.newDirectory();
    const exported = await runTool('gs_export.ts', [...fixture.args, ...names.flatMap((name) => ['-c', name]), '-d', directory],
      fixture.node.env);
    assert.equal(exported.code, 0, exported.stderr);
    const rowFile = join(directory, 'public.force2.csv');
    const lines = readFileSync(rowFile, 'utf8').split('\n');
    lines[1200] = '"1196","300"';
    writeFileSync(rowFile, lines.join('\n'));
    for (const name of names) await fixture.store.dropContainer(name);
    let result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /public\.force2\.csv:1201:2: /);
    assert.equal((await rowsOf(fixture.store, 'force1')).length, 1500);
    assert.equal(await fixture.store.getContainer('force2'), undefined, 'nothing of the bad file');
    assert.equal(await fixture.store.getContainer('force3'), undefined, 'the import stopped at the bad file');
    const loud = fixture.args.filter((arg) => arg !== '--silent');
    result = await runTool('gs_import.ts', [...loud, '--all', '--replace', '--force', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /public\.force1 : 1500\npublic\.force3 : 1500\nImport completed\nSuccess:2 Failure:1/);
    assert.equal(await fixture.store.getContainer('force2'), undefined);
    assert.equal((await rowsOf(fixture.store, 'force3')).length, 1500);
    for (const name of ['force1', 'force3']) await fixture.store.dropContainer(name);
  });

  it('a row file that fails mid-write fails its container alone: its path in the error, neither of its files left, not listed', async () => {
    const names = ['full1', 'full2'];
    for (const name of names) {
      const container = await fixture.store.putContainer({ name, type: 'COLLECTION', rowKey: true,
        columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE' }] });
      await container.multiPut(Array.from({ length: 5000 }, (_, i) => [i, i / 3]));
    }
    const directory = fixture.newDirectory();
    // Every write to /dev/full fails with ENOSPC: full1's rows go nowhere, as on a full disk.
    symlinkSync('/dev/full', join(directory, 'public.full1.csv'));
    const result = await runTool('gs_export.ts', [...fixture.args, '-c', 'full1', '-c', 'full2', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /D00D01: Export of public\.full1 failed: \S*public\.full1\.csv: ENOSPC/);
    assert.equal(existsSync(join(directory, 'public.full1.csv')), false, 'no row file of full1');
    assert.equal(existsSync(join(directory, 'public.full1_properties.json')), false, 'no metadata file of full1');
    const listed = JSON.parse(readFileSync(join(directory, 'gs_export.json'), 'utf8')).container;
    assert.deepStrictEqual(listed.map((entry: { name: string }) => entry.name), ['full2']);
    assert.equal(readFileSync(join(directory, 'public.full2.csv'), 'utf8').split('\n').length, 4 + 5000 + 1);
    for (const name of names) await fixture.store.dropContainer(name);
  });

  it('an interrupted import says exactly how many rows it wrote; --append finishes it', async () => {
    const definition: ContainerDefinition = { name: 'big', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'LONG' }] };
    const rowCount = 100_000;
    const container = await fixture.store.putContainer(definition);
    for (let start = 0; start < rowCount; start += 10_000) {
      await container.multiPut(Array.from({ length: 10_000 }, (_, i) => [start + i, BigInt(start + i)]));
    }
    const directory = fixture.newDirectory();
    assert.equal((await runTool('gs_export.ts', [...fixture.args, '-c', 'big', '-d', directory], fixture.node.env)).code, 0);
    await fixture.store.dropContainer('big');
    // SIGINT at the first progress line: the import has written some batches, not all.
    const { code, stdout, stderr } = await interruptImport(
      [...fixture.args.filter((arg) => arg !== '--silent'), '--all', '-d', directory], 'SIGINT', fixture.node.env);
    assert.equal(code, 1, stdout + stderr);
    const match = /interrupted: (\d+) of 100000 rows written \(public\.big\.csv up to line (\d+)\)/.exec(stderr);
    assert.ok(match !== null, stderr);
    const written = Number(match[1]);
    assert.ok(written > 0 && written < rowCount);
    assert.equal(Number(match[2]), written + 4, 'four header lines, then a row a line');
    assert.equal((await rowsOf(fixture.store, 'big')).length, written);
    const result = await runTool('gs_import.ts', [...fixture.args, '--all', '--append', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await rowsOf(fixture.store, 'big')).length, rowCount);
    await fixture.store.dropContainer('big');
  });

  it('a row file too large to keep its rows between the two reads is read again and comes in whole', async () => {
    // 900 rows of 10,000 characters: a 9 MB row file, past gs_import's KEPT_FILE_BYTES_MAX (8 MiB).
    const definition: ContainerDefinition = { name: 'large', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 's', type: 'STRING' }] };
    const container = await fixture.store.putContainer(definition);
    for (let start = 0; start < 900; start += 100) {
      await container.multiPut(Array.from({ length: 100 }, (_, i) => [start + i, String(start + i).padEnd(10_000, 'x')]));
    }
    const before = await rowsOf(fixture.store, 'large');
    const directory = fixture.newDirectory();
    assert.equal((await runTool('gs_export.ts', [...fixture.args, '-c', 'large', '-d', directory], fixture.node.env)).code, 0);
    assert.ok(statSync(join(directory, 'public.large.csv')).size > 8 << 20);
    const result = await runTool('gs_import.ts', [...fixture.args, '--all', '--replace', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepStrictEqual(await rowsOf(fixture.store, 'large'), before);
    await fixture.store.dropContainer('large');
  });

  it('gs_import --csv stops on SIGTERM after the batches in flight and says how many rows it wrote', async () => {
    const definition: ContainerDefinition = { name: 'bigcsv', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'LONG' }] };
    const rowCount = 100_000;
    const path = join(fixture.newDirectory(), 'bigcsv.csv');
    writeFileSync(path, `ts,v\n${Array.from({ length: rowCount }, (_, i) =>
      `${new Date(i).toISOString()},${i}`).join('\n')}\n`);
    await fixture.store.putContainer(definition);
    const { code, stdout, stderr } = await interruptImport(
      [...fixture.args.filter((arg) => arg !== '--silent'), '-c', 'bigcsv', '--csv', path], 'SIGTERM', fixture.node.env);
    assert.equal(code, 1, stdout + stderr);
    const match = /interrupted: (\d+) of 100000 rows written \(bigcsv\.csv up to line (\d+)\); run again/.exec(stderr);
    assert.ok(match !== null, stderr);
    const written = Number(match[1]);
    assert.ok(written > 0 && written < rowCount);
    assert.equal(Number(match[2]), written + 1, 'the header line, then a record a line');
    assert.equal((await rowsOf(fixture.store, 'bigcsv')).length, written);
    const result = await runTool('gs_import.ts', [...fixture.args, '-c', 'bigcsv', '--csv', path], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await rowsOf(fixture.store, 'bigcsv')).length, rowCount);
    await fixture.store.dropContainer('bigcsv');
  });

  it('--acl exports general users, databases and grants and imports them; a missing user imports nothing; --prefixdb', async () => {
    const definition: ContainerDefinition = { name: 'aclc', type: 'COLLECTION', rowKey: 1,
      columns: [{ name: 'k', type: 'INTEGER' }, { name: 'v', type: 'STRING' }] };
    await (await fixture.store.putContainer(definition)).multiPut([[1, 'a'], [2, 'b']]);
    await fixture.store.sql("CREATE USER user1 IDENTIFIED BY 'pw1'");
    await fixture.store.sql('CREATE DATABASE db1');
    await fixture.store.sql('GRANT SELECT ON db1 TO user1');
    const directory = fixture.newDirectory();
    let result = await runTool('gs_export.ts', [...fixture.args, '--all', '--acl', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    const aclPath = join(directory, 'gs_export_acl.json');
    assert.deepStrictEqual(JSON.parse(readFileSync(aclPath, 'utf8')), { version: '5.8.0',
      user: [{ isRole: false, username: 'user1', password: createHash('sha256').update('pw1').digest('hex') }],
      database: [{ name: 'db1', acl: [{ username: 'user1', role: 'READ' }] }] });
    // A general user may not: --acl is for administrators.
    const asUser = ['-u', 'user1/pw1', ...fixture.args.filter((arg) => arg !== '-u' && arg !== 'admin/admin')];
    result = await runTool('gs_export.ts', [...asUser, '--all', '--acl', '-d', fixture.newDirectory()], fixture.node.env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--acl is for administrators: user1 is a general user/);
    await fixture.store.sql('DROP DATABASE db1');
    await fixture.store.dropContainer('aclc');
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '--acl', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepStrictEqual(await rowsOf(fixture.store, 'aclc'), ['[1,"a"]', '[2,"b"]']);
    const grantAgain = await fixture.store.sql('GRANT ALL ON db1 TO user1').then(() => 'ok', (error: { code?: string }) => error.code);
    assert.equal(grantAgain, 'TXN_OTHER_PRIVILEGE_EXISTS', 'the READ grant came back with db1');
    // A user this node does not have is made from its SHA-256; one without a SHA-256 to make it
    // from is refused before any container is touched.
    await fixture.store.dropContainer('aclc');
    writeFileSync(aclPath, JSON.stringify({ version: '5.8.0',
      user: [{ isRole: false, username: 'user2', password: 'x' }],
      database: [{ name: 'db2', acl: [{ username: 'user2', role: 'READ' }] }] }));
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '--acl', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /D0023B: .*gs_export_acl\.json: user\[0\] "user2" is not on this node and its "password" is not a SHA-256/);
    assert.equal(await fixture.store.getContainerInfo('aclc'), undefined);
    writeFileSync(aclPath, JSON.stringify({ version: '5.8.0', user: [],
      database: [{ name: 'public', acl: [{ username: 'user1', role: 'READ' }] }] }));
    result = await runTool('gs_import.ts', [...fixture.args, '--all', '--acl', '-d', directory], fixture.node.env);
    assert.match(result.stderr, /D00238: .*database\[0\] public grants 1 rights/);
    await fixture.store.sql('DROP USER user1');
    await fixture.store.sql('DROP DATABASE db1');
    rmSync(aclPath);
    result = await runTool('gs_import.ts', [...fixture.args, '--db', 'public', '--acl', '-d', directory], fixture.node.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /D00235: An ACL file does not exist\./);
    // --acl needs --all or --db; --prefixdb needs -c or --containerregex and an existing database.
    for (const name of ['gs_export.ts', 'gs_import.ts']) {
      result = await runTool(name, [...fixture.args, '-c', 'aclc', '--acl', '-d', fixture.newDirectory()], fixture.node.env);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /D00A46: \[--acl\] option and \[--all\] option or \[--db\] option must be set at same time\./);
      result = await runTool(name, [...fixture.args, '--all', '--prefixdb', 'public', '-d', fixture.newDirectory()], fixture.node.env);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /D00A42: /);
      result = await runTool(name, [...fixture.args, '-c', 'aclc', '--prefixdb', 'db1', '-d', fixture.newDirectory()], fixture.node.env);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /D00E0D: database "db1" does not exist/);
    }
    // --prefixdb public: the containers of public, in and out.
    result = await runTool('gs_import.ts', [...fixture.args, '-c', 'aclc', '--prefixdb', 'public', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    const again = fixture.newDirectory();
    result = await runTool('gs_export.ts', [...fixture.args, '--containerregex', 'acl.', '--prefixdb', 'public', '-d', again], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepStrictEqual(JSON.parse(readFileSync(join(again, 'gs_export.json'), 'utf8')).container,
      [{ database: 'public', name: 'aclc', metafile: 'public.aclc_properties.json' }]);
    await fixture.store.dropContainer('aclc');
  });

  it('--db, --all and --prefixdb: each database\'s containers out and back into that database', async () => {
    const definition: ContainerDefinition = { name: 'dbc', type: 'COLLECTION', rowKey: 1,
      columns: [{ name: 'k', type: 'INTEGER' }, { name: 'v', type: 'STRING' }] };
    await fixture.store.sql('CREATE DATABASE db2');
    const db2 = getStore({ notificationMember: `127.0.0.1:${fixture.node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', database: 'db2' });
    try {
      await (await fixture.store.putContainer(definition)).multiPut([[1, 'public']]);
      await (await db2.putContainer(definition)).multiPut([[1, 'db2'], [2, 'db2']]);
      const byDb = fixture.newDirectory();
      let result = await runTool('gs_export.ts', [...fixture.args, '--db', 'db2', '-d', byDb], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepStrictEqual(JSON.parse(readFileSync(join(byDb, 'gs_export.json'), 'utf8')).container,
        [{ database: 'db2', name: 'dbc', metafile: 'db2.dbc_properties.json' }]);
      const everything = fixture.newDirectory();
      result = await runTool('gs_export.ts', [...fixture.args, '--all', '-d', everything], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      await fixture.store.dropContainer('dbc');
      await db2.dropContainer('dbc');
      result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', everything], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepStrictEqual(await rowsOf(fixture.store, 'dbc'), ['[1,"public"]']);
      assert.deepStrictEqual(await rowsOf(db2, 'dbc'), ['[1,"db2"]', '[2,"db2"]']);
      await db2.dropContainer('dbc');
      result = await runTool('gs_import.ts', [...fixture.args, '-c', 'dbc', '--prefixdb', 'db2', '-d', everything], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepStrictEqual(await rowsOf(db2, 'dbc'), ['[1,"db2"]', '[2,"db2"]']);
      const prefixed = fixture.newDirectory();
      result = await runTool('gs_export.ts', [...fixture.args, '-c', 'dbc', '--prefixdb', 'db2', '-d', prefixed], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.match(readFileSync(join(prefixed, 'db2.dbc.csv'), 'utf8'), /"2","db2"/);
      await fixture.store.dropContainer('dbc');
      await db2.dropContainer('dbc');
    } finally {
      await db2.close();
    }
    await fixture.store.sql('DROP DATABASE db2');
  });

  it('views: --all and --db write their definitions to gs_export_view.json; gs_import makes them again', async () => {
    const definition: ContainerDefinition = { name: 'vt', type: 'COLLECTION', rowKey: 1,
      columns: [{ name: 'k', type: 'INTEGER' }, { name: 'v', type: 'STRING' }] };
    await fixture.store.sql('CREATE DATABASE db3');
    const db3 = getStore({ notificationMember: `127.0.0.1:${fixture.node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', database: 'db3' });
    const viewRows = async (on: ClientStore) => (await (await on.sql(
      'SELECT VIEW_NAME, VIEW_DEFINITION FROM "#views"')).toArray()).map((row) => row.join(' = '));
    try {
      await (await fixture.store.putContainer(definition)).multiPut([[1, 'a'], [2, 'b']]);
      await fixture.store.sql('CREATE VIEW "vt.big" AS SELECT k FROM vt WHERE k > 1');
      await db3.sql('CREATE FORCE VIEW v3 AS SELECT * FROM later');
      const before = [await viewRows(fixture.store), await viewRows(db3)];
      const directory = fixture.newDirectory();
      let result = await runTool('gs_export.ts', [...fixture.args.filter((arg) => arg !== '--silent'), '--all', '-d',
        directory], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /The number of target views : 2\n/);
      assert.deepStrictEqual(JSON.parse(readFileSync(join(directory, 'gs_export_view.json'), 'utf8')), {
        version: '5.8.0', view: [
          { database: 'public', name: 'vt.big', definition: 'SELECT k FROM vt WHERE k > 1' },
          { database: 'db3', name: 'v3', definition: 'SELECT * FROM later' }] });
      await fixture.store.sql('DROP VIEW "vt.big"');
      await db3.sql('DROP VIEW v3');
      await fixture.store.dropContainer('vt');
      result = await runTool('gs_import.ts', [...fixture.args, '--db', 'public', '-d', directory], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepStrictEqual([await viewRows(fixture.store), await viewRows(db3)], [before[0], []], '--db: its views only');
      assert.deepStrictEqual(await (await fixture.store.sql('SELECT * FROM "vt.big"')).toArray(), [[2]]);
      await fixture.store.dropContainer('vt');
      result = await runTool('gs_import.ts', [...fixture.args, '--all', '-d', directory], fixture.node.env);
      assert.equal(result.code, 1, 'a view already there is an error');
      assert.match(result.stderr, /D00251: Import of the view public\.vt\.big failed: .*already exists/);
      result = await runTool('gs_import.ts', [...fixture.args, '--all', '--replace', '-d', directory], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepStrictEqual([await viewRows(fixture.store), await viewRows(db3)], before);
      // -c and --containerregex leave views out, as GridDB's.
      const some = fixture.newDirectory();
      result = await runTool('gs_export.ts', [...fixture.args, '-c', 'vt', '-d', some], fixture.node.env);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(existsSync(join(some, 'gs_export_view.json')), false);
      await fixture.store.sql('DROP VIEW "vt.big"');
      await db3.sql('DROP VIEW v3');
      await fixture.store.dropContainer('vt');
    } finally {
      await db3.close();
    }
    await fixture.store.sql('DROP DATABASE db3');
  });

  it('answers --help and --version, and logs with the password masked', async () => {
    for (const name of ['gs_export.ts', 'gs_import.ts']) {
      const help = await runTool(name, ['--help'], {});
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^Usage: gs_(export|import) /);
      assert.match((await runTool(name, ['--version'], {})).stdout, /^gs_(export|import) \(store\) /);
    }
    const directory = fixture.newDirectory();
    const result = await runTool('gs_export.ts', ['-u', 'admin/admin', '-s', `127.0.0.1:${fixture.node.transactionPort}`,
      '--all', '-d', directory], fixture.node.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Export Start\.[\s\S]*Number of target container:\d+ \( Success:\d+ Failure:0 \)\nExport Completed\./);
    const log = readFileSync(join(fixture.node.env['GS_LOG']!, 'gs_export.log'), 'utf8');
    assert.match(log, /\[INFO\] main start: -u admin\/\*\*\* /);
    assert.doesNotMatch(log, /admin\/admin/);
  });
});
