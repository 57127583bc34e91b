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

/** The form a server of tools/<name> runs in, as the bench's header and meta say it. */
export function serverForm(name: string): string {
  const entry = toolEntry(name);
  return entry.built ? 'dist (compiled)' : `tsx (source: ${entry.reason})`;
}

/** node's arguments (after any flags) to run tools/<name> with the orphan guard preloaded. */
export function serverArgs(name: string): string[] {
  return serverArgsOf(toolEntry(name));
}

/** serverArgs for an entry toolEntry picked: tsx only for the source. */
export function serverArgsOf(entry: { built: boolean; path: string }): string[] {
  return [...(entry.built ? [] : ['--import', 'tsx']), '--import', ORPHAN_GUARD_PATH, entry.path];
}
