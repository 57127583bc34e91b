// The node's own list of what "#sqls" and "#sockets" show: the SQL statements running now and the
// authenticated client connections. A statement is listed from when it starts until its last row
// is fetched, its result is closed, or it fails. Both lists are bounded (SQL_RUNNING_STATEMENT_COUNT_MAX;
// connections by the server's own connection limit): past the bound the oldest statement is
// no longer listed, it still runs (and can no longer be cancelled by id). Times come from the
// caller's clock (no I/O here).
//
// Query ids have GridDB's shape `<uuid>:<n>` (gs_sh's `killsql 5b9662c0-…:1`): the uuid is this
// registry's (one per engine thread, so ids stay unique across a node's threads), n counts its
// statements. Cancelling (by id, or every statement of a connection when it closes) marks the
// statement: it ends with SQL_CANCELLED at its next batch boundary, and its hook lets go of
// what it holds between fetches at once.

import { assert } from '../../base/assert.ts';
import { SQL_RUNNING_STATEMENT_COUNT_MAX, SQL_RUNNING_TEXT_LENGTH_MAX } from '../../base/limits.ts';
import type { SqlNodeActivity, SqlNodeSocket, SqlRunningStatement } from './metatables.ts';
import type { SqlDialect } from '../plan/bind-expression.ts';

/** A connection's two ends as `host:port`, and who is on it. */
export interface SqlConnectionInfo {
  readonly localAddress: string;
  readonly remoteAddress: string;
  readonly applicationName: string;
  readonly user: string;
  /** `postgres` for a connection of the PostgreSQL protocol: its statements run in that dialect. */
  readonly dialect?: SqlDialect;
}

/** A statement as its runner holds it: its id, whether it was cancelled, and its end. */
export interface SqlListedStatement {
  readonly queryId: string;
  cancelled(): boolean;
  /** Called once when the statement is cancelled (at once if it already was). */
  onCancel(hook: () => void): void;
  /** Takes it off the list; a second call does nothing. */
  done(): void;
}

interface Listed {
  readonly row: SqlRunningStatement;
  readonly connectionId: number | undefined;
  cancelled: boolean;
  hook: (() => void) | undefined;
}

export class SqlNodeActivityRegistry implements SqlNodeActivity {
  private readonly statements = new Map<string, Listed>();
  private readonly connections = new Map<number, SqlNodeSocket>();
  private nextQueryNumber = 1;

  /** `idPrefix`: the uuid the query ids of this registry start with. */
  constructor(private readonly nowMs: () => number, private readonly idPrefix = '') {}

  connectionOpened(connectionId: number, info: SqlConnectionInfo): void {
    const local = splitAddress(info.localAddress);
    const remote = splitAddress(info.remoteAddress);
    this.connections.set(connectionId, {
      nodeAddress: local.host, nodePort: local.port, remoteAddress: remote.host, remotePort: remote.port,
      applicationName: info.applicationName, creationTimeMs: this.nowMs(),
    });
  }

  connectionClosed(connectionId: number): void {
    this.connections.delete(connectionId);
  }

  /** Lists a statement as running, run for the connection `connectionId` when it has one. */
  statementStarted(sql: string, info: SqlConnectionInfo, connectionId?: number): SqlListedStatement {
    const number = this.nextQueryNumber++;
    const queryId = this.idPrefix === '' ? String(number) : `${this.idPrefix}:${number}`;
    const local = splitAddress(info.localAddress);
    if (this.statements.size >= SQL_RUNNING_STATEMENT_COUNT_MAX) {
      // Maps keep insertion order: the first key is the oldest statement.
      this.statements.delete(this.statements.keys().next().value!);
    }
    const listed: Listed = {
      row: {
        queryId, startTimeMs: this.nowMs(), applicationName: info.applicationName, user: info.user,
        sql: sql.length > SQL_RUNNING_TEXT_LENGTH_MAX ? sql.slice(0, SQL_RUNNING_TEXT_LENGTH_MAX) : sql,
        nodeAddress: local.host, nodePort: local.port,
      },
      connectionId, cancelled: false, hook: undefined,
    };
    this.statements.set(queryId, listed);
    assert(this.statements.size <= SQL_RUNNING_STATEMENT_COUNT_MAX);
    return {
      queryId,
      cancelled: () => listed.cancelled,
      onCancel: (hook) => {
        assert(listed.hook === undefined);
        listed.hook = hook;
        if (listed.cancelled) hook();
      },
      done: () => {
        if (this.statements.get(queryId) === listed) this.statements.delete(queryId);
      },
    };
  }

  /** Cancels the statement of `queryId`; false when none by that id is listed here. */
  cancel(queryId: string): boolean {
    const listed = this.statements.get(queryId);
    if (listed === undefined) return false;
    cancelListedOnce(listed);
    return true;
  }

  /**
   * Cancels every statement of a connection (it closed: none runs on for nobody; or its
   * PostgreSQL client sent a CancelRequest); false when it ran none here.
   */
  cancelConnection(connectionId: number): boolean {
    let found = false;
    for (const listed of [...this.statements.values()]) {
      if (listed.connectionId !== connectionId) continue;
      cancelListedOnce(listed);
      found = true;
    }
    return found;
  }

  runningStatements(): readonly SqlRunningStatement[] {
    return [...this.statements.values()].map((listed) => listed.row);
  }

  sockets(): readonly SqlNodeSocket[] {
    return [...this.connections.values()];
  }
}

/** Marks it cancelled and runs its hook once; it stays listed until it ends. */
function cancelListedOnce(listed: Listed): void {
  if (listed.cancelled) return;
  listed.cancelled = true;
  listed.hook?.();
}

/** `host:port` (IPv6 hosts keep their colons); a port that is not a number reads as 0. */
function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  if (at < 0) return { host: address, port: 0 };
  const port = Number(address.slice(at + 1));
  return { host: address.slice(0, at), port: Number.isInteger(port) ? port : 0 };
}
