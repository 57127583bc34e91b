// The entry of the engine/thread workload's worker. A worker thread does not inherit the
// TypeScript loader the main thread got from `node --import tsx`, so it registers tsx's loader
// itself before importing the worker's TypeScript.

import { register } from 'tsx/esm/api';

register();
await import('./engine-worker.ts');
