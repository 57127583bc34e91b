// What a workload reports, and how the runner prints and saves it.
//
// perf/results/latest.json is an array of { name, unit, value, peer, peerValue, ratio }: value is
// the store's median, peerValue LevelDB's median, and ratio is always "higher is better for the
// store": value / peerValue for throughputs (rows/s), peerValue / value for latencies (ms).

export interface BenchResult {
  name: string;
  unit: 'rows/s' | 'ms';
  value: number;
  peer: 'leveldb';
  peerValue: number;
  ratio: number;
}

/** How a workload was measured, for latest-meta.json: samples and the method behind the median. */
export interface BenchDetail {
  name: string;
  method: string;
  storeSamples: number[];
  peerSamples: number[];
}

export interface WorkloadReport {
  results: BenchResult[];
  details: BenchDetail[];
}

export function throughputResult(name: string, value: number, peerValue: number): BenchResult {
  return { name, unit: 'rows/s', value, peer: 'leveldb', peerValue, ratio: value / peerValue };
}

export function latencyResult(name: string, valueMs: number, peerValueMs: number): BenchResult {
  return { name, unit: 'ms', value: valueMs, peer: 'leveldb', peerValue: peerValueMs,
    ratio: peerValueMs / valueMs };
}

export function resultTable(results: readonly BenchResult[]): string {
  const header = ['workload', 'unit', 'store median', 'leveldb median', 'ratio'];
  const rows = results.map((r) => [r.name, r.unit, formatValue(r.value, r.unit),
    formatValue(r.peerValue, r.unit), `${r.ratio.toFixed(2)}x`]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const pad = (cell: string, c: number) =>
    (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!));
  const line = (cells: string[]) => cells.map(pad).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function formatValue(value: number, unit: BenchResult['unit']): string {
  if (unit === 'ms') return value.toFixed(3);
  return Math.round(value).toLocaleString('en-US');
}
