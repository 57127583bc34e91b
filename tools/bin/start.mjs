#!/usr/bin/env node
// `npm start`: tools/start.ts, as compiled JavaScript when dist/ is up to date, else from source
// (tools/bin/tool-entry.mjs decides and says so).

import { runTool } from './tool-entry.mjs';

await runTool('start');
