// The engine model: what the store must answer, as plain Maps and arrays.
//
// Committed rows per container; per session, which container handles are in manual mode and each
// open transaction's private changes (READ_COMMITTED: a session sees the committed rows with its
// own changes laid over them; other sessions see only committed rows). A keyless collection's
// rows keep their commit order (rowId order); a transaction's appends go after every committed row.

import type { Row, RowKey } from '../../lib/schema/column-type.ts';
import {
  compareKeys, keyOfRow, keyString, SCHEMA_KINDS, SCHEMAS, type SchemaKind, type SchemaSpec,
} from './engine-model-schemas.ts';

export const SESSION_COUNT = 3;
/**
 * Session 0 starts with every container handle in manual mode, so runs spend much of their time
 * inside transactions (the store's and the model's session 0 both start so after every restart).
 */
export const MANUAL_SESSION_INDEX = 0;

export interface ModelContainer {
  /** The spelling the container was created with. */
  name: string;
  /** Keyed containers: key string → row. */
  rows: Map<string, Row>;
  /** Keyless collection: rows in rowId order. */
  appended: Row[];
}

export interface ModelTransaction {
  /** Key string → the row put, or null for a remove; the last change of each key. */
  writes: Map<string, Row | null>;
  appends: Row[];
}

export interface ModelSession {
  manual: Set<SchemaKind>;
  transactions: Map<SchemaKind, ModelTransaction>;
}

export interface ModelScan {
  from?: RowKey;
  to?: RowKey;
  direction: 'asc' | 'desc';
  limit?: number;
}

export class EngineModel {
  readonly containers = new Map<SchemaKind, ModelContainer>();
  sessions: ModelSession[] = newSessions();

  /** The store restarted (cleanly or not): committed rows stay, sessions and transactions go. */
  restart(): void {
    this.sessions = newSessions();
  }

  closeSession(index: number): void {
    this.sessions[index] = newSession(index);
  }

  isManual(sessionIndex: number, kind: SchemaKind): boolean {
    return this.sessions[sessionIndex]!.manual.has(kind);
  }

  /** A transaction with changes: it holds row locks (or an append intent) on the container. */
  hasPendingWrites(sessionIndex: number, kind: SchemaKind): boolean {
    const txn = this.sessions[sessionIndex]!.transactions.get(kind);
    return txn !== undefined && txn.writes.size + txn.appends.length > 0;
  }

  anyPendingWrites(kind: SchemaKind): boolean {
    return this.sessions.some((_, index) => this.hasPendingWrites(index, kind));
  }

  /** Would a write of these keys by this session (undefined: a new one) wait for a row lock? */
  keysLockedByOthers(
    sessionIndex: number | undefined,
    kind: SchemaKind,
    keys: readonly RowKey[],
  ): boolean {
    return this.sessions.some((session, index) => {
      if (index === sessionIndex) return false;
      const writes = session.transactions.get(kind)?.writes;
      return writes !== undefined && keys.some((key) => writes.has(keyString(key)));
    });
  }

  // ---- reads, as one session sees them ---------------------------------------------------------

  /** Rows the session sees (undefined: committed rows), in ascending key (or rowId) order. */
  visibleRows(sessionIndex: number | undefined, kind: SchemaKind): Row[] {
    const container = this.containers.get(kind);
    if (container === undefined) return [];
    const txn = sessionIndex === undefined
      ? undefined
      : this.sessions[sessionIndex]!.transactions.get(kind);
    const spec = SCHEMAS[kind];
    if (!spec.keyed) return [...container.appended, ...(txn?.appends ?? [])];
    const rows = new Map(container.rows);
    for (const [key, row] of txn?.writes ?? []) {
      if (row === null) rows.delete(key);
      else rows.set(key, row);
    }
    return [...rows.values()].sort((a, b) => compareKeys(keyOfRow(spec, a), keyOfRow(spec, b)));
  }

  get(sessionIndex: number, kind: SchemaKind, key: RowKey): Row | undefined {
    const spec = SCHEMAS[kind];
    return this.visibleRows(sessionIndex, kind)
      .find((row) => compareKeys(keyOfRow(spec, row), key) === 0);
  }

  scan(sessionIndex: number | undefined, kind: SchemaKind, range: ModelScan): Row[] {
    const spec = SCHEMAS[kind];
    let rows = this.visibleRows(sessionIndex, kind).filter((row) => inRange(spec, row, range));
    if (range.direction === 'desc') rows = rows.reverse();
    return range.limit === undefined ? rows : rows.slice(0, range.limit);
  }

  // ---- writes ----------------------------------------------------------------------------------

  put(sessionIndex: number, kind: SchemaKind, rows: readonly Row[]): void {
    const spec = SCHEMAS[kind];
    const txn = this.writeTarget(sessionIndex, kind);
    for (const row of rows) {
      if (!spec.keyed) txn.appends.push(row);
      else txn.writes.set(keyString(keyOfRow(spec, row)), row);
    }
    if (!this.isManual(sessionIndex, kind)) this.apply(kind, txn);
  }

  /** Returns whether the row existed, as the session saw it. */
  remove(sessionIndex: number, kind: SchemaKind, key: RowKey): boolean {
    const existed = this.get(sessionIndex, kind, key) !== undefined;
    const txn = this.writeTarget(sessionIndex, kind);
    txn.writes.set(keyString(key), null);
    if (!this.isManual(sessionIndex, kind)) this.apply(kind, txn);
    return existed;
  }

  commit(sessionIndex: number, kind: SchemaKind): void {
    const session = this.sessions[sessionIndex]!;
    const txn = session.transactions.get(kind);
    session.transactions.delete(kind);
    if (txn !== undefined && this.containers.has(kind)) this.apply(kind, txn);
  }

  abort(sessionIndex: number, kind: SchemaKind): void {
    this.sessions[sessionIndex]!.transactions.delete(kind);
  }

  setAutoCommit(sessionIndex: number, kind: SchemaKind, enabled: boolean): void {
    const session = this.sessions[sessionIndex]!;
    if (enabled) {
      this.commit(sessionIndex, kind);
      session.manual.delete(kind);
    } else {
      session.manual.add(kind);
    }
  }

  create(kind: SchemaKind, name: string): void {
    if (this.containers.has(kind)) return;
    this.containers.set(kind, { name, rows: new Map(), appended: [] });
  }

  drop(kind: SchemaKind): boolean {
    return this.containers.delete(kind);
  }

  containerNames(): string[] {
    const names = [...this.containers.values()].map((container) => container.name);
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  committedCount(kind: SchemaKind): number {
    const container = this.containers.get(kind);
    if (container === undefined) return 0;
    return SCHEMAS[kind].keyed ? container.rows.size : container.appended.length;
  }

  /** The committed rows of `kind` as they would be after `rows` were put in one auto-commit. */
  withCommitted(kind: SchemaKind, rows: readonly Row[]): Row[] {
    const probe = new EngineModel();
    const container = this.containers.get(kind)!;
    probe.containers.set(kind, {
      name: container.name, rows: new Map(container.rows), appended: [...container.appended],
    });
    probe.put(0, kind, rows); // session 0 of a new model is in auto-commit mode
    return probe.visibleRows(0, kind);
  }

  /** Replaces the committed rows of `kind` (after a crash decided an in-flight commit). */
  setCommitted(kind: SchemaKind, rows: readonly Row[]): void {
    const spec = SCHEMAS[kind];
    const container = this.containers.get(kind)!;
    if (!spec.keyed) {
      container.appended = [...rows];
      return;
    }
    container.rows = new Map(rows.map((row) => [keyString(keyOfRow(spec, row)), row]));
  }

  private writeTarget(sessionIndex: number, kind: SchemaKind): ModelTransaction {
    const session = this.sessions[sessionIndex]!;
    if (!this.isManual(sessionIndex, kind)) return { writes: new Map(), appends: [] };
    let txn = session.transactions.get(kind);
    if (txn === undefined) {
      txn = { writes: new Map(), appends: [] };
      session.transactions.set(kind, txn);
    }
    return txn;
  }

  private apply(kind: SchemaKind, txn: ModelTransaction): void {
    const container = this.containers.get(kind)!;
    for (const [key, row] of txn.writes) {
      if (row === null) container.rows.delete(key);
      else container.rows.set(key, row);
    }
    container.appended.push(...txn.appends);
  }
}

function inRange(spec: SchemaSpec, row: Row, range: ModelScan): boolean {
  if (!spec.keyed) return true;
  const key = keyOfRow(spec, row);
  if (range.from !== undefined && compareKeys(key, range.from) < 0) return false;
  if (range.to !== undefined && compareKeys(key, range.to) > 0) return false;
  return true;
}

function newSession(index: number): ModelSession {
  const manual = new Set<SchemaKind>(index === MANUAL_SESSION_INDEX ? SCHEMA_KINDS : []);
  return { manual, transactions: new Map() };
}

function newSessions(): ModelSession[] {
  return Array.from({ length: SESSION_COUNT }, (_, index) => newSession(index));
}
