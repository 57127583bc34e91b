// How a tool starts another tool as a child process (start.ts the node and the web API,
// gs_startnode the node): in the form this file runs in. Compiled (dist/tools/*.js, picked by
// tools/bin/tool-entry.mjs because the build matched the sources) the child runs compiled too,
// with no loader; from source, the child runs its .ts through tsx. So a parent and its children
// always run the same code.

import { fileURLToPath } from 'node:url';

/** Is this the compiled JavaScript of dist/? */
export const RUNNING_COMPILED = import.meta.url.endsWith('.js');

/**
 * node's arguments to run tools/<name>. tsx is named by its resolved location: a child may start
 * in GS_HOME, where a bare `tsx` would not resolve.
 */
export function toolProcessArguments(name: string, extra: readonly string[] = []): string[] {
  const entry = fileURLToPath(new URL(`./${name}.${RUNNING_COMPILED ? 'js' : 'ts'}`, import.meta.url));
  return RUNNING_COMPILED ? [entry, ...extra]
    : ['--import', import.meta.resolve('tsx'), entry, ...extra];
}
