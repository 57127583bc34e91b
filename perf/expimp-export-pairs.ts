// gs_export of the TSBS day by two or more builds of the tools, alternating, against one node
// holding the day: wall time, the command's CPU (user + system over all its threads, from
// /usr/bin/time), the node's CPU during it (/proc/<pid>/stat) and the load average at the start of
// each run; after each round, every row and metadata file of each build's export compared with the
// first build's (row files past their start-time comment line, gs_export.json not compared: it
// holds times and the address). To compare a branch with a baseline worktree of main:
//
//   EXPORT_ROOTS=/work/wt/x-base,/work/wt/x EXPORT_ROUNDS=3 node --import tsx perf/expimp-export-pairs.ts
//
// Each root must hold a built dist/ (`npm run build`). EXPORT_ARGS adds arguments to gs_export
// (e.g. `--cpu-prof` goes to node instead: EXPORT_NODE_ARGS). BENCH_QUICK=1 loads 10 hosts.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchConfig } from './bench-config.ts';
import { withNodeProcess } from './node-process.ts';
import { processCpuMs } from './process-cpu.ts';
import { expimpLoadDay, expimpToolArgs } from './workloads/expimp.ts';

const run = promisify(execFile);
const ROUND_COUNT_MAX = 50;

const roots = (process.env['EXPORT_ROOTS'] ?? process.cwd()).split(',');
const roundCount = Number(process.env['EXPORT_ROUNDS'] ?? 3);
const nodeArgs = (process.env['EXPORT_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
if (!(roundCount >= 1 && roundCount <= ROUND_COUNT_MAX)) throw new Error('EXPORT_ROUNDS: 1 to 50');

const { dataset } = benchConfig(process.env['BENCH_QUICK'] === '1');
const root = mkdtempSync(join(tmpdir(), 'store-export-pairs-'));
try {
  await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
    await expimpLoadDay(node, dataset);
    const env = { ...process.env, GS_HOME: join(root, 'node'), GS_LOG: join(root, 'log') };
    const args = expimpToolArgs(node);
    console.log('round\troot\tload1\twall_s\tcpu_s\tuser_s\tsys_s\tnode_cpu_s\trows/s');
    for (let round = 0; round < roundCount; round++) {
      const directories: string[] = [];
      for (const [index, toolRoot] of roots.entries()) {
        const directory = join(root, `export-${round}-${index}`);
        directories.push(directory);
        const load = loadavg()[0]!;
        const nodeBeforeMs = processCpuMs(node.pid)!;
        const startMs = performance.now();
        const { stderr } = await run('/usr/bin/time', ['-f', '%U %S', process.execPath, ...nodeArgs,
          join(toolRoot, 'dist', 'tools', 'gs_export.js'), ...args, '--all', '-d', directory], { env });
        const wallMs = performance.now() - startMs;
        if (process.env['EXPORT_STDERR'] === '1') process.stderr.write(stderr);
        const nodeMs = processCpuMs(node.pid)! - nodeBeforeMs;
        const [user, sys] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number];
        console.log([round, toolRoot, load.toFixed(2), (wallMs / 1000).toFixed(2), (user + sys).toFixed(2),
          user.toFixed(2), sys.toFixed(2), (nodeMs / 1000).toFixed(2),
          Math.round(dataset.rowCount / (wallMs / 1000))].join('\t'));
      }
      for (const directory of directories.slice(1)) compareExports(directories[0]!, directory);
      for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    }
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** Throws at the first file that differs (row files past their start-time line). */
function compareExports(first: string, other: string): void {
  const files = readdirSync(first).filter((file) => file !== 'gs_export.json').sort();
  const otherFiles = readdirSync(other).filter((file) => file !== 'gs_export.json').sort();
  if (files.join('\n') !== otherFiles.join('\n')) throw new Error(`${other}: other files than ${first}`);
  for (const file of files) {
    const text = (directory: string) => {
      const content = readFileSync(join(directory, file), 'utf8');
      return file.endsWith('.csv') ? content.replace(/^"#[^\n]*\n/, '') : content;
    };
    if (text(first) !== text(other)) throw new Error(`${other}/${file} differs from ${first}'s`);
  }
}
