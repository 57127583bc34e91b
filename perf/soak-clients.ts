// The well-behaved clients of the soak (workloads/soak.ts): loops that each act as one
// application, pick their next operation from a seeded PRNG, wait a think time after it, and
// record how long every operation took, per kind.
//
// TypeScript clients (a ClientStore of their own, one connection): 80% single-row puts into their
// own TIME_SERIES container, 10% range queries (60 rows by time), 10% aggregates (AVG of
// usage_user over 600 rows). Web API clients (an http.Agent of their own, one keep-alive socket):
// 50% PUT .../rows of 10 rows into their own container, 50% POST /tql of one statement (a 60-row
// range or an AVG over 600 rows, alternately). Every container holds SOAK_ROWS_PER_CONTAINER rows
// from the start and puts replace rows in that window, so the data the node holds stays the same
// size through a run: RSS that grows is memory that is kept, not data that is added.
//
// An operation that fails (an error reply, a timeout, a status other than 200) is counted with
// its latency, since the caller waited that long too, and its first message is kept.

import type { Agent } from 'node:http';
import { assert } from '../lib/base/assert.ts';
import type { ClientContainer } from '../lib/client/store-factory.ts';
import type { Row } from '../lib/schema/column-type.ts';
import { Prng } from './prng.ts';
import type { TsbsDataset } from './tsbs.ts';
import { httpCall, webApiBatchBody } from './workloads/webapi-ingest.ts';

/** Rows of each container: the window puts replace rows in. */
export const SOAK_ROWS_PER_CONTAINER = 4096;
const RANGE_ROW_COUNT = 60;
const AGGREGATE_ROW_COUNT = 600;
const WEB_PUT_ROW_COUNT = 10;
/** Mean pause after each operation; each pause is drawn from 0.5× to 1.5× of it. */
const SOAK_THINK_MS = 20;
const CLIENT_PUT_FRACTION = 0.8;
const CLIENT_RANGE_FRACTION = 0.1;
const WEB_PUT_FRACTION = 0.5;
const ERROR_TEXT_LENGTH_MAX = 300;

export const SOAK_OP_KINDS = [
  'client/put', 'client/range', 'client/aggregate', 'webapi/put', 'webapi/tql',
] as const;
export type SoakOpKind = (typeof SOAK_OP_KINDS)[number];

export class SoakLatencies {
  readonly latenciesMs = new Map<SoakOpKind, number[]>(SOAK_OP_KINDS.map((k) => [k, []]));
  readonly errorCounts = new Map<SoakOpKind, number>(SOAK_OP_KINDS.map((k) => [k, 0]));
  readonly firstErrors = new Map<SoakOpKind, string>();

  record(kind: SoakOpKind, latencyMs: number, error?: unknown): void {
    this.latenciesMs.get(kind)!.push(latencyMs);
    if (error === undefined) return;
    this.errorCounts.set(kind, this.errorCounts.get(kind)! + 1);
    if (!this.firstErrors.has(kind)) {
      const text = error instanceof Error ? error.message : String(error);
      this.firstErrors.set(kind, text.slice(0, ERROR_TEXT_LENGTH_MAX));
    }
  }

  /** Every latency of every kind: the well-behaved clients as one population. */
  all(): number[] {
    return [...this.latenciesMs.values()].flat();
  }
}

/** The rows of caller c's container: row i has time fromMs + (i mod window) intervals. */
export class SoakRows {
  constructor(private readonly dataset: TsbsDataset) {}

  timeMs(index: number): number {
    return this.dataset.fromMs +
      (index % SOAK_ROWS_PER_CONTAINER) * this.dataset.config.intervalMs;
  }

  row(caller: number, index: number): Row {
    const values = this.dataset.rowsByHost[caller % this.dataset.hosts.length]!;
    const row = values[index % values.length]!.slice();
    row[0] = this.timeMs(index);
    return row;
  }

  /** The whole window, to fill a container before a run. */
  window(caller: number): Row[] {
    return Array.from({ length: SOAK_ROWS_PER_CONTAINER }, (_, i) => this.row(caller, i));
  }
}

export interface SoakLoopSettings {
  caller: number;
  seed: number;
  /** performance.now() after which no operation starts. */
  untilMs: number;
  rows: SoakRows;
  latencies: SoakLatencies;
}

/** A TypeScript client's loop over its own container. */
export async function soakClientLoop(
  container: ClientContainer,
  settings: SoakLoopSettings,
): Promise<void> {
  const { caller, rows, latencies } = settings;
  const prng = new Prng(settings.seed);
  let nextIndex = 0;
  await soakLoop(settings, prng, () => {
    const draw = prng.next();
    if (draw < CLIENT_PUT_FRACTION) {
      return ['client/put', () => container.put(rows.row(caller, nextIndex++))];
    }
    const start = prng.int(SOAK_ROWS_PER_CONTAINER - AGGREGATE_ROW_COUNT);
    if (draw < CLIENT_PUT_FRACTION + CLIENT_RANGE_FRACTION) {
      return ['client/range', async () => {
        const rowSet = await container.queryByTimeRange(rows.timeMs(start),
          rows.timeMs(start + RANGE_ROW_COUNT - 1)).fetch();
        const found = await rowSet.toArray();
        assert(found.length === RANGE_ROW_COUNT);
      }];
    }
    return ['client/aggregate', () => container.aggregate(rows.timeMs(start),
      rows.timeMs(start + AGGREGATE_ROW_COUNT - 1), 'usage_user', 'AVG')];
  }, latencies);
}

/** A web API client's loop over its own container, on its own keep-alive socket. */
export async function soakWebApiLoop(
  target: { port: number; agent: Agent; basePath: string; containerName: string },
  settings: SoakLoopSettings,
): Promise<void> {
  const { caller, rows, latencies } = settings;
  const prng = new Prng(settings.seed);
  let nextIndex = 0;
  let tqlCount = 0;
  const call = async (method: string, path: string, body: string) => {
    const answer = await httpCall(target, { method, path, body: Buffer.from(body, 'utf8') });
    if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text}`);
  };
  await soakLoop(settings, prng, () => {
    if (prng.next() < WEB_PUT_FRACTION) {
      const batch = Array.from({ length: WEB_PUT_ROW_COUNT },
        () => rows.row(caller, nextIndex++));
      return ['webapi/put', () => call('PUT',
        `${target.basePath}/containers/${target.containerName}/rows`,
        webApiBatchBody({ hostIndex: caller, rows: batch }))];
    }
    const start = prng.int(SOAK_ROWS_PER_CONTAINER - AGGREGATE_ROW_COUNT);
    const rowCount = tqlCount % 2 === 0 ? RANGE_ROW_COUNT : AGGREGATE_ROW_COUNT;
    const what = tqlCount++ % 2 === 0 ? '*' : 'AVG(usage_user)';
    const from = new Date(rows.timeMs(start)).toISOString();
    const to = new Date(rows.timeMs(start + rowCount - 1)).toISOString();
    const stmt = `SELECT ${what} WHERE ts >= TIMESTAMP('${from}') AND ts <= TIMESTAMP('${to}')`;
    return ['webapi/tql', () => call('POST', `${target.basePath}/tql`,
      JSON.stringify([{ name: target.containerName, stmt }]))];
  }, latencies);
}

/**
 * Runs `next`'s operations one at a time until settings.untilMs, with a think time after each;
 * bounded in count too (each think is at least half of SOAK_THINK_MS).
 */
async function soakLoop(
  settings: SoakLoopSettings,
  prng: Prng,
  next: () => [SoakOpKind, () => Promise<unknown>],
  latencies: SoakLatencies,
): Promise<void> {
  const opCountMax = Math.ceil((settings.untilMs - performance.now()) / (SOAK_THINK_MS / 2)) + 1;
  for (let op = 0; op < opCountMax && performance.now() < settings.untilMs; op++) {
    const [kind, run] = next();
    const startMs = performance.now();
    try {
      await run();
      latencies.record(kind, performance.now() - startMs);
    } catch (error) {
      latencies.record(kind, performance.now() - startMs, error ?? 'failed');
    }
    const thinkMs = SOAK_THINK_MS * (0.5 + prng.next());
    await new Promise((resolve) => setTimeout(resolve, thinkMs));
  }
}
