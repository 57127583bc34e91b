// Operating errors: things a user, a client or the disk can cause. Each has a stable string code and a
// stable number (the number is what the wire protocol and the web API send). Codes and numbers never
// change; messages may. Programmer errors are assertions (assert.ts), not StorageErrors.

export const STORAGE_ERROR_NUMBERS = {
  // configuration and environment
  CONFIG_INVALID: 100001,
  IO: 100002,
  CORRUPTION: 100003,
  CLOSED: 100004,
  LIMIT_EXCEEDED: 100005,
  NOT_SUPPORTED: 100006,
  /**
   * Another process holds the lock on GS_HOME (lib/io/home-lock.ts): a second node refuses to start
   * without touching the home. 100020, clear of the numbers other changes may add after 100006.
   */
  HOME_IN_USE: 100020,
  // catalog
  CONTAINER_NOT_FOUND: 145001,
  CONTAINER_EXISTS: 145002,
  INVALID_NAME: 145003,
  INVALID_SCHEMA: 145004,
  TOO_MANY_COLUMNS: 145005,
  DUPLICATE_COLUMN_NAME: 145006,
  COLUMN_NOT_FOUND: 145007,
  // rows
  TYPE_MISMATCH: 150001,
  NULL_NOT_ALLOWED: 150002,
  KEY_REQUIRED: 150003,
  ROW_INVALID: 150004,
  VALUE_OUT_OF_RANGE: 150005,
  /** The container's schema changed while the request waited for a lock; retry with the new schema. */
  SCHEMA_CHANGED: 150006,
  // transactions
  LOCK_TIMEOUT: 10030,
  TRANSACTION_INVALID: 10031,
  /**
   * An operation that needs a transaction asked in auto-commit mode: fetch(forUpdate) (GridDB's
   * GS_ERROR_CC_ILLEGAL_COMMIT_MODE).
   */
  ILLEGAL_COMMIT_MODE: 140035,
  // users and authentication
  /** Wrong user or wrong password: never says which (GridDB's TXN_AUTH_FAILED). */
  AUTHENTICATION_FAILED: 10005,
  USER_EXISTS: 160001,
  USER_NOT_FOUND: 160002,
  /** A user name or password that the rules of the password file do not allow. */
  USER_INVALID: 160003,
  // general users, databases and privileges (lib/access/): GridDB's names and numbers
  // (server/gs_error.h counts GS_ERROR_TXN_* on from 10000)
  TXN_USER_NAME_ALREADY_EXISTS: 10077,
  TXN_DATABASE_NAME_ALREADY_EXISTS: 10078,
  /** Managing users or databases as a general user, or SET PASSWORD for another user. */
  TXN_OPERATION_NOT_ALLOWED: 10079,
  TXN_USER_NAME_INVALID: 10080,
  TXN_DATABASE_NAME_INVALID: 10081,
  TXN_USER_LIMIT_OVER: 10082,
  TXN_DATABASE_LIMIT_OVER: 10083,
  TXN_USER_NOT_EXIST: 10086,
  TXN_DATABASE_NOT_EXIST: 10087,
  /** GRANT of a privilege to a user who holds another one on that database. */
  TXN_OTHER_PRIVILEGE_EXISTS: 10090,
  /** A general user's read without a privilege, or write or DDL without ALL. */
  TXN_DB_ACCESS_INVALID: 10099,
  /** DROP DATABASE of a database that still has containers (GridDB's sql_common.h, 280004). */
  SQL_DDL_DATABASE_NOT_EMPTY: 280004,
  /**
   * A row for an interval whose data partition DROP PARTITION FOR removed (GridDB's sql_common.h
   * GS_ERROR_SQL_TABLE_PARTITION_ALREADY_REMOVED, 280025, thrown by nosql_command.cpp).
   */
  SQL_TABLE_PARTITION_ALREADY_REMOVED: 280025,
  // client protocol and connections
  /** The cluster name a client gave is not this node's (GridDB's TXN_CLUSTER_NAME_INVALID). */
  CLUSTER_NAME_INVALID: 10053,
  /** A malformed or unexpected message on the transaction port; the connection is closed. */
  PROTOCOL_ERROR: 170001,
  DATABASE_NOT_FOUND: 170002,
  /** The client could not reach a node, or lost its connection and could not retry in time. */
  CONNECTION_FAILED: 170003,
  /** No answer to a request within the client's request timeout. */
  REQUEST_TIMEOUT: 170004,
  /** A request named a partition that does not hold its container (another partitionNum). */
  PARTITION_MISMATCH: 170005,
  /**
   * An error the client cannot name (a code it does not know, from a newer node: wire-error.ts).
   * A node that fails on a bug never answers it: it stops (fail-stop, docs/data-model.md "Errors").
   */
  INTERNAL_ERROR: 170006,
  /** An engine that serves some partition groups was asked about a partition of another group. */
  PARTITION_NOT_OWNED: 170007,
  // queries (TQL)
  /** Query text that does not parse; the message gives the line and column. */
  TQL_SYNTAX: 180001,
  /** A query that parses but means nothing here: unknown column or function, mismatched types. */
  TQL_SEMANTIC: 180002,
  /** A query that failed on a value while it ran: division by zero, an array index out of range. */
  TQL_EVALUATION: 180003,
  // SQL (lib/sql/): GridDB's own code and number, as its messages show them
  /** SQL text that does not parse, or names a type SQL cannot store (DECIMAL); with line and column. */
  SQL_COMPILE_SYNTAX_ERROR: 240001,
  // SQL values while a statement runs (lib/sql/functions/): GridDB's names; the numbers are this
  // store's, clear of 240001 (GridDB's numbers for these are not in the spec)
  /** A value beyond its type: ABS(-2^63), CAST(128 AS BYTE), a timestamp past the time range. */
  SQL_PROC_VALUE_OVERFLOW: 240101,
  /** Text that does not read as the value asked for: CAST('x' AS LONG), TIMESTAMP('2020-13-01'). */
  SQL_PROC_VALUE_SYNTAX_ERROR: 240102,
  /** An argument outside what its function takes: ROUND(x, -1), ZEROBLOB(-1), an unknown unit. */
  SQL_PROC_INVALID_EXPRESSION_INPUT: 240103,
  /**
   * A statement cancelled while it ran (SQL_CANCEL, gs_sh killsql, or its connection closed):
   * GridDB's GS_ERROR_SQL_CANCELLED, 200000 + 7 in its SQLErrorCode (server/sql_common.h).
   */
  SQL_CANCELLED: 200007,
  /** A scalar subquery gave more than one row (GridDB: "More than one tuples selected in a subquery"). */
  SQL_PROC_MULTIPLE_TUPLE: 240104,
  // Views (lib/sql/run-view.ts): GridDB's names (server/sql_*.cpp, NoSQLStore::createView/dropView);
  // the numbers are this store's, clear of the ones above
  /** CREATE VIEW, or CREATE TABLE, over a name a table or a view has already. */
  SQL_DDL_TABLE_ALREADY_EXISTS: 240201,
  /** DROP VIEW of a name that nothing has. */
  SQL_DDL_VIEW_NOT_EXISTS: 240202,
  /** DROP VIEW of a table; DROP TABLE, CREATE INDEX, ALTER TABLE, INSERT, UPDATE or DELETE of a view. */
  SQL_DDL_INVALID_CONTAINER_ATTRIBUTE: 240203,
  /** A view that would read itself through the views it reads (not a GridDB name: none found). */
  SQL_VIEW_CYCLE: 240204,
} as const;

export type StorageErrorCode = keyof typeof STORAGE_ERROR_NUMBERS;

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly errorNumber: number;

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.errorNumber = STORAGE_ERROR_NUMBERS[code];
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
