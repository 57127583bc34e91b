// The entry of gs_export's print thread when it runs from source: a worker does not inherit the
// TypeScript loader of the main thread (tsx), so it registers it before importing the thread.
// Compiled (dist/), expimp-print-thread.ts starts expimp-print-worker.js directly.

import { register } from 'tsx/esm/api';

register();
await import('./expimp-print-worker.ts');
