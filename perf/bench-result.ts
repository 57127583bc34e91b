// What a workload reports, and how the runner prints and saves it.
//
// perf/results/latest.json is an array of { name, unit, value, peer, peerValue, ratio, target? }:
// value is the store's median, peerValue the peer's median, and ratio is always "higher is better
// for the store": value / peerValue for throughputs (rows/s, MB/s), peerValue / value for latencies
// (ms), CPU times (µs of CPU per put) and memory (MB, %). The peer is LevelDB, or for the checkpoint's MB/s the disk itself (a file written in the
// same directory with fdatasync after every MiB; see disk-peer.ts), or InfluxDB for the client
// ingest, or for engine/thread the store itself run in the calling thread (value is then the store
// in a worker thread, so the ratio says how much the worker gains), or for the soak the same
// workload without its hostile client (value is then the run with it), or for spatial/window a
// full scan of the same rows without the index (value is then through the index), or PostgreSQL's
// COPY for gs_export / gs_import (expimp/), or for sql/tsbs's commit p99 the same writer with no
// query running (value is then the p99 with the queries), or for expiry/ the same ingest into a
// table without expiry (no-expiry). A peer that
// could not run (influxd not installed) has peerValue and ratio null. MB is 2^20 bytes, as in the
// configuration's sizes. A target, where the issue sets one, is a lower bound on the ratio or on
// the value, or an upper bound on the value (the soak's RSS spread).

import { MiB } from '../lib/base/units.ts';

export type BenchUnit = 'rows/s' | 'ops/s' | 'MB/s' | 'ms' | 'µs' | 'MB' | '%';
export type BenchPeer =
  'leveldb' | 'disk' | 'influxdb' | 'in-thread' | 'no-hostile' | 'full-scan' | 'postgres' | 'no-query'
  | 'store-client' | 'no-expiry';

export type BenchTarget = { of: 'ratio' | 'value'; min: number } | { of: 'value'; max: number };

export interface BenchResult {
  name: string;
  unit: BenchUnit;
  value: number;
  peer: BenchPeer;
  /** null when the peer was skipped (not installed on this machine). */
  peerValue: number | null;
  ratio: number | null;
  target?: BenchTarget;
}

/** How a workload was measured, for latest-meta.json: samples and the method behind the median. */
export interface BenchDetail {
  name: string;
  method: string;
  storeSamples: number[];
  peerSamples: number[];
  /** Other per-run figures behind the samples, one per run, the unit in the key. */
  measures?: Record<string, number[]>;
}

export interface WorkloadReport {
  results: BenchResult[];
  details: BenchDetail[];
}

export function throughputResult(
  name: string,
  value: number,
  peerValue: number | null,
  options: { unit?: 'rows/s' | 'ops/s' | 'MB/s'; peer?: BenchPeer; target?: BenchTarget } = {},
): BenchResult {
  const result: BenchResult = {
    name, unit: options.unit ?? 'rows/s', value, peer: options.peer ?? 'leveldb', peerValue,
    ratio: peerValue === null ? null : value / peerValue,
  };
  if (options.target !== undefined) result.target = options.target;
  return result;
}

/**
 * A figure where lower is better: a latency (ms, the default), CPU time per operation (µs) or
 * memory (MB, or a spread in %). The ratio is peer / store, so above 1 the store is still ahead
 * (null when the store's figure is 0).
 */
export function latencyResult(
  name: string,
  value: number,
  peerValue: number | null,
  options: { peer?: BenchPeer; unit?: 'ms' | 'µs' | 'MB' | '%'; target?: BenchTarget } = {},
): BenchResult {
  const result: BenchResult = { name, unit: options.unit ?? 'ms', value,
    peer: options.peer ?? 'leveldb', peerValue,
    ratio: value === 0 || peerValue === null ? null : peerValue / value };
  if (options.target !== undefined) result.target = options.target;
  return result;
}

export function megabytesPerS(sizeBytes: number, durationMs: number): number {
  return sizeBytes / MiB / (durationMs / 1000);
}

export function resultTable(results: readonly BenchResult[]): string {
  const header = ['workload', 'unit', 'store median', 'peer', 'peer median', 'ratio', 'target'];
  const rows = results.map((r) => [r.name, r.unit, formatValue(r.value, r.unit), r.peer,
    r.peerValue === null ? 'skipped' : formatValue(r.peerValue, r.unit),
    r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`, formatTarget(r)]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const leftAligned = new Set([0, 1, 3, 6]);
  const pad = (cell: string, c: number) =>
    (leftAligned.has(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!));
  const line = (cells: string[]) => cells.map(pad).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function formatValue(value: number, unit: BenchUnit): string {
  if (unit === 'ms') return value.toFixed(3);
  if (unit === 'MB/s' || unit === 'µs' || unit === 'MB' || unit === '%') return value.toFixed(1);
  return Math.round(value).toLocaleString('en-US');
}

function formatTarget(result: BenchResult): string {
  const { target } = result;
  if (target === undefined) return '';
  if ('max' in target) {
    const met = result.value <= target.max;
    return `<= ${formatValue(target.max, result.unit)} ${met ? 'met' : 'MISSED'}`;
  }
  const actual = target.of === 'ratio' ? result.ratio : result.value;
  const bound = target.of === 'ratio'
    ? `ratio >= ${target.min.toFixed(2)}x`
    : `>= ${formatValue(target.min, result.unit)}`;
  if (actual === null) return `${bound} (no peer)`;
  return `${bound} ${actual >= target.min ? 'met' : 'MISSED'}`;
}
