// Preloaded (node --import) into every server a benchmark starts (server-form.ts); does nothing
// unless BENCH_MEMORY_LOG names a directory. Then, each BENCH_MEMORY_LOG_MS (1000 by default), it
// appends process.memoryUsage() to <dir>/<server>-<pid>.jsonl as one JSON line: ms since start,
// rss, heapTotal, heapUsed, external, arrayBuffers (bytes). RSS alone (rss-sampler.ts) cannot say
// whether a process's growth is JavaScript heap, ArrayBuffers or native memory; this can, without
// a debug endpoint in the server. Plain JavaScript, so it loads beside the compiled dist/ too.

import { appendFileSync, mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';

const directory = process.env['BENCH_MEMORY_LOG'];
const INTERVAL_MS_DEFAULT = 1000;

if (directory !== undefined && directory !== '') {
  const intervalMs = Number(process.env['BENCH_MEMORY_LOG_MS'] ?? INTERVAL_MS_DEFAULT);
  if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
    throw new Error(`BENCH_MEMORY_LOG_MS must be a positive integer, not ${intervalMs}`);
  }
  mkdirSync(directory, { recursive: true });
  const server = basename(process.argv[1] ?? 'server', extname(process.argv[1] ?? ''));
  const path = join(directory, `${server}-${process.pid}.jsonl`);
  const startMs = performance.now();
  const sample = () => {
    const m = process.memoryUsage();
    appendFileSync(path, `${JSON.stringify({ atMs: Math.round(performance.now() - startMs),
      rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external,
      arrayBuffers: m.arrayBuffers })}\n`);
  };
  // Unref'd: the log never keeps a server alive.
  setInterval(sample, intervalMs).unref();
}
