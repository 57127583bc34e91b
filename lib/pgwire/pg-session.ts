// One PostgreSQL connection after authentication: the simple and the extended query protocol,
// prepared statements and portals, session settings (SET, SHOW) and the transaction status.
//
// Transactions: lib/sql runs each statement in auto-commit (one container's transaction per
// statement), and GridDB's SQL has no transaction over several statements. BEGIN opens a block
// in which reads run (status T); a change inside it would not be undone by ROLLBACK, so it is
// refused with 0A000 and the block is failed (status E) until COMMIT or ROLLBACK ends it.
//
// Cancel and timeouts: a CancelRequest reaches the engine (pg-connection.ts), which stops the
// statement after its current slice of work, its first page included; /sql/pgStatementTimeout is
// the engine's statement timeout (SQL_EXECUTE's timeoutMs). Either ends the statement with 57014,
// and both are also checked here between pages.

import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import { PG_PORTAL_COUNT_MAX, PG_PREPARED_STATEMENT_COUNT_MAX } from '../base/limits.ts';
import type { SqlTypedValue } from '../sql/plan/bind-expression.ts';
import {
  catalogQuery, isCatalogQuery, sessionFunctionQuery, type PgCatalogSource, type PgCatalogTable,
  type PgLocalResult,
} from './pg-catalog.ts';
import { copyOutQuery, PgCopyIn, writeCopyResponse, copyOut } from './pg-copy.ts';
import { parseCopyStatement } from './pg-copy-statement.ts';
import { PgError, pgError, pgErrorFieldsOf, type PgErrorFields } from './pg-errors.ts';
import { PgBodyReader, type PgBackendWriter } from './pg-frames.ts';
import { pgDataRowsBinaryFits, pgDataRowsBinaryOfWire } from './pg-data-rows-binary.ts';
import { pgDataRowsOfWire, pgDataRowsWireFits } from './pg-data-rows-wire.ts';
import {
  columnFormats, PG_PAGE_ROW_COUNT, startedOfLocal, startedOfSql, writeDataRows, writeRowDescription,
  type PgStarted,
} from './pg-results.ts';
import type { PgRowSource, PgSqlBackend } from './pg-sql-backend.ts';
import { firstWord, inlineParameters, rewriteParameters, splitStatements, type RewrittenStatement } from './pg-statement-text.ts';
import { PgOid, pgParameter } from './pg-types.ts';

export interface PgSessionHost {
  readonly backend: PgSqlBackend;
  readonly connectionId: number;
  readonly user: string;
  readonly statementTimeoutMs: number;
  readonly statementsPerQueryMax: number;
  readonly serverVersion: string;
  readonly out: PgBackendWriter;
  /** Sends what `out` holds, then `bytes` (not copied); waits while the socket has too much queued. */
  flush(bytes?: Buffer): Promise<void>;
  /** True once after a CancelRequest for this connection. */
  takeCancel(): boolean;
  monotonicMs(): number;
}

interface Prepared {
  text: string;
  rewritten: RewrittenStatement;
  parameterOids: number[];
}

interface Portal {
  prepared: Prepared;
  parameters: SqlTypedValue[];
  resultFormats: number[];
  started?: PgStarted;
  done: boolean;
  rowCount: number;
}

const CHANGE_WORDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'CREATE', 'DROP', 'ALTER', 'REPLACE',
  'GRANT', 'REVOKE']);

/**
 * A StorageError or a PgError is the statement's (the client's) error; anything else is a bug here
 * or the engine's failure (which the backend has reported for fail-stop): it ends the connection.
 */
function rethrowBug(error: unknown): void {
  if (!isStorageError(error) && !(error instanceof PgError)) throw error;
}

export class PgSession {
  private status: 'I' | 'T' | 'E' = 'I';
  private readonly prepared = new Map<string, Prepared>();
  private readonly portals = new Map<string, Portal>();
  /** After an error in the extended protocol: messages are skipped until Sync. */
  private skipping = false;
  /** A COPY FROM STDIN in progress, and the statements of its Query message after it. */
  private copyIn: PgCopyIn | undefined;
  private copyRest: string[] = [];
  /** After a failed COPY FROM: the client's CopyData, CopyDone and CopyFail are dropped. */
  private copyDiscarding = false;
  readonly settings = new Map<string, string>();

  constructor(private readonly host: PgSessionHost, startupSettings: Map<string, string>) {
    for (const [name, value] of startupSettings) this.settings.set(name, value);
  }

  get transactionStatus(): 'I' | 'T' | 'E' {
    return this.status;
  }

  /** One frontend message; resolves when it has been answered. Returns false for Terminate. */
  async message(type: number, body: Buffer): Promise<boolean> {
    const code = String.fromCharCode(type);
    if (code === 'X') return false;
    if (this.copyIn !== undefined) {
      await this.copyMessage(this.copyIn, code, body);
      return true;
    }
    if (this.copyDiscarding) {
      if (code === 'd' || code === 'c' || code === 'f') return true;
      this.copyDiscarding = false;
    }
    if (code === 'Q') {
      await this.simpleQuery(new PgBodyReader(body));
      return true;
    }
    if (code === 'S') {
      this.skipping = false;
      if (this.status === 'I') await this.closePortals();
      this.readyForQuery();
      await this.host.flush();
      return true;
    }
    if (code === 'H') {
      await this.host.flush();
      return true;
    }
    if (this.skipping) return true;
    if (code === 'F') {
      await this.functionCall(new PgBodyReader(body));
      return true;
    }
    try {
      await this.extended(code, new PgBodyReader(body));
    } catch (error) {
      this.failExtended(error);
    }
    return true;
  }

  private async extended(code: string, reader: PgBodyReader): Promise<void> {
    switch (code) {
      case 'P': return this.parse(reader);
      case 'B': return this.bind(reader);
      case 'D': return this.describe(reader);
      case 'E': return this.execute(reader);
      case 'C': return this.close(reader);
      case 'd': case 'c': case 'f':
        throw new PgError(pgError('08P01', 'COPY data arrived outside COPY FROM STDIN'));
      default:
        throw new PgError(pgError('08P01', `invalid frontend message type ${code.charCodeAt(0)}`, 'FATAL'));
    }
  }

  /**
   * FunctionCall (F), the fast-path call of a function by its oid, answered as PostgreSQL answers
   * one that does not exist (42883): the store has no functions with oids. Like a simple Query it
   * ends with ReadyForQuery (libpq's PQfn waits for it); a failed transaction block stays failed.
   */
  private async functionCall(reader: PgBodyReader): Promise<void> {
    try {
      const oid = reader.int32() >>> 0;
      const formatCount = reader.int16();
      for (let i = 0; i < formatCount; i++) reader.int16();
      const argumentCount = reader.int16();
      for (let i = 0; i < argumentCount; i++) {
        const length = reader.int32();
        if (length > 0) reader.bytes(length);
      }
      reader.int16();
      reader.expectEnd();
      if (this.status === 'E') {
        throw new PgError(pgError('25P02', 'current transaction is aborted, commands ignored until end of transaction block'));
      }
      throw new PgError(pgError('42883', `function with OID ${oid} does not exist`));
    } catch (error) {
      rethrowBug(error);
      const fields = pgErrorFieldsOf(error);
      if (fields.severity === 'FATAL') throw error;
      this.writeError(fields);
      if (this.status === 'T') this.status = 'E';
    }
    this.readyForQuery();
    await this.host.flush();
  }

  private failExtended(error: unknown): void {
    rethrowBug(error);
    const fields = pgErrorFieldsOf(error);
    if (fields.severity === 'FATAL') throw error;
    this.writeError(fields);
    this.skipping = true;
    if (this.status === 'T') this.status = 'E';
  }

  // ---- simple query -------------------------------------------------------------------------

  private async simpleQuery(reader: PgBodyReader): Promise<void> {
    const text = reader.cstring();
    reader.expectEnd();
    let statements: string[];
    try {
      statements = splitStatements(text, this.host.statementsPerQueryMax);
    } catch (error) {
      rethrowBug(error);
      statements = [];
      this.writeError(pgErrorFieldsOf(error));
    }
    if (statements.length === 0 && text.trim().replace(/;/g, '') === '') {
      this.host.out.message('I');
    }
    await this.runSimple(statements);
  }

  /** A simple Query's statements in order, up to the first error; a COPY FROM pauses them. */
  private async runSimple(statements: readonly string[]): Promise<void> {
    for (let i = 0; i < statements.length; i++) {
      const statement = statements[i]!;
      try {
        if (firstWord(statement) === 'COPY') {
          if (await this.copy(statement)) {
            this.copyRest = statements.slice(i + 1);
            await this.host.flush();
            return;
          }
          continue;
        }
        const prepared: Prepared = { text: statement, rewritten: rewriteParameters(statement), parameterOids: [] };
        if (prepared.rewritten.parameterCount > 0) {
          throw new PgError(pgError('42P02', 'there is no parameter $1 (a simple Query has no parameters)'));
        }
        const portal: Portal = { prepared, parameters: [], resultFormats: [], done: false, rowCount: 0 };
        await this.start(portal);
        if (portal.started!.kind === 'rows') writeRowDescription(this.host.out, portal.started!.columns, []);
        await this.sendRows(portal, 0);
      } catch (error) {
        rethrowBug(error);
        this.writeError(pgErrorFieldsOf(error, statement));
        if (this.status === 'T') this.status = 'E';
        break;
      }
    }
    this.readyForQuery();
    await this.host.flush();
  }

  // ---- COPY ---------------------------------------------------------------------------------

  /** Starts a COPY: true when it is a COPY FROM STDIN that now waits for CopyData. */
  private async copy(text: string): Promise<boolean> {
    if (this.status === 'E') {
      throw new PgError(pgError('25P02', 'current transaction is aborted, commands ignored until end of transaction block'));
    }
    const statement = parseCopyStatement(text);
    const { backend, connectionId, out } = this.host;
    if (statement.direction === 'in') {
      if (this.status === 'T') {
        throw new PgError({ severity: 'ERROR', sqlState: '0A000',
          message: 'COPY FROM inside a transaction block is not supported: store writes each batch ' +
            'in auto-commit, so ROLLBACK could not undo it', hint: 'run it outside BEGIN … COMMIT' });
      }
      this.copyIn = await PgCopyIn.open(backend, connectionId, statement);
      writeCopyResponse(out, 'G', this.copyIn.columnCount, statement.options.format === 'binary' ? 1 : 0);
      return true;
    }
    const result = await backend.execute(connectionId, {
      sql: copyOutQuery(statement), parameters: [], fetchSize: PG_PAGE_ROW_COUNT, timeoutMs: this.host.statementTimeoutMs,
    });
    if (result.kind !== 'rows') throw new PgError(pgError('42601', 'COPY (query) TO needs a query that returns rows'));
    const startedMs = this.host.monotonicMs();
    const portal: Portal = { prepared: { text, rewritten: rewriteParameters(''), parameterOids: [] }, parameters: [],
      resultFormats: [], done: false, rowCount: 0, started: { kind: 'rows', columns: result.columns, source: result.rows } };
    const count = await copyOut({ out, flush: () => this.host.flush(),
      checkInterrupted: () => this.checkInterrupted(portal, startedMs) },
    result.columns, result.rows, statement.options, PG_PAGE_ROW_COUNT);
    out.message('C', (writer) => writer.cstring(`COPY ${count}`));
    return false;
  }

  /** A message while COPY FROM STDIN waits for data (Flush and Sync are ignored, as PostgreSQL does). */
  private async copyMessage(copy: PgCopyIn, code: string, body: Buffer): Promise<void> {
    try {
      switch (code) {
        case 'd': await copy.data(body); return;
        case 'c': {
          const count = await copy.done();
          this.copyIn = undefined;
          this.host.out.message('C', (writer) => writer.cstring(`COPY ${count}`));
          const rest = this.copyRest;
          this.copyRest = [];
          await this.runSimple(rest);
          return;
        }
        case 'f': {
          const reason = new PgBodyReader(body).cstring();
          await copy.settle();
          throw new PgError({ severity: 'ERROR', sqlState: '57014', message: `COPY from stdin failed: ${reason}`,
            detail: copy.writtenDetail() });
        }
        case 'H': case 'S': return;
        default:
          await copy.settle();
          throw new PgError({ severity: 'ERROR', sqlState: '08P01',
            message: `unexpected message type 0x${code.charCodeAt(0).toString(16)} during COPY from stdin`,
            detail: copy.writtenDetail() });
      }
    } catch (error) {
      rethrowBug(error);
      this.copyIn = undefined;
      this.copyRest = [];
      this.copyDiscarding = code === 'd';
      this.writeError(pgErrorFieldsOf(error));
      if (this.status === 'T') this.status = 'E';
      this.readyForQuery();
      await this.host.flush();
    }
  }

  // ---- extended query -----------------------------------------------------------------------

  private async parse(reader: PgBodyReader): Promise<void> {
    const name = reader.cstring();
    const text = reader.cstring();
    const oidCount = reader.int16();
    const parameterOids = Array.from({ length: Math.max(0, oidCount) }, () => reader.int32());
    reader.expectEnd();
    if (name !== '' && this.prepared.has(name)) {
      throw new PgError(pgError('42P05', `prepared statement "${name}" already exists`));
    }
    if (name !== '' && this.prepared.size >= PG_PREPARED_STATEMENT_COUNT_MAX) {
      throw new PgError(pgError('54000', `a connection may hold at most ${PG_PREPARED_STATEMENT_COUNT_MAX} prepared statements`));
    }
    const statements = splitStatements(text, 2);
    if (statements.length > 1) {
      throw new PgError(pgError('42601', 'cannot insert multiple commands into a prepared statement'));
    }
    const statement = statements[0] ?? '';
    this.prepared.set(name, { text: statement, rewritten: rewriteParameters(statement), parameterOids });
    this.host.out.message('1');
  }

  private async bind(reader: PgBodyReader): Promise<void> {
    const portalName = reader.cstring();
    const statementName = reader.cstring();
    const formatCount = reader.int16();
    const formats = Array.from({ length: Math.max(0, formatCount) }, () => reader.int16());
    const valueCount = reader.int16();
    const values = Array.from({ length: Math.max(0, valueCount) }, () => {
      const length = reader.int32();
      return length < 0 ? null : reader.bytes(length);
    });
    const resultFormatCount = reader.int16();
    const resultFormats = Array.from({ length: Math.max(0, resultFormatCount) }, () => reader.int16());
    reader.expectEnd();
    const prepared = this.prepared.get(statementName);
    if (prepared === undefined) {
      throw new PgError(pgError('26000', `prepared statement "${statementName}" does not exist`));
    }
    if (values.length !== prepared.rewritten.parameterCount) {
      throw new PgError(pgError('08P01', `bind message supplies ${values.length} parameters, but ` +
        `prepared statement "${statementName}" requires ${prepared.rewritten.parameterCount}`));
    }
    if ([...formats, ...resultFormats].some((format) => format !== 0 && format !== 1)) {
      throw new PgError(pgError('08P01', 'a format code is neither 0 (text) nor 1 (binary)'));
    }
    const typed = values.map((value, i) => {
      const format = formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : formats[i] ?? 0;
      return pgParameter(prepared.parameterOids[i] ?? 0, format === 1, value);
    });
    if (portalName !== '' && this.portals.size >= PG_PORTAL_COUNT_MAX) {
      throw new PgError(pgError('54000', `a connection may hold at most ${PG_PORTAL_COUNT_MAX} portals`));
    }
    await this.closePortal(portalName);
    this.portals.set(portalName, {
      prepared, parameters: prepared.rewritten.parameterOrder.map((index) => typed[index]!),
      resultFormats, done: false, rowCount: 0,
    });
    this.host.out.message('2');
  }

  private async describe(reader: PgBodyReader): Promise<void> {
    const kind = String.fromCharCode(reader.byte());
    const name = reader.cstring();
    reader.expectEnd();
    if (kind === 'S') {
      const prepared = this.prepared.get(name);
      if (prepared === undefined) throw new PgError(pgError('26000', `prepared statement "${name}" does not exist`));
      const oids = Array.from({ length: prepared.rewritten.parameterCount },
        (_v, i) => prepared.parameterOids[i] || PgOid.unknown);
      this.host.out.message('t', (out) => {
        out.int16(oids.length);
        for (const oid of oids) out.int32(oid);
      });
      const columns = await this.describeStatement(prepared);
      if (columns === undefined) this.host.out.message('n');
      else writeRowDescription(this.host.out, columns, []);
      return;
    }
    if (kind !== 'P') throw new PgError(pgError('08P01', `Describe of '${kind}': only S and P exist`));
    const portal = this.portals.get(name);
    if (portal === undefined) throw new PgError(pgError('34000', `portal "${name}" does not exist`));
    await this.start(portal);
    const started = portal.started!;
    if (started.kind === 'rows') {
      writeRowDescription(this.host.out, started.columns, columnFormats(portal.resultFormats, started.columns.length));
    } else {
      this.host.out.message('n');
    }
  }

  /** A statement's columns before it has parameters: a read runs once with NULLs and is closed. */
  private async describeStatement(prepared: Prepared) {
    const word = firstWord(prepared.text);
    if (!['SELECT', 'WITH', 'EXPLAIN', 'SHOW', 'VALUES'].includes(word)) return undefined;
    const portal: Portal = {
      prepared, parameters: prepared.rewritten.parameterOrder.map(() => ({ type: 'UNKNOWN', value: null })),
      resultFormats: [], done: false, rowCount: 0,
    };
    await this.start(portal);
    const started = portal.started!;
    if (started.kind === 'rows') await started.source.close();
    return started.kind === 'rows' ? started.columns : undefined;
  }

  private async execute(reader: PgBodyReader): Promise<void> {
    const name = reader.cstring();
    const rowCountMax = reader.int32();
    reader.expectEnd();
    const portal = this.portals.get(name);
    if (portal === undefined) throw new PgError(pgError('34000', `portal "${name}" does not exist`));
    await this.start(portal);
    await this.sendRows(portal, Math.max(0, rowCountMax));
  }

  private async close(reader: PgBodyReader): Promise<void> {
    const kind = String.fromCharCode(reader.byte());
    const name = reader.cstring();
    reader.expectEnd();
    if (kind === 'S') this.prepared.delete(name);
    else if (kind === 'P') await this.closePortal(name);
    else throw new PgError(pgError('08P01', `Close of '${kind}': only S and P exist`));
    this.host.out.message('3');
  }

  private async closePortal(name: string): Promise<void> {
    const portal = this.portals.get(name);
    this.portals.delete(name);
    if (portal?.started?.kind === 'rows' && !portal.done) await portal.started.source.close();
  }

  /** Every portal ends with the (implicit) transaction, as in PostgreSQL. */
  async closePortals(): Promise<void> {
    for (const name of [...this.portals.keys()]) await this.closePortal(name);
  }

  // ---- running ------------------------------------------------------------------------------

  /** Runs the portal's statement once (its result is then read by sendRows). */
  private async start(portal: Portal): Promise<void> {
    if (portal.started !== undefined) return;
    // A cancel that came before this statement began was for none (PostgreSQL ignores it too); one
    // that comes while the engine computes the first page counts (sendRows checks before sending).
    this.host.takeCancel();
    const text = portal.prepared.text;
    const words = text.trim().split(/\s+/, 3).map((word) => word.toUpperCase().replace(/;$/, ''));
    const word = firstWord(text);
    if (this.status === 'E' && !['COMMIT', 'END', 'ROLLBACK', 'ABORT'].includes(word)) {
      throw new PgError(pgError('25P02', 'current transaction is aborted, commands ignored until end of transaction block'));
    }
    if (word === 'COPY') {
      throw new PgError(pgError('0A000', 'COPY runs only in a simple Query message (as psql and pg-copy-streams send it)'));
    }
    const local = this.localStatement(word, portal.prepared.rewritten.parameterCount === 0 ? text
      : inlineParameters(text, parameterLiterals(portal)));
    if (local !== undefined) {
      portal.started = startedOfLocal(await local);
      return;
    }
    if (this.status === 'T' && CHANGE_WORDS.has(word)) {
      throw new PgError({ severity: 'ERROR', sqlState: '0A000',
        message: `${word} inside a transaction block is not supported: store runs each SQL statement ` +
          'in auto-commit, so ROLLBACK could not undo it', hint: 'run it outside BEGIN … COMMIT' });
    }
    let result;
    try {
      result = await this.host.backend.execute(this.host.connectionId, {
        sql: portal.prepared.rewritten.sql, parameters: portal.parameters,
        fetchSize: PG_PAGE_ROW_COUNT, timeoutMs: this.host.statementTimeoutMs,
      });
    } catch (error) {
      throw this.interrupted(error);
    }
    portal.started = startedOfSql(result, words);
  }

  /** Sends up to `rowCountMax` rows (0: all), then CommandComplete or PortalSuspended. */
  private async sendRows(portal: Portal, rowCountMax: number): Promise<void> {
    const started = portal.started!;
    assert(started !== undefined);
    if (started.kind === 'command') {
      this.host.out.message('C', (out) => out.cstring(started.tag));
      return;
    }
    const formats = columnFormats(portal.resultFormats, started.columns.length);
    const types = started.columns.map((column) => column.type);
    // The engine's pages written as DataRows from their bytes: all text (pg-data-rows-wire.ts) or
    // all binary (pg-data-rows-binary.ts); other results are decoded into rows.
    const wireColumns = started.source.wire?.columns;
    const ofWire = wireColumns === undefined ? undefined
      : pgDataRowsWireFits(types, wireColumns, formats) ? pgDataRowsOfWire
      : pgDataRowsBinaryFits(types, wireColumns, formats) ? pgDataRowsBinaryOfWire
      : undefined;
    const startedMs = this.host.monotonicMs();
    let sent = 0;
    // When every row is wanted, the engine's next page is asked for before this one is written,
    // so that the engine thread makes it while this thread writes the DataRows and the client
    // reads them (a scan through the port was the two one after the other, page after page). Its
    // rejection is marked handled here and met when it is awaited; on a cancel (checkInterrupted)
    // or an error writing this page the result is closed, and that page is dropped.
    let ahead: ReturnType<NonNullable<PgRowSource['wire']>['next']> | undefined;
    if (!portal.done) await this.checkInterrupted(portal, startedMs);
    while (!portal.done && (rowCountMax === 0 || sent < rowCountMax)) {
      const want = rowCountMax === 0 ? PG_PAGE_ROW_COUNT : Math.min(PG_PAGE_ROW_COUNT, rowCountMax - sent);
      let page;
      let count;
      /** A page's DataRows written from its bytes: sent as they are, after what `out` holds. */
      let pageBytes: Buffer | undefined;
      try {
        const wire = ofWire === undefined ? undefined : await (ahead ?? started.source.wire!.next(want));
        ahead = undefined;
        if (wire !== undefined) {
          if (rowCountMax === 0 && !wire.done) {
            ahead = started.source.wire!.next(want);
            ahead.catch(() => undefined);
          }
          pageBytes = ofWire!(types, wire.page);
          page = wire;
          count = wire.page.count;
        } else {
          page = await started.source.next(want);
          writeDataRows(this.host.out, started.columns, formats, page.rows);
          count = page.rows.length;
        }
      } catch (error) {
        if (ahead !== undefined) {
          // This page failed to be written while the next was asked for: the result ends here.
          portal.done = true;
          await started.source.close();
        }
        throw this.interrupted(error);
      }
      sent += count;
      portal.rowCount += count;
      if (page.done) portal.done = true;
      await this.host.flush(pageBytes);
      if (!portal.done) await this.checkInterrupted(portal, startedMs);
    }
    if (!portal.done) {
      this.host.out.message('s');
      return;
    }
    this.host.out.message('C', (out) => out.cstring(`SELECT ${portal.rowCount}`));
  }

  /** The engine ended the statement for a cancel or for its timeout: PostgreSQL's 57014 and words. */
  private interrupted(error: unknown): unknown {
    if (isStorageError(error, 'SQL_CANCELLED')) {
      this.host.takeCancel();
      return new PgError(pgError('57014', 'canceling statement due to user request'));
    }
    if (isStorageError(error, 'REQUEST_TIMEOUT') && this.host.statementTimeoutMs > 0) {
      return new PgError(pgError('57014', 'canceling statement due to statement timeout'));
    }
    return error;
  }

  private async checkInterrupted(portal: Portal, startedMs: number): Promise<void> {
    const timedOut = this.host.statementTimeoutMs > 0 &&
      this.host.monotonicMs() - startedMs > this.host.statementTimeoutMs;
    const cancelled = this.host.takeCancel();
    if (!timedOut && !cancelled) return;
    portal.done = true;
    if (portal.started?.kind === 'rows') await portal.started.source.close();
    throw new PgError(pgError('57014', cancelled ? 'canceling statement due to user request'
      : 'canceling statement due to statement timeout'));
  }

  // ---- statements answered here -------------------------------------------------------------

  private localStatement(word: string, text: string): Promise<PgLocalResult> | undefined {
    switch (word) {
      case 'BEGIN': case 'START':
        if (this.status === 'I') this.status = 'T';
        else this.notice('25001', 'there is already a transaction in progress');
        return Promise.resolve({ columns: [], rows: [], tag: 'BEGIN' });
      case 'COMMIT': case 'END': {
        const failed = this.status === 'E';
        if (this.status === 'I') this.notice('25P01', 'there is no transaction in progress');
        this.status = 'I';
        return Promise.resolve({ columns: [], rows: [], tag: failed ? 'ROLLBACK' : 'COMMIT' });
      }
      case 'ROLLBACK': case 'ABORT':
        if (this.status === 'I') this.notice('25P01', 'there is no transaction in progress');
        this.status = 'I';
        return Promise.resolve({ columns: [], rows: [], tag: 'ROLLBACK' });
      case 'SET': return Promise.resolve(this.set(text));
      case 'RESET': case 'DISCARD': case 'DEALLOCATE': case 'LISTEN': case 'UNLISTEN':
        return Promise.resolve({ columns: [], rows: [], tag: word });
      case 'SHOW': return Promise.resolve(this.show(text));
      default: break;
    }
    const source = this.catalogSource();
    const fn = sessionFunctionQuery(source, text);
    if (fn !== undefined) {
      if (/current_setting/i.test(text) && fn.rows[0]![0] === null) {
        return Promise.reject(new PgError(pgError('42704', `unrecognized configuration parameter in ${text.slice(0, 100)}`)));
      }
      return Promise.resolve(fn);
    }
    if (isCatalogQuery(text)) return catalogQuery(source, text);
    return undefined;
  }

  private set(text: string): PgLocalResult {
    // pgJDBC's setReadOnly and setTransactionIsolation: the session's defaults, reported by SHOW.
    const characteristics = /^\s*set\s+session\s+characteristics\s+as\s+transaction\s+(.*?)\s*;?\s*$/is.exec(text);
    if (characteristics !== null) {
      const mode = characteristics[1]!.toLowerCase().replace(/\s+/g, ' ');
      const isolation = /isolation level (serializable|repeatable read|read committed|read uncommitted)/.exec(mode);
      if (isolation !== null) this.settings.set('transaction_isolation', isolation[1]!);
      if (/\bread only\b/.test(mode)) this.settings.set('default_transaction_read_only', 'on');
      if (/\bread write\b/.test(mode)) this.settings.set('default_transaction_read_only', 'off');
      return { columns: [], rows: [], tag: 'SET' };
    }
    const match = /^\s*set\s+(?:session\s+|local\s+)?(?:(time\s+zone)\s+|([\w.]+)\s*(?:=|\bto\b)\s*)(.*?)\s*;?\s*$/is.exec(text);
    if (match === null) throw new PgError(pgError('42601', 'syntax error in SET'));
    const name = match[1] !== undefined ? 'timezone' : match[2]!.toLowerCase();
    const value = match[3]!.replace(/^'(.*)'$/s, '$1').replace(/^"(.*)"$/s, '$1');
    if (name === 'timezone' && !/^(utc|gmt|etc\/utc|z|0|'?utc'?|default|local)$/i.test(value)) {
      throw new PgError({ severity: 'ERROR', sqlState: '22023',
        message: `TimeZone ${value} is not supported: store shows times in UTC` });
    }
    this.settings.set(name, name === 'timezone' ? 'UTC' : value);
    return { columns: [], rows: [], tag: 'SET' };
  }

  private show(text: string): PgLocalResult {
    const name = (/^\s*show\s+(.+?)\s*;?\s*$/is.exec(text)?.[1] ?? '').toLowerCase().replace(/\s+/g, ' ');
    if (name === 'all') {
      return { columns: [{ name: 'name', type: 'STRING' }, { name: 'setting', type: 'STRING' }],
        rows: [...this.settings].sort().map(([key, value]) => [key, value]) };
    }
    const key = name === 'time zone' ? 'timezone' : name === 'transaction isolation level' ? 'transaction_isolation' : name;
    const value = this.settings.get(key);
    if (value === undefined) throw new PgError(pgError('42704', `unrecognized configuration parameter "${name}"`));
    return { columns: [{ name: key, type: 'STRING' }], rows: [[value]] };
  }

  private catalogSource(): PgCatalogSource {
    const { backend, connectionId } = this.host;
    return {
      user: this.host.user,
      serverVersion: this.host.serverVersion,
      setting: (name) => this.settings.get(name),
      async tables(): Promise<PgCatalogTable[]> {
        const columnsOf = (name: string) => async () => {
          const columns = await backend.execute(connectionId, {
            sql: `SELECT * FROM "${name.replace(/"/g, '""')}" LIMIT 0`, parameters: [], fetchSize: 1, timeoutMs: 0,
          });
          if (columns.kind !== 'rows') return [];
          await columns.rows.close();
          return columns.columns;
        };
        const tables: PgCatalogTable[] = [];
        const keysOf = (name: string) => async () => {
          const info = await backend.containerInfo(connectionId, name);
          return { rowKeyColumnCount: info?.rowKeyColumnCount ?? 0, indexes: info?.indexes ?? [],
            notNull: info?.columns.map((column) => column.notNull) ?? [] };
        };
        // Tables, then views ("#views": a view is a relation of kind 'v' to these tools, keyless).
        for (const sql of ['SELECT TABLE_NAME, TABLE_OPTIONAL_TYPE FROM "#tables"',
          'SELECT VIEW_NAME, \'VIEW\', VIEW_DEFINITION FROM "#views"']) {
          const result = await backend.execute(connectionId, { sql, parameters: [], fetchSize: 1000, timeoutMs: 0 });
          if (result.kind !== 'rows') continue;
          for (let done = false; !done;) {
            const page = await result.rows.next(1000);
            for (const row of page.rows) {
              const name = String(row[0]);
              const view = row[2] !== undefined && row[2] !== null;
              tables.push({ name, kind: String(row[1]), columns: columnsOf(name),
                keys: view ? async () => ({ rowKeyColumnCount: 0, indexes: [], notNull: [] }) : keysOf(name),
                ...(view ? { definition: String(row[2]) } : {}) });
            }
            done = page.done;
          }
        }
        return tables;
      },
    };
  }

  // ---- replies ------------------------------------------------------------------------------

  writeError(fields: PgErrorFields): void {
    this.host.out.message('E', (out) => {
      out.byte(0x53).cstring(fields.severity).byte(0x56).cstring(fields.severity);
      out.byte(0x43).cstring(fields.sqlState).byte(0x4d).cstring(fields.message);
      if (fields.detail !== undefined) out.byte(0x44).cstring(fields.detail);
      if (fields.hint !== undefined) out.byte(0x48).cstring(fields.hint);
      if (fields.position !== undefined) out.byte(0x50).cstring(String(fields.position));
      if (fields.where !== undefined) out.byte(0x57).cstring(fields.where);
      out.byte(0);
    });
  }

  private notice(sqlState: string, message: string): void {
    this.host.out.message('N', (out) => {
      out.byte(0x53).cstring('WARNING').byte(0x56).cstring('WARNING');
      out.byte(0x43).cstring(sqlState).byte(0x4d).cstring(message).byte(0);
    });
  }

  private readyForQuery(): void {
    this.host.out.message('Z', (out) => out.byte(this.status.charCodeAt(0)));
  }
}

/** A portal's parameters as SQL literals, by their `$n` number. */
function parameterLiterals(portal: Portal): string[] {
  const literals: string[] = [];
  portal.prepared.rewritten.parameterOrder.forEach((index, k) => {
    const value = portal.parameters[k]?.value;
    literals[index] = value === null || value === undefined || value instanceof Uint8Array ? 'NULL'
      : typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : String(value);
  });
  return literals;
}
