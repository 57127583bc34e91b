// GridDB's sessions and statement ids on one connection, as store's own (connection-sessions.ts,
// statement-results.ts).
//
// The C client (protocol ≥ 3) numbers its sessions itself: a container handle takes the next id
// of its GridStore's counter, and every row statement carries it with the GridStore's UUID, a
// session mode (AUTO 0, CREATE 1, GET 2) and a transaction mode (AUTO 0, BEGIN 1, CONTINUE 2).
// Statement ids count per session from 1; the frame carries them, and the client's failover
// sends the very same frame again on a new connection.
//
// Here a GridDB session (UUID, session id) becomes a store session of this connection only when
// a transaction begins in it (BEGIN): auto-commit statements, with or without a session, run in
// store's auto-commit session 0. A store session ends with its connection, aborting its
// transaction, so a later CONTINUE on another connection gets TM_SESSION_NOT_FOUND and the
// client reports the lost transaction, as GridDB does for a session it no longer has.
//
// Store statement ids (unique per client, DESIGN.md §4): the runner's client is the GridStore
// (the LOGIN's client UUID), so a statement retried on another connection is answered with its
// first outcome. A statement of a session of that UUID is numbered from its GridDB ids:
//
//   storeStatementId = sessionId × 2^33 + statementId   (sessionId < 2^19, statementId < 2^33)
//
// Every other write (no session, another UUID, ids out of range) takes the next of a counter
// shared by the server's GridDB connections, from 2^52 up: the two ranges never meet, and
// such a statement applies once per attempt, as GridDB applies a statement without a session.

import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.ts';
import { ByteReader } from '../../encoding/byte-reader.ts';
import { SESSION_CLOSE, SESSION_OPEN } from '../../protocol/messages-connection.ts';
import { ABORT, COMMIT, SET_AUTO_COMMIT } from '../../protocol/messages-transaction.ts';
import { AUTO_COMMIT_SESSION_ID, type NameRef, type Statement } from '../../protocol/wire-refs.ts';
import { GriddbEngineFailure, type GriddbEngine } from './griddb-engine.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';

export const GriddbSessionMode = { AUTO: 0, CREATE: 1, GET: 2 } as const;
export const GriddbTransactionMode = { AUTO: 0, BEGIN: 1, CONTINUE: 2 } as const;

export const GRIDDB_UUID_BYTES = 16;
const SESSION_ID_BITS = 19;
const STATEMENT_ID_BITS = 33;
const STATEMENT_ID_RANGE = 2 ** STATEMENT_ID_BITS;
const SESSION_ID_RANGE = 2 ** SESSION_ID_BITS;
/** The first id of the shared counter: above every id drawn from a GridDB session. */
export const GRIDDB_FRESH_STATEMENT_ID_MIN = SESSION_ID_RANGE * STATEMENT_ID_RANGE;
const FRESH_STATEMENT_ID_MAX = Number.MAX_SAFE_INTEGER;
assert(GRIDDB_FRESH_STATEMENT_ID_MIN === 2 ** 52);
assert(GRIDDB_FRESH_STATEMENT_ID_MIN < FRESH_STATEMENT_ID_MAX);

/** A statement's session as the frame gives it. */
export interface GriddbSessionRef {
  sessionId: bigint;
  uuid: Uint8Array;
  /** The frame's statement id. */
  statementId: bigint;
}

/** The counter of fresh store statement ids, one per transaction server. */
export class GriddbStatementIds {
  private next = GRIDDB_FRESH_STATEMENT_ID_MIN;

  fresh(): number {
    const id = this.next;
    // 2^52 ids: at a million statements a second, 142 years.
    assert(id < FRESH_STATEMENT_ID_MAX);
    this.next = id + 1;
    return id;
  }
}

export function griddbUuidHex(uuid: Uint8Array): string {
  assert(uuid.byteLength === GRIDDB_UUID_BYTES);
  return Buffer.from(uuid).toString('hex');
}

export class GriddbSessions {
  /** `${uuid hex}/${session id}` → store session id, of the sessions whose transaction began. */
  private readonly storeSessions = new Map<string, number>();

  constructor(
    private readonly engine: () => GriddbEngine,
    private readonly ids: GriddbStatementIds,
    /** The LOGIN's client UUID (hex): the runner's client; undefined when the LOGIN had none. */
    private readonly clientUuidHex: string | undefined,
    /** A new store session's transaction (and lock wait) timeout; 0: the node's. */
    private readonly transactionTimeoutMs: number,
  ) {}

  /** A store statement for a write of `ref`'s session in store session `sessionId`. */
  statement(ref: GriddbSessionRef | undefined, sessionId: number): Statement {
    if (ref !== undefined && ref.sessionId > 0n && ref.sessionId < BigInt(SESSION_ID_RANGE) &&
      ref.statementId > 0n && ref.statementId < BigInt(STATEMENT_ID_RANGE) &&
      this.clientUuidHex !== undefined && griddbUuidHex(ref.uuid) === this.clientUuidHex) {
      const statementId = Number(ref.sessionId) * STATEMENT_ID_RANGE + Number(ref.statementId);
      assert(statementId < GRIDDB_FRESH_STATEMENT_ID_MIN);
      return { sessionId, statementId };
    }
    return { sessionId, statementId: this.ids.fresh() };
  }

  /**
   * The store session a statement of `mode` runs in: 0 for auto-commit; for BEGIN this
   * connection's session of the GridDB session, opened (auto-commit off on `container`) when
   * there is none; for CONTINUE that session, or TM_SESSION_NOT_FOUND.
   */
  async sessionFor(ref: GriddbSessionRef, mode: number, container: NameRef): Promise<number> {
    if (mode === GriddbTransactionMode.AUTO) return AUTO_COMMIT_SESSION_ID;
    if (ref.sessionId === 0n) {
      throw new GriddbFrameError(`transaction mode ${mode} without a session`);
    }
    const key = this.keyOf(ref);
    const known = this.storeSessions.get(key);
    if (mode === GriddbTransactionMode.CONTINUE) {
      if (known === undefined) throw sessionNotFound(ref);
      return known;
    }
    if (mode !== GriddbTransactionMode.BEGIN) {
      throw new GriddbFrameError(`transaction mode ${mode} does not exist`);
    }
    if (known !== undefined) return known;
    const engine = this.engine();
    const { sessionId } = await engine.call(SESSION_OPEN,
      { transactionTimeoutMs: this.transactionTimeoutMs });
    try {
      await engine.call(SET_AUTO_COMMIT, { statement: { sessionId, statementId: this.ids.fresh() },
        ref: container, enabled: false });
    } catch (error) {
      // Kept, a session still in auto-commit would take the next BEGIN's writes as auto-commits.
      if (!(error instanceof GriddbEngineFailure)) {
        await engine.call(SESSION_CLOSE, { sessionId }).catch((closeError: unknown) => {
          if (closeError instanceof GriddbEngineFailure) throw closeError;
        });
      }
      throw error;
    }
    this.storeSessions.set(key, sessionId);
    return sessionId;
  }

  /**
   * COMMIT_TRANSACTION / ABORT_TRANSACTION. A session this connection does not have still goes
   * to the engine under its statement id: a commit retried after a broken connection is
   * answered as it was, and one never applied is refused there (TRANSACTION_INVALID).
   */
  async end(ref: GriddbSessionRef, container: NameRef, commit: boolean): Promise<void> {
    const sessionId = this.storeSessions.get(this.keyOf(ref)) ?? AUTO_COMMIT_SESSION_ID;
    const statement = this.statement(ref, sessionId);
    await this.engine().call(commit ? COMMIT : ABORT, { statement, ref: container });
  }

  /** CLOSE_SESSION: aborts what is pending; a session with no transaction here is closed. */
  async close(ref: GriddbSessionRef): Promise<void> {
    const key = this.keyOf(ref);
    const sessionId = this.storeSessions.get(key);
    if (sessionId === undefined) return;
    this.storeSessions.delete(key);
    await this.engine().call(SESSION_CLOSE, { sessionId });
  }

  private keyOf(ref: GriddbSessionRef): string {
    return `${griddbUuidHex(ref.uuid)}/${ref.sessionId}`;
  }
}

function sessionNotFound(ref: GriddbSessionRef): GriddbError {
  return new GriddbError(GriddbErrorCode.TM_SESSION_NOT_FOUND,
    `session ${ref.sessionId} is not open on this connection (a session's transaction ends ` +
    'with its connection)');
}

/**
 * The body of CREATE_SESSION, CLOSE_SESSION, COMMIT_TRANSACTION and ABORT_TRANSACTION (the C
 * client's createSession, closeSession, commit, abort; reply empty):
 *
 *   | containerId i64 | sessionId i64 | sessionUUID 16 | optional request |
 */
export function sessionStatementDecode(statementId: bigint, body: Uint8Array):
  { containerId: number; session: GriddbSessionRef } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const containerId = reader.i64();
    if (containerId < 0n || containerId > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GriddbFrameError(`container id ${containerId} is out of range`);
    }
    const sessionId = reader.i64();
    if (sessionId === 0n) throw new GriddbFrameError('a session statement of session 0');
    const uuid = reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    reader.expectEnd();
    return { containerId: Number(containerId), session: { sessionId, uuid, statementId } };
  });
}

/** More sessions than this in one CLOSE_MULTIPLE_SESSIONS is malformed (a frame bounds it too). */
const CLOSE_MULTIPLE_SESSION_COUNT_MAX = 65_536;
const CLOSE_MULTIPLE_ENTRY_BYTES = 8 + 8 + 8;

/**
 * CLOSE_MULTIPLE_SESSIONS (146; the C client's closeAllSessions, at gsCloseGridStore with a
 * containerCacheSize, for the sessions its cache kept; reply empty):
 *
 *   | sessionUUID 16 | optional request | count i32 | (statementId i64 | containerId i64 |
 *   | sessionId i64) × count |
 */
export function closeMultipleSessionsDecode(body: Uint8Array): GriddbSessionRef[] {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const uuid = reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    const count = reader.i32();
    if (count < 0 || count > CLOSE_MULTIPLE_SESSION_COUNT_MAX ||
      count * CLOSE_MULTIPLE_ENTRY_BYTES !== reader.remainingBytes) {
      throw new GriddbFrameError(`session count ${count} does not fit the ` +
        `${reader.remainingBytes} bytes after it`);
    }
    const sessions: GriddbSessionRef[] = [];
    for (let i = 0; i < count; i++) {
      const statementId = reader.i64();
      reader.i64(); // container id: a session is closed whichever container it was of
      sessions.push({ sessionId: reader.i64(), uuid, statementId });
    }
    return sessions;
  });
}
