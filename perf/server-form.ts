// Which form the servers a benchmark starts (the node, the web API) run in: the one `npm start`
// runs (tools/bin/tool-entry.mjs). The compiled dist/ build when its stamp matches the sources,
// so the figures are of the JavaScript users run; else the TypeScript through tsx, which costs
// more than its start: tsx keeps function names by wrapping closures (`__name`), once 11% of a
// SQL join's CPU. `npm run bench` builds dist/ first, so the fallback is for a bench run directly.
// The node's engine threads follow its form by themselves (worker-engine.ts).

import { fileURLToPath } from 'node:url';
import { toolEntry } from '../tools/bin/tool-entry.mjs';

/** Preloaded into every server: plain JavaScript, so it needs no tsx. */
const ORPHAN_GUARD_PATH = fileURLToPath(new URL('./orphan-guard.mjs', import.meta.url));
/** Preloaded too: logs process.memoryUsage() each second under BENCH_MEMORY_LOG, else nothing. */
const MEMORY_LOG_PATH = fileURLToPath(new URL('./memory-log.mjs', import.meta.url));

/** The form a server of tools/<name> runs in, as the bench's header and meta say it. */
export function serverForm(name: string): string {
  const entry = serverEntry(name);
  return entry.built ? 'dist (compiled)' : `tsx (source: ${entry.reason})`;
}

/** node's arguments (after any flags) to run tools/<name> with the orphan guard preloaded. */
export function serverArgs(name: string): string[] {
  return serverArgsOf(serverEntry(name));
}

/**
 * The entry of tools/<name>: toolEntry's choice, or the TypeScript source through tsx whatever
 * dist/ holds when BENCH_SERVER_FORM=source (to compare the two forms' memory or CPU).
 */
function serverEntry(name: string): { built: boolean; path: string; reason?: string } {
  const form = process.env['BENCH_SERVER_FORM'];
  if (form === undefined || form === '' || form === 'auto') return toolEntry(name);
  if (form !== 'source') {
    throw new Error(`BENCH_SERVER_FORM must be auto or source, not ${JSON.stringify(form)}`);
  }
  return { built: false, path: fileURLToPath(new URL(`../tools/${name}.ts`, import.meta.url)),
    reason: 'BENCH_SERVER_FORM=source' };
}

/** serverArgs for an entry toolEntry picked: tsx only for the source. */
export function serverArgsOf(entry: { built: boolean; path: string }): string[] {
  return [...(entry.built ? [] : ['--import', 'tsx']), '--import', ORPHAN_GUARD_PATH,
    '--import', MEMORY_LOG_PATH, entry.path];
}
