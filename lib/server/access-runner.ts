// The privilege check of every request, in front of the engine (lib/access/access-check.ts):
// a RequestRunner that knows who each connection logged in as, answers the access catalog's
// statements itself (CREATE/DROP USER/DATABASE, SET PASSWORD, GRANT, REVOKE, on the node's
// main thread, where the catalog lives), refuses what the user may not do with
// TXN_DB_ACCESS_INVALID, and passes everything else on unchanged. The transaction server, the
// GridDB protocol and the PostgreSQL protocol all run their requests through it, so the web API,
// gs_sh and gs_export/gs_import, which are clients of those, are checked here too.
//
// It also tells the engine which database each connection works in (ConnectionSetup.databaseId,
// lib/schema/database-names.ts), and refuses DROP DATABASE while the database still has
// containers, as GridDB does (NoSQLStore::dropDatabase: SQL_DDL_DATABASE_NOT_EMPTY): it asks the
// engine through a connection of its own in that database for one container name.

import { StorageError, isStorageError } from '../base/errors.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import type { Principal } from '../access/access-catalog.ts';
import {
  accessCheck, messageOperation, sqlStatementOperation, type AccessOperation,
} from '../access/access-check.ts';
import type { AccessControl, AccessStatement } from '../access/access-control.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { FRAME_HEADER_BYTES, FrameStatus, encodeFrame } from '../protocol/frame.ts';
import { CONTAINER_LIST } from '../protocol/messages-container.ts';
import { errorDecode } from '../protocol/wire-error.ts';
import { decodeBody } from '../protocol/message-codec.ts';
import { MessageType } from '../protocol/message-types.ts';
import { SQL_EXECUTE } from '../protocol/messages-sql.ts';
import { parseSqlStatementCached } from '../sql/parse-cache.ts';
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

/**
 * The runner connections this runner opens itself (the DROP DATABASE check) count down from -1,
 * apart from the servers' own, which count up from 1.
 */
let probeConnectionIdLast = 0;

export class AccessRunner implements RequestRunner {
  private readonly principals = new Map<number, Principal>();

  constructor(private readonly inner: RequestRunner, private readonly access: AccessControl) {}

  get info(): EngineInfo {
    return this.inner.info;
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    if (setup.principal === undefined) {
      this.inner.connectionOpened(connectionId, setup);
      return;
    }
    this.principals.set(connectionId, setup.principal);
    this.inner.connectionOpened(connectionId,
      { ...setup, databaseId: this.access.databaseIdOf(setup.principal) });
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
      statement = parseSqlStatementCached(sql).statement;
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
      if (statement.kind === 'dropDatabase') await this.dropDatabaseCheck(statement.name.text, principal);
      await this.access.run(statement, principal);
    } catch (error) {
      if (!isStorageError(error)) throw error;
      return { bytes: errorFrame(frame, error) };
    }
    return { bytes: encodeFrame(replyHeader(frame),
      (writer) => SQL_EXECUTE.writeReply(writer, { resultSetId: 0, updateCount: 0 }),
      PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX) };
  }

  /**
   * GridDB's order: who may drop and whether the database exists first (the catalog's own
   * checks, run on the catalog in force without changing it), then whether it is empty. A
   * container created between this check and the drop is left in an id no database has again.
   */
  private async dropDatabaseCheck(name: string, principal: Principal): Promise<void> {
    this.access.catalog.dropDatabase(principal, name);
    const database = this.access.catalog.database(name);
    if (database === undefined) return;
    const connectionId = --probeConnectionIdLast;
    this.inner.connectionOpened(connectionId, {
      clientKey: `access-runner/${connectionId}`, transactionTimeoutMs: DROP_DATABASE_CHECK_TIMEOUT_MS,
      databaseId: database.id,
    });
    try {
      const writer = new ByteWriter(16);
      CONTAINER_LIST.writeRequest(writer, { offset: 0, limit: 1 });
      const outcome = await this.inner.run(connectionId,
        { messageType: CONTAINER_LIST.type, requestId: 1, body: writer.finish() });
      const body = outcome.bytes.subarray(FRAME_HEADER_BYTES);
      if (outcome.bytes[FRAME_STATUS_OFFSET] === FrameStatus.ERROR) throw errorDecode(body);
      const { total } = decodeBody(body, CONTAINER_LIST.readReply, 'CONTAINER_LIST reply');
      if (total > 0) {
        throw new StorageError('SQL_DDL_DATABASE_NOT_EMPTY', `DROP DATABASE ${database.name}: ` +
          `it still has ${total} container${total === 1 ? '' : 's'}; drop them first`);
      }
    } finally {
      this.inner.connectionClosed(connectionId);
    }
  }
}

/** The check's connection waits for no transaction; it only lists names. */
const DROP_DATABASE_CHECK_TIMEOUT_MS = 1_000;
/** The status byte of a frame: | length u32 | magic u16 | version u8 | type u8 | status u8 | … */
const FRAME_STATUS_OFFSET = 8;
