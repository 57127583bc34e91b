#!/usr/bin/env node
// The package's commands (package.json "bin"): each name links here, and this runs the TypeScript
// tool of that name (tools/<name>.ts) through tsx, so `npx gs_stat` works from a checkout.

import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const TOOLS = new Set([
  'gs_startnode', 'gs_stopnode', 'gs_stat', 'store-node', 'store-webapi', 'xlog-truncate',
  'gs_export', 'gs_import',
]);
const name = basename(process.argv[1] ?? '').replace(/\.m?js$/, '');
if (!TOOLS.has(name)) {
  console.error(`unknown command ${name}: one of ${[...TOOLS].join(', ')}`);
  process.exit(2);
}
register();
const tools = dirname(dirname(fileURLToPath(import.meta.url)));
await import(pathToFileURL(join(tools, `${name}.ts`)).href);
