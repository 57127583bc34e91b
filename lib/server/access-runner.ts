// The privilege check of every request, in front of the engine (lib/access/access-check.ts):
// a RequestRunner that knows who each connection logged in as, answers the access catalog's
// statements itself (CREATE/DROP USER/DATABASE, SET PASSWORD, GRANT, REVOKE, on the node's
// main thread, where the catalog lives), refuses what the user may not do with
// TXN_DB_ACCESS_INVALID, and passes everything else on unchanged. The transaction server, the
// GridDB protocol and the PostgreSQL protocol all run their requests through it, so the web API,
// gs_sh and gs_export/gs_import, which are clients of those, are checked here too.

import { isStorageError } from '../base/errors.ts';
import type { Principal } from '../access/access-catalog.ts';
import {
  accessCheck, messageOperation, sqlStatementOperation, type AccessOperation,
} from '../access/access-check.ts';
import type { AccessControl, AccessStatement } from '../access/access-control.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { encodeFrame } from '../protocol/frame.ts';
import { decodeBody } from '../protocol/message-codec.ts';
import { MessageType } from '../protocol/message-types.ts';
import { SQL_EXECUTE } from '../protocol/messages-sql.ts';
import { parseSqlStatement } from '../sql/parser.ts';
import { errorFrame, replyHeader, type RequestFrame } from './reply-frames.ts';
import type { ConnectionSetup, EngineInfo, RequestRunner, RunOutcome } from './request-runner.ts';

/**
 * Statements that may be the access catalog's: for a user who may do anything else, only these
 * are parsed here (the engine parses every statement again).
 */
const ACCESS_STATEMENT_START =
  /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:CREATE|DROP|GRANT|REVOKE|SET)\b/i;

type SqlVerdict =
  | { kind: 'operation'; operation: AccessOperation | undefined }
  | { kind: 'access'; statement: AccessStatement };

export class AccessRunner implements RequestRunner {
  private readonly principals = new Map<number, Principal>();

  constructor(private readonly inner: RequestRunner, private readonly access: AccessControl) {}

  get info(): EngineInfo {
    return this.inner.info;
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    if (setup.principal !== undefined) this.principals.set(connectionId, setup.principal);
    this.inner.connectionOpened(connectionId, setup);
  }

  connectionClosed(connectionId: number): void {
    this.principals.delete(connectionId);
    this.inner.connectionClosed(connectionId);
  }

  async run(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const principal = this.principals.get(connectionId);
    if (principal === undefined) return this.inner.run(connectionId, frame);
    let operation = messageOperation(frame.messageType);
    if (frame.messageType === MessageType.SQL_EXECUTE) {
      const verdict = this.sqlVerdict(principal, frame);
      if (verdict.kind === 'access') {
        return this.runAccessStatement(frame, verdict.statement, principal);
      }
      operation = verdict.operation;
    }
    if (operation !== undefined) {
      try {
        accessCheck(this.access.catalog, principal, operation);
      } catch (error) {
        if (!isStorageError(error)) throw error;
        return { bytes: errorFrame(frame, error) };
      }
    }
    return this.inner.run(connectionId, frame);
  }

  /** What an SQL statement does; one that does not parse goes on, for the engine's syntax error. */
  private sqlVerdict(principal: Principal, frame: RequestFrame): SqlVerdict {
    let sql: string;
    try {
      sql = decodeBody(frame.body, SQL_EXECUTE.readRequest, 'SQL_EXECUTE request').sql;
    } catch {
      return { kind: 'operation', operation: undefined };
    }
    const mayDoAll = principal.admin || principal.database.toLowerCase() === 'public';
    if (mayDoAll && !ACCESS_STATEMENT_START.test(sql)) {
      return { kind: 'operation', operation: undefined };
    }
    let statement;
    try {
      statement = parseSqlStatement(sql).statement;
    } catch {
      return { kind: 'operation', operation: undefined };
    }
    const operation = sqlStatementOperation(statement);
    return operation === 'access'
      ? { kind: 'access', statement: statement as AccessStatement }
      : { kind: 'operation', operation };
  }

  private async runAccessStatement(frame: RequestFrame, statement: AccessStatement,
    principal: Principal): Promise<RunOutcome> {
    try {
      await this.access.run(statement, principal);
    } catch (error) {
      if (!isStorageError(error)) throw error;
      return { bytes: errorFrame(frame, error) };
    }
    return { bytes: encodeFrame(replyHeader(frame),
      (writer) => SQL_EXECUTE.writeReply(writer, { resultSetId: 0, updateCount: 0 }),
      PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX) };
  }
}
