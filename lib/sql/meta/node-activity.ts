// The node's own list of what "#sqls" and "#sockets" show: the SQL statements running now and the
// authenticated client connections. A statement is listed from when it starts until its last row
// is fetched, its result is closed, or it fails. Both lists are bounded (SQL_RUNNING_STATEMENT_COUNT_MAX;
// connections by the server's own connection limit): past the bound the oldest statement is
// no longer listed, it still runs. Times come from the caller's clock (no I/O here).

import { assert } from '../../base/assert.ts';
import { SQL_RUNNING_STATEMENT_COUNT_MAX, SQL_RUNNING_TEXT_LENGTH_MAX } from '../../base/limits.ts';
import type { SqlNodeActivity, SqlNodeSocket, SqlRunningStatement } from './metatables.ts';

/** A connection's two ends as `host:port`, and who is on it. */
export interface SqlConnectionInfo {
  readonly localAddress: string;
  readonly remoteAddress: string;
  readonly applicationName: string;
  readonly user: string;
}

export class SqlNodeActivityRegistry implements SqlNodeActivity {
  private readonly statements = new Map<string, SqlRunningStatement>();
  private readonly connections = new Map<number, SqlNodeSocket>();
  private nextQueryNumber = 1;

  constructor(private readonly nowMs: () => number) {}

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

  /** Lists a statement as running; the answer takes it off the list (a second call does nothing). */
  statementStarted(sql: string, info: SqlConnectionInfo): { readonly queryId: string; done(): void } {
    const queryId = String(this.nextQueryNumber++);
    const local = splitAddress(info.localAddress);
    if (this.statements.size >= SQL_RUNNING_STATEMENT_COUNT_MAX) {
      // Maps keep insertion order: the first key is the oldest statement.
      this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(queryId, {
      queryId, startTimeMs: this.nowMs(), applicationName: info.applicationName, user: info.user,
      sql: sql.length > SQL_RUNNING_TEXT_LENGTH_MAX ? sql.slice(0, SQL_RUNNING_TEXT_LENGTH_MAX) : sql,
      nodeAddress: local.host, nodePort: local.port,
    });
    assert(this.statements.size <= SQL_RUNNING_STATEMENT_COUNT_MAX);
    return { queryId, done: () => { this.statements.delete(queryId); } };
  }

  runningStatements(): readonly SqlRunningStatement[] {
    return [...this.statements.values()];
  }

  sockets(): readonly SqlNodeSocket[] {
    return [...this.connections.values()];
  }
}

/** `host:port` (IPv6 hosts keep their colons); a port that is not a number reads as 0. */
function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  if (at < 0) return { host: address, port: 0 };
  const port = Number(address.slice(at + 1));
  return { host: address.slice(0, at), port: Number.isInteger(port) ? port : 0 };
}
