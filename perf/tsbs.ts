// TSBS cpu-only shaped data, the GridDB way: one TIME_SERIES container per host, named after the
// host (`cpu_host_7`), holding a timestamp and the 10 usage_* DOUBLE fields. The host's other TSBS
// tags (region, datacenter, rack, os, ...) are constant per host, so they live once in the host's
// tag set here, not in every row; neither engine stores them.
//
// Rows of a host are in time order. Batches hold up to batchRowCountMax consecutive rows of one
// host (a multiPut goes to one container) and are interleaved across hosts as TSBS sends them: the
// first batch of every host, then the second of every host, and so on, so time advances across the
// fleet.
// Values are a clamped random walk in [0, 100], from a fixed seed.

import { assert } from '../lib/base/assert.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../lib/schema/container-schema.ts';
import { Prng } from './prng.ts';

/** TSBS's default start: 2016-01-01T00:00:00Z. */
export const TSBS_START_MS = Date.UTC(2016, 0, 1);

export const TSBS_CPU_FIELDS = [
  'usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait',
  'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice',
] as const;

/** Column index of usage_user in a row (0 is the timestamp). */
export const USAGE_USER_COLUMN_INDEX = 1;

const REGIONS = [
  'us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1',
];
const OSES = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'];
const ARCHES = ['x64', 'x86'];
const TEAMS = ['SF', 'NYC', 'LON', 'CHI'];
const ENVIRONMENTS = ['production', 'staging', 'test'];
/** Largest step of the random walk of a usage field, in percentage points. */
const WALK_STEP_MAX = 1;

export interface TsbsConfig {
  hostCount: number;
  durationMs: number;
  intervalMs: number;
  batchRowCountMax: number;
  seed: number;
}

export interface TsbsHost {
  /** The container name: the hostname tag carried in the name. */
  containerName: string;
  tags: Readonly<Record<string, string>>;
}

export interface TsbsBatch {
  hostIndex: number;
  /** Rows of one host: [tsMs, usage_user, ..., usage_guest_nice]. */
  rows: Row[];
}

export interface TsbsDataset {
  config: TsbsConfig;
  hosts: TsbsHost[];
  rowsByHost: Row[][];
  batches: TsbsBatch[];
  rowCount: number;
  fromMs: number;
  /** Exclusive. */
  toMs: number;
}

export function tsbsContainerDefinition(containerName: string): ContainerDefinition {
  return {
    name: containerName,
    type: 'TIME_SERIES',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      ...TSBS_CPU_FIELDS.map((name) => ({ name, type: 'DOUBLE' })),
    ],
  };
}

export function tsbsDataset(config: TsbsConfig): TsbsDataset {
  assert(config.hostCount > 0);
  assert(config.durationMs % config.intervalMs === 0);
  assert(config.batchRowCountMax > 0);
  const prng = new Prng(config.seed);
  const hosts = Array.from({ length: config.hostCount }, (_, i) => tsbsHost(i, prng));
  const rowCountPerHost = config.durationMs / config.intervalMs;
  const rowsByHost = hosts.map(() => tsbsHostRows(prng, rowCountPerHost, config.intervalMs));
  const batches: TsbsBatch[] = [];
  for (let from = 0; from < rowCountPerHost; from += config.batchRowCountMax) {
    for (let hostIndex = 0; hostIndex < hosts.length; hostIndex++) {
      const rows = rowsByHost[hostIndex]!.slice(from, from + config.batchRowCountMax);
      batches.push({ hostIndex, rows });
    }
  }
  const rowCount = rowCountPerHost * hosts.length;
  assert(batches.reduce((sum, batch) => sum + batch.rows.length, 0) === rowCount);
  return {
    config, hosts, rowsByHost, batches, rowCount,
    fromMs: TSBS_START_MS, toMs: TSBS_START_MS + config.durationMs,
  };
}

function tsbsHost(index: number, prng: Prng): TsbsHost {
  const pick = (values: readonly string[]) => values[prng.int(values.length)]!;
  const region = pick(REGIONS);
  return {
    containerName: `cpu_host_${index}`,
    tags: {
      hostname: `host_${index}`,
      region,
      datacenter: `${region}${'abc'[prng.int(3)]}`,
      rack: String(prng.int(100)),
      os: pick(OSES),
      arch: pick(ARCHES),
      team: pick(TEAMS),
      service: String(prng.int(20)),
      service_version: String(prng.int(2)),
      service_environment: pick(ENVIRONMENTS),
    },
  };
}

function tsbsHostRows(prng: Prng, rowCount: number, intervalMs: number): Row[] {
  const fields = TSBS_CPU_FIELDS.map(() => prng.next() * 100);
  const rows: Row[] = new Array(rowCount);
  for (let i = 0; i < rowCount; i++) {
    // A literal of numbers only keeps V8's packed-double elements kind: no boxed values.
    const row: number[] = [TSBS_START_MS + i * intervalMs];
    for (let f = 0; f < fields.length; f++) {
      const stepped = fields[f]! + (prng.next() * 2 - 1) * WALK_STEP_MAX;
      fields[f] = Math.min(100, Math.max(0, stepped));
      row.push(fields[f]!);
    }
    rows[i] = row;
  }
  return rows;
}
