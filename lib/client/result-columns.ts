// One object per distinct list of result columns, in a client process. A query's reply carries
// its columns, decoded into new objects each time, and the row codec of a result is made per
// schema object (lib/encoding/row-codec.ts caches by object): so every query made a codec of its
// own, about 9 µs of a one-row aggregate's 160 µs through the embedded web API (a CPU profile
// under perf/webapi-latency.ts). Lists equal in every field the codec reads (name, type, array, NOT
// NULL, time precision) are now one frozen list, so its schema (resultSchemaOf) and codec are
// made once. At most CLIENT_RESULT_COLUMNS_KEPT_MAX lists; the least recently used goes.

import { CLIENT_RESULT_COLUMNS_KEPT_MAX } from '../base/limits.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';

export class ResultColumnsCache {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly lists = new Map<string, readonly ColumnSchema[]>();

  constructor(private readonly sizeMax = CLIENT_RESULT_COLUMNS_KEPT_MAX) {}

  get size(): number {
    return this.lists.size;
  }

  /** The kept list equal to `columns` (frozen, columns too), or `columns` kept from now on. */
  intern(columns: readonly ColumnSchema[]): readonly ColumnSchema[] {
    const key = keyOf(columns);
    const kept = this.lists.get(key);
    if (kept !== undefined) {
      this.lists.delete(key);
      this.lists.set(key, kept);
      return kept;
    }
    if (this.lists.size >= this.sizeMax) this.lists.delete(this.lists.keys().next().value!);
    for (const column of columns) Object.freeze(column);
    const list = Object.freeze(columns);
    this.lists.set(key, list);
    return list;
  }
}

/** Every field of a column (the name's length first), so lists of one key are equal. */
function keyOf(columns: readonly ColumnSchema[]): string {
  let key = '';
  for (const column of columns) {
    key += `${column.name.length}:${column.name}\u0000${column.type}\u0000` +
      `${column.array ? 1 : 0}${column.notNull ? 1 : 0}${column.timePrecision ?? ''}\u0001`;
  }
  return key;
}

/** The process's cache: a column list is only read, so one serves every connection. */
export const resultColumnsCache = new ResultColumnsCache();
