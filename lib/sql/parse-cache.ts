// Parsed SQL statements kept for reuse: a statement sent again (a dashboard's query every few
// seconds, an application's `?` statement with new parameters) is lexed and parsed once per
// process, not once per run, and not again by each layer of the node that looks at it (the access
// check, the routing of a statement to its engine thread, the run itself).
//
// An entry is keyed by the text alone, as written, because a parse reads nothing else: no schema,
// no view, no setting, no parameter value. What does depend on the catalog (view expansion, name
// resolution, types, plans) is done afresh by every run from the kept syntax tree, so DDL has
// nothing here to invalidate. The tree is shared by every run of the text, so a kept tree is
// frozen, all the way down: a run that wrote into it would change the next run's statement, and
// now throws instead (lib/sql/ast*.ts declare every field readonly already).
//
// Not kept: failures (thrown each time, so each caller gets its own error) and texts longer than
// SQL_PARSED_CACHE_TEXT_LENGTH_MAX (a bulk INSERT … VALUES is rarely sent twice). At most
// SQL_PARSED_CACHE_SIZE entries, the least recently used going first.

import { assert } from '../base/assert.ts';
import { SQL_PARSED_CACHE_SIZE, SQL_PARSED_CACHE_TEXT_LENGTH_MAX } from '../base/limits.ts';
import { parseSqlStatement, type SqlParsedStatement } from './parser.ts';

export class SqlParsedCache {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, SqlParsedStatement>();
  private hitCount = 0;

  constructor(private readonly sizeMax = SQL_PARSED_CACHE_SIZE) {
    assert(sizeMax >= 1);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Parses found in the cache so far (tests). */
  get hits(): number {
    return this.hitCount;
  }

  /** parseSqlStatement(text), from the cache when it may be. */
  parse(text: string): SqlParsedStatement {
    if (text.length > SQL_PARSED_CACHE_TEXT_LENGTH_MAX) return parseSqlStatement(text);
    const kept = this.entries.get(text);
    if (kept !== undefined) {
      this.hitCount++;
      this.entries.delete(text);
      this.entries.set(text, kept);
      return kept;
    }
    const parsed = deepFreeze(parseSqlStatement(text));
    if (this.entries.size >= this.sizeMax) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(text, parsed);
    assert(this.entries.size <= this.sizeMax);
    return parsed;
  }
}

function deepFreeze<T>(value: T): T {
  // A typed array (a BLOB literal's bytes) cannot be frozen; nothing writes into one either.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) {
    return value;
  }
  Object.freeze(value);
  for (const field of Object.values(value)) deepFreeze(field);
  return value;
}

/** The process's cache: a parse depends on the text only, so one serves every store and database. */
export const sqlParsedCache = new SqlParsedCache();

/** One statement's syntax tree, parsed once per distinct text (see above). */
export function parseSqlStatementCached(text: string): SqlParsedStatement {
  return sqlParsedCache.parse(text);
}
