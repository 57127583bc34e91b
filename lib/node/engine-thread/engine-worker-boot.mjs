// The entry of the engine thread. A worker does not inherit the TypeScript loader of the main
// thread (tsx, registered by `node --import tsx` or tools/bin/launch.mjs), so it registers the
// loader itself before importing the engine's TypeScript.

import { register } from 'tsx/esm/api';

register();
await import('./engine-worker.ts');
