// Prepared TQL statements kept for reuse: a statement run again on the same container (a
// dashboard's query every few seconds, the web API's statements) is parsed, bound and planned
// once. Half of a small query's time on the node was prepareTql.
//
// An entry is keyed by the container's schema object and the statement's text, as written. The
// catalog gives a container a new schema object whenever its schema changes (a column added or
// renamed, the container dropped and made again), so a statement prepared for an older schema is
// never found for a newer one: it is simply not hit again and ages out. A prepared statement is
// only read by executions (each keeps its own state), so one serves any number of them.
//
// Below it, the parsed statements are kept by text alone (a parse does not depend on the
// container): the web API's statement sent to each of 100 host containers of one schema, whose
// preparations are 100 entries, is parsed once. A parsed statement is frozen (every object of
// it), as binding only reads it. Parsing was about a third of a small statement's preparation
// (3.4 of 9 µs, best of three runs of 20,000).
//
// Not kept: statements that read NOW() (bound to the time of their own run: every text with "now"
// in it, whatever the case, is prepared afresh, a container or column named so included),
// EXPLAIN (it reports the preparation), failures (thrown each time), and texts longer than
// TQL_PREPARED_CACHE_TEXT_LENGTH_MAX. At most TQL_PREPARED_CACHE_SIZE entries, the least
// recently used going first.

import {
  TQL_PARSED_CACHE_SIZE, TQL_PREPARED_CACHE_SIZE, TQL_PREPARED_CACHE_TEXT_LENGTH_MAX,
} from '../../base/limits.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import type { TqlStatement } from './ast.ts';
import { parseTql } from './parser.ts';
import { prepareTql, type PrepareOptions, type PreparedTql } from './prepare.ts';

const READS_NOW = /now/i;

export class PreparedTqlCache {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, PreparedTql>();
  /** Parsed statements by text, in use order as `entries`. */
  private readonly parsed = new Map<string, TqlStatement>();
  /** A number per schema object met, for the keys; let go with the schema. */
  private readonly schemaIds = new WeakMap<ContainerSchema, number>();
  private nextSchemaId = 0;

  constructor(
    private readonly sizeMax = TQL_PREPARED_CACHE_SIZE,
    private readonly parsedSizeMax = TQL_PARSED_CACHE_SIZE,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get parsedSize(): number {
    return this.parsed.size;
  }

  /** prepareTql(text, schema, options), from the cache when it may be. */
  prepare(text: string, schema: ContainerSchema, options: PrepareOptions): PreparedTql {
    if (text.length > TQL_PREPARED_CACHE_TEXT_LENGTH_MAX || READS_NOW.test(text)) {
      return prepareTql(text, schema, options);
    }
    const key = `${this.schemaIdOf(schema)}:${text}`;
    const kept = this.entries.get(key);
    if (kept !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const prepared = prepareTql(text, schema, options, this.parsedOf(text));
    if (prepared.explain !== undefined) return prepared;
    if (this.entries.size >= this.sizeMax) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, prepared);
    return prepared;
  }

  /** parseTql(text), kept; a text that does not parse throws each time. */
  private parsedOf(text: string): TqlStatement {
    const kept = this.parsed.get(text);
    if (kept !== undefined) {
      this.parsed.delete(text);
      this.parsed.set(text, kept);
      return kept;
    }
    const statement = deepFreeze(parseTql(text));
    if (this.parsed.size >= this.parsedSizeMax) {
      this.parsed.delete(this.parsed.keys().next().value!);
    }
    this.parsed.set(text, statement);
    return statement;
  }

  private schemaIdOf(schema: ContainerSchema): number {
    let id = this.schemaIds.get(schema);
    if (id === undefined) {
      id = this.nextSchemaId++;
      this.schemaIds.set(schema, id);
    }
    return id;
  }
}

/**
 * `value` and every object reachable from it, frozen: a shared statement cannot change. A BLOB
 * literal's bytes (a Uint8Array) cannot be frozen (Object.freeze throws on a view with elements):
 * they are left as they are, only ever read by the binder and the evaluator.
 */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) ||
    ArrayBuffer.isView(value)) {
    return value;
  }
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}

/** The process's cache: schema objects are never shared between stores, so one serves all. */
export const preparedTqlCache = new PreparedTqlCache();
