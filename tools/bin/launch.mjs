#!/usr/bin/env node
// The package's commands (package.json "bin"): each name links here, and this runs the tool of
// that name, tools/<name>: compiled (dist/) when the build is up to date, else the TypeScript
// through tsx (tools/bin/tool-entry.mjs decides), so `npx gs_stat` works from a checkout.

import { basename } from 'node:path';
import { runTool } from './tool-entry.mjs';

const TOOLS = new Set([
  'gs_startnode', 'gs_stopnode', 'gs_stat', 'store-node', 'store-webapi', 'xlog-truncate',
  'gs_adduser', 'gs_deluser', 'gs_passwd', 'gs_checkpoint',
  'gs_export', 'gs_import',
  'gs_logconf', 'gs_logs',
  'gs_joincluster', 'gs_leavecluster', 'gs_stopcluster', 'gs_config', 'gs_partition',
  'gs_paramconf', 'gs_sh',
  'gs_backup', 'gs_backuplist', 'gs_restore',
]);
const name = basename(process.argv[1] ?? '').replace(/\.m?js$/, '');
if (!TOOLS.has(name)) {
  console.error(`unknown command ${name}: one of ${[...TOOLS].join(', ')}`);
  process.exit(2);
}
await runTool(name);
