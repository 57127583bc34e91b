// The slow-query log (GridDB's `/sql/traceLimitExecutionTime`, 300 s by default, and
// `/sql/traceLimitQuerySize`, 1000 bytes): a query handler around another that times each query's
// execution, up to its first page of rows, and reports those that took the threshold or longer,
// with their text cut to the size limit. The node writes each report to its event log
// (sqlService, WARNING, `slow query`), where gs_logs --slowlogs finds them. Bounded: one report
// a query, of at most textBytesMax bytes of text.

import { assert } from '../base/assert.ts';
import type { QueryHandler } from './query-handler.ts';

export interface SlowQueryRecord {
  containerName: string;
  /** The query text, cut to textBytesMax bytes of UTF-8 (at a character's end). */
  query: string;
  executionTimeMs: number;
}

export interface SlowQueryOptions {
  thresholdMs: number;
  textBytesMax: number;
  monotonicMs: () => number;
  onSlow: (record: SlowQueryRecord) => void;
}

export function slowQueryHandler(inner: QueryHandler, options: SlowQueryOptions): QueryHandler {
  assert(options.thresholdMs >= 0);
  assert(options.textBytesMax >= 0);
  return async (request) => {
    const startMs = options.monotonicMs();
    const result = await inner(request);
    const executionTimeMs = options.monotonicMs() - startMs;
    if (executionTimeMs >= options.thresholdMs) {
      options.onSlow({
        containerName: request.containerName,
        query: cutToBytes(request.tql, options.textBytesMax),
        executionTimeMs: Math.round(executionTimeMs),
      });
    }
    return result;
  };
}

/** The longest prefix of `text` of at most `bytesMax` bytes of UTF-8. */
export function cutToBytes(text: string, bytesMax: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= bytesMax) return text;
  let end = 0;
  let bytes = 0;
  for (const character of text) {
    const size = encoder.encode(character).length;
    if (bytes + size > bytesMax) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end);
}
