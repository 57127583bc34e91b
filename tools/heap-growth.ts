// How far the node's and the web API's JavaScript heaps may grow between full collections, set
// where each process starts (tools/store-node.ts, tools/store-webapi.ts), so that every launch
// (npm start, gs_startnode, the commands, the benchmarks) runs with it.
//
// V8 lets the old generation grow to up to 4× what survived the last mark-compact before it
// collects again. With a small live heap and steady garbage (the web API: 18 MB live) that is a
// saw-tooth of tens of MB in RSS, which a service watched for flat memory reads as growth. A fixed
// factor keeps the tooth small; the cost is more frequent (small, mostly concurrent) mark-compacts.
// heap_growing_percent is read at each collection, so it takes effect when set at start.

import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to (1 + this / 100) × its live size before a full collection. */
export const HEAP_GROWING_PERCENT = 25;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
