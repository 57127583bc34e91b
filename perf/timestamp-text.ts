// The three hot-path writers of a TIMESTAMP (ms), in CPU ns per value: pgwire's text cell
// (pgTextOf), pgwire's DataRows of a wire page of one TIMESTAMP column (pgDataRowsOfWire), and
// the web API's JSON text (isoTextOfMs). The values are a scan's: 250 ms apart from 2016-01-01,
// 2^20 of them (three days), so most share their day, as rows of a series do.
//
//   node --import tsx perf/timestamp-text.ts [--runs <n>] [--checkout <directory>]...
//
// --checkout (repeatable): a checkout whose lib/ is loaded, so that two builds run in one process,
// their runs alternating (the machine is shared and noisy; alternating spreads its noise over
// both). Without it, this checkout runs alone. Prints the median over runs (after one warm-up) of
// each writer and build, and the load average (1 min) before and after.

import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { assert } from '../lib/base/assert.ts';
import { median } from './stats.ts';

const VALUE_COUNT = 1 << 20;
const FIRST_MS = 1_451_606_400_000;
const STEP_MS = 250;
const RUN_COUNT_DEFAULT = 15;

type Writer = (values: Float64Array) => number;

interface Build {
  directory: string;
  writers: Record<string, Writer>;
  samplesNs: Record<string, number[]>;
}

async function buildOf(directory: string, values: Float64Array): Promise<Build> {
  const load = (path: string) => import(pathToFileURL(join(directory, path)).href);
  const pgTypes = await load('lib/pgwire/pg-types.ts');
  const rowsWire = await load('lib/pgwire/pg-data-rows-wire.ts');
  const timestampText = await load('lib/webapi/codec/timestamp-text.ts');
  const { rowCodec } = await load('lib/encoding/row-codec.ts');
  const { ByteWriter } = await load('lib/encoding/byte-writer.ts');
  const { resultSchemaOf } = await load('lib/protocol/wire-schema.ts');
  const columns = [{ name: 'ts', type: 'TIMESTAMP', array: false, notNull: false }];
  const writer = new ByteWriter(1024);
  rowCodec(resultSchemaOf(columns), 'wire').writeRows(writer, Array.from(values, (ms) => [ms]));
  const page = { count: values.length, bytes: writer.finish() as Uint8Array };
  const writers: Record<string, Writer> = {
    'pg-text': (all) => {
      let length = 0;
      for (let i = 0; i < all.length; i++) {
        length += (pgTypes.pgTextOf('TIMESTAMP', all[i]) as string).length;
      }
      return length;
    },
    'pg-data-rows-wire': () => (rowsWire.pgDataRowsOfWire(['TIMESTAMP'], page) as Buffer).length,
    'webapi-iso': (all) => {
      let length = 0;
      for (let i = 0; i < all.length; i++) {
        length += (timestampText.isoTextOfMs(all[i]) as string).length;
      }
      return length;
    },
  };
  const samplesNs = Object.fromEntries(Object.keys(writers).map((name) => [name, [] as number[]]));
  return { directory, writers, samplesNs };
}

/**
 * This process's CPU time (user + system) per value, not the wall clock's: on a machine shared by
 * many, the wall clock counts the time other processes hold the cores.
 */
function cpuNsPerValue(writer: Writer, values: Float64Array): number {
  const start = process.cpuUsage();
  const length = writer(values);
  const { user, system } = process.cpuUsage(start);
  assert(length > 0);
  return ((user + system) * 1000) / values.length;
}

async function main(): Promise<void> {
  const { values: options } = parseArgs({
    options: { runs: { type: 'string' }, checkout: { type: 'string', multiple: true } },
  });
  const runCount = Number(options.runs ?? RUN_COUNT_DEFAULT);
  assert(Number.isInteger(runCount) && runCount > 0, '--runs takes a positive integer');
  const directories = (options.checkout ?? [join(import.meta.dirname, '..')])
    .map((d) => resolve(d));
  const values = Float64Array.from({ length: VALUE_COUNT }, (_v, i) => FIRST_MS + i * STEP_MS);
  const builds = await Promise.all(directories.map((d) => buildOf(d, values)));
  const loadBefore = loadavg()[0]!;
  for (let run = 0; run <= runCount; run++) {
    for (const build of builds) {
      for (const [name, writer] of Object.entries(build.writers)) {
        const ns = cpuNsPerValue(writer, values);
        if (run > 0) build.samplesNs[name]!.push(ns); // run 0 warms up
      }
    }
  }
  const loadAfter = loadavg()[0]!;
  for (const build of builds) {
    for (const [name, samples] of Object.entries(build.samplesNs)) {
      const nsPerValue = median(samples).toFixed(1).padStart(6);
      console.log(`${name.padEnd(18)} ${nsPerValue} CPU ns/value  ${build.directory}`);
    }
  }
  const load = `${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`;
  console.log(`load average (1 min): ${load}`);
}

await main();
