// The transaction server's options, their defaults and their checks. Every bad option is reported
// at once (CONFIG_INVALID), before anything listens.

import { STORAGE_OPTION_DEFAULTS } from '../base/options.ts';
import { systemClock, type Clock } from '../io/clock.ts';
import { randomBytes } from 'node:crypto';
import { StorageError } from '../base/errors.ts';
import {
  CONNECTION_HANDSHAKE_TIMEOUT_MS_DEFAULT, CONNECTION_IDLE_TIMEOUT_MS_DEFAULT,
  CONNECTION_LIMIT_DEFAULT, CONNECTION_LIMIT_MAX, CONNECTION_LIMIT_MIN,
  CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT, CONNECTION_REPLY_LIMIT_BYTES_MIN,
  CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT,
  CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT, CONNECTION_REPLY_SOFT_LIMIT_TIME_MS_DEFAULT,
  CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT, CONNECTION_REQUESTS_IN_FLIGHT_MAX,
  CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT, CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT,
  PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX, PROTOCOL_MESSAGE_BYTES_MAX, STATEMENT_RESULT_COUNT_MAX,
  STATEMENT_RESULT_COUNT_PER_CLIENT_MAX,
} from '../base/limits.ts';
import { Store } from '../engine/store.ts';
import { AUTH_NONCE_BYTES } from '../protocol/auth-proof.ts';
import { AccessCatalog, type Principal } from '../access/access-catalog.ts';
import type { QueryHandler } from './query-handler.ts';
import { LocalRequestRunner, type RequestRunner } from './request-runner.ts';
import { tqlQueryHandler } from './tql-query-handler.ts';

/**
 * The users of the node: the hex SHA-256 of a user's password, as the password file stores it, or
 * undefined when there is no such user. The users file belongs to the node; the server only asks.
 */
export type PasswordDigestLookup =
  (user: string) => string | undefined | Promise<string | undefined>;

/**
 * Who a user is in the database it logs in to (lib/access/access-control.ts): the Principal its
 * requests are checked as, or a thrown StorageError that refuses the login. Called after the
 * password is proven. Without one, only `public` is served and every user counts as an
 * administrator.
 */
export type LoginCheck = (login: { user: string; database: string }) => Principal;

export type ServerEvent =
  /** A TCP connection was accepted (within the limits); `remoteAddress` is `host:port`. */
  | { kind: 'accepted'; connectionId: number; remoteAddress: string }
  | { kind: 'connected'; connectionId: number; remoteAddress: string; user: string;
    applicationName: string }
  | { kind: 'refused'; remoteAddress: string; reason: string }
  /** A connection closed for the reply bytes queued for it (reply-buffers.ts). */
  | { kind: 'overflow'; connectionId: number; remoteAddress: string; queuedBytes: number;
    reason: string }
  | { kind: 'closed'; connectionId: number; remoteAddress: string; reason: string };

export interface TransactionServerOptions {
  /**
   * Where requests run: a runner (in the node, the engine's worker thread), or a Store in this
   * thread, for which the server makes a LocalRequestRunner with the options below.
   */
  engine: RequestRunner | Store;
  /** `/transaction/serviceAddress`. */
  host: string;
  /** `/transaction/servicePort`; 0 picks a free port. */
  port: number;
  /** `/cluster/clusterName`: a client must name it. */
  clusterName: string;
  lookupPasswordDigest: PasswordDigestLookup;
  loginCheck?: LoginCheck;
  /**
   * The node's access catalog as it is now (lib/access/), which GridDB's GET_USERS and
   * GET_DATABASES list; without one, no general users and no created databases.
   */
  accessCatalog?: () => AccessCatalog;
  /** Runs queries; TQL on the engine (tql-query-handler.ts) unless another is given (Store only). */
  queryHandler?: QueryHandler;
  /**
   * `/transaction/connectionLimit`: authenticated connections; one more is refused with
   * LIMIT_EXCEEDED (at once when the limit is reached, else when it authenticates).
   */
  connectionLimit?: number;
  /** `/transaction/unauthenticatedConnectionLimit`: connections not yet authenticated, at once. */
  unauthenticatedConnectionLimit?: number;
  /** `/transaction/unauthenticatedConnectionLimitPerAddress`: the same, from one address. */
  unauthenticatedConnectionLimitPerAddress?: number;
  /** `/transaction/replyBufferSoftLimit`: reply bytes queued at which a connection is not read. */
  replySoftLimitBytes?: number;
  /**
   * `/transaction/replyBufferQueryLimit`: reply bytes queued beyond which a connection starts no
   * request that brings a page of rows, and none while replies are unsent.
   */
  replyQueryLimitBytes?: number;
  /**
   * `/transaction/replyBufferSoftLimitTime`: a connection whose client takes none of its queued
   * reply bytes for this long is closed.
   */
  replySoftLimitTimeMs?: number;
  /** `/transaction/replyBufferHardLimit`: reply bytes queued past which a connection is closed. */
  replyHardLimitBytes?: number;
  /** `/transaction/totalMessageMemoryLimit`: reply bytes queued over every connection. */
  replyTotalLimitBytes?: number;
  /** Requests one connection may have in flight before the node stops reading it. */
  requestsInFlightMax?: number;
  /** The largest message, either way, once a connection is authenticated. */
  messageBytesMax?: number;
  /** An authenticated connection idle this long is closed. */
  idleTimeoutMs?: number;
  /** A connection must authenticate within this. */
  handshakeTimeoutMs?: number;
  /** The node's wall clock, for GridDB's gsAppendTimeSeriesRow keys; systemClock by default. */
  clock?: Clock;
  /** Write outcomes remembered for retried statements (statement-results.ts). */
  statementResultCountMax?: number;
  /** The same, per client. */
  statementResultCountPerClientMax?: number;
  /** Sent in the HELLO reply. */
  serverVersion?: string;
  /**
   * The store's partitionNum, which GridDB's clients are told (GET_PARTITION_ADDRESS) and hash
   * container names with; the store's own default unless given.
   */
  partitionNum?: number;
  /** The source of authentication nonces; random bytes unless a test needs others. */
  nonce?: () => Uint8Array;
  /** Connections made, refused and closed, for the event log. */
  onEvent?: (event: ServerEvent) => void;
  /**
   * The engine failed on a bug (a failed assertion, any exception but a StorageError): every
   * connection has been closed without a reply and the server takes no more; called once. By
   * default the error is thrown outside any promise, so the process stops, as an assertion must,
   * rather than serve on state that may be half-applied (fail-stop, request-runner.ts).
   */
  onEngineFailure?: (error: unknown) => void;
}

export type ResolvedServerOptions =
  Required<Omit<TransactionServerOptions, 'onEvent' | 'engine' | 'loginCheck'>> &
  Pick<TransactionServerOptions, 'onEvent' | 'loginCheck'> & { runner: RequestRunner };

export const SERVER_VERSION_DEFAULT = 'store 0.1.0';

export function resolveServerOptions(options: TransactionServerOptions): ResolvedServerOptions {
  const resolved: Omit<ResolvedServerOptions, 'runner'> = {
    host: options.host,
    port: options.port,
    clusterName: options.clusterName,
    lookupPasswordDigest: options.lookupPasswordDigest,
    ...(options.loginCheck === undefined ? {} : { loginCheck: options.loginCheck }),
    accessCatalog: options.accessCatalog ?? (() => AccessCatalog.EMPTY),
    queryHandler: options.queryHandler ?? tqlQueryHandler,
    connectionLimit: options.connectionLimit ?? CONNECTION_LIMIT_DEFAULT,
    unauthenticatedConnectionLimit: options.unauthenticatedConnectionLimit ??
      CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT,
    unauthenticatedConnectionLimitPerAddress: options.unauthenticatedConnectionLimitPerAddress ??
      CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT,
    replySoftLimitBytes: options.replySoftLimitBytes ?? CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT,
    replyQueryLimitBytes: options.replyQueryLimitBytes ??
      Math.min(CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT,
        options.replySoftLimitBytes ?? CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT),
    replySoftLimitTimeMs: options.replySoftLimitTimeMs ??
      CONNECTION_REPLY_SOFT_LIMIT_TIME_MS_DEFAULT,
    replyHardLimitBytes: options.replyHardLimitBytes ?? CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT,
    replyTotalLimitBytes: options.replyTotalLimitBytes ??
      CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT,
    requestsInFlightMax: options.requestsInFlightMax ?? CONNECTION_REQUESTS_IN_FLIGHT_MAX,
    messageBytesMax: options.messageBytesMax ?? PROTOCOL_MESSAGE_BYTES_MAX,
    idleTimeoutMs: options.idleTimeoutMs ?? CONNECTION_IDLE_TIMEOUT_MS_DEFAULT,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? CONNECTION_HANDSHAKE_TIMEOUT_MS_DEFAULT,
    clock: options.clock ?? systemClock,
    statementResultCountMax: options.statementResultCountMax ?? STATEMENT_RESULT_COUNT_MAX,
    statementResultCountPerClientMax: options.statementResultCountPerClientMax ??
      STATEMENT_RESULT_COUNT_PER_CLIENT_MAX,
    serverVersion: options.serverVersion ?? SERVER_VERSION_DEFAULT,
    partitionNum: options.partitionNum ?? STORAGE_OPTION_DEFAULTS.partitionNum,
    nonce: options.nonce ?? (() => new Uint8Array(randomBytes(AUTH_NONCE_BYTES))),
    onEvent: options.onEvent,
    onEngineFailure: options.onEngineFailure ?? rethrow,
  };
  const problems = optionProblems(resolved);
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `transaction server: ${problems.join('; ')}`);
  }
  // The runner's own report of a failure is not needed: its run rejects, which tells the server.
  const runner = options.engine instanceof Store
    ? new LocalRequestRunner(options.engine, { ...resolved, onFailure: () => undefined })
    : options.engine;
  return { ...resolved, runner };
}

/** Throws the error outside any promise, so that the process stops as on a failed assertion. */
function rethrow(error: unknown): void {
  process.nextTick(() => {
    throw error;
  });
}

function optionProblems(options: Omit<ResolvedServerOptions, 'runner'>): string[] {
  const problems: string[] = [];
  const whole = (name: string, value: number, min: number, max: number) => {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, not ${String(value)}`);
    }
  };
  if (typeof options.host !== 'string' || options.host.length === 0) {
    problems.push('host must be a non-empty string');
  }
  whole('port', options.port, 0, 65_535);
  if (typeof options.clusterName !== 'string' || options.clusterName.length === 0) {
    problems.push('clusterName must be a non-empty string');
  }
  if (typeof options.lookupPasswordDigest !== 'function') {
    problems.push('lookupPasswordDigest must be a function');
  }
  whole('connectionLimit', options.connectionLimit, CONNECTION_LIMIT_MIN, CONNECTION_LIMIT_MAX);
  whole('unauthenticatedConnectionLimit', options.unauthenticatedConnectionLimit, 1,
    CONNECTION_LIMIT_MAX);
  whole('unauthenticatedConnectionLimitPerAddress',
    options.unauthenticatedConnectionLimitPerAddress, 1, options.unauthenticatedConnectionLimit);
  const bytes = Number.MAX_SAFE_INTEGER;
  whole('replySoftLimitBytes', options.replySoftLimitBytes, CONNECTION_REPLY_LIMIT_BYTES_MIN, bytes);
  whole('replyQueryLimitBytes', options.replyQueryLimitBytes, CONNECTION_REPLY_LIMIT_BYTES_MIN,
    options.replySoftLimitBytes);
  whole('replyHardLimitBytes', options.replyHardLimitBytes, options.replySoftLimitBytes, bytes);
  whole('replyTotalLimitBytes', options.replyTotalLimitBytes, options.replyHardLimitBytes, bytes);
  whole('replySoftLimitTimeMs', options.replySoftLimitTimeMs, 1, 2 ** 31 - 1);
  whole('requestsInFlightMax', options.requestsInFlightMax, 1, CONNECTION_REQUESTS_IN_FLIGHT_MAX);
  whole('messageBytesMax', options.messageBytesMax, PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX,
    PROTOCOL_MESSAGE_BYTES_MAX);
  whole('idleTimeoutMs', options.idleTimeoutMs, 1, 2 ** 31 - 1);
  whole('handshakeTimeoutMs', options.handshakeTimeoutMs, 1, 2 ** 31 - 1);
  whole('statementResultCountMax', options.statementResultCountMax, 1, STATEMENT_RESULT_COUNT_MAX);
  whole('statementResultCountPerClientMax', options.statementResultCountPerClientMax, 1,
    options.statementResultCountMax);
  return problems;
}
