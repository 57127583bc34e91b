// GridDB's error reply: after the reply head (griddb-frame.ts) and a result byte other than
// SUCCESS comes an error stack, which the C client decodes (server/gs_error_common.h
// GSExceptionCoder::decode) and hands to the application as a GSResult code:
//
//   | count i32 | count × entry | errorCodeName str | paramCount i32 | paramCount × (name, value) |
//   entry: | errorCode i32 | message str | typeName str | fileName str | functionName str | line i32 |
//
// str is GridDB's string: i32 UTF-8 size, then the UTF-8 bytes. The node sends one entry, its
// code's name and no parameters (the client appends the address and partition itself).

import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { griddbStringWrite } from './griddb-frame.ts';

/**
 * The codes and names this node sends: GridDB's, numbered as in GridDB's server/gs_error.h (its
 * ErrorCode enum counts on from GS_ERROR_TXN_SERVICE_START_FAILED = 10000,
 * GS_ERROR_DS_UNDEFINED = 60000 and GS_ERROR_TM_MODULE_CREATE_FAILED = 110000; 10005 and 10053
 * are also tested by the web API's ConnectionUtils.java, spec/surface.md §1.3). The connection
 * limit is store's own code.
 */
export const GriddbErrorCode = {
  /** CREATE/DROP_TRIGGER, which GridDB 5.x refuses so (CreateDropTriggerHandler). */
  CM_NOT_SUPPORTED: { code: 1007, name: 'CM_NOT_SUPPORTED' },
  /** A users or databases statement sent to another partition than 0 (DbUserHandler). */
  CM_INTERNAL_ERROR: { code: 1041, name: 'CM_INTERNAL_ERROR' },
  /** Wrong user, wrong password, or a database the user may not use (LoginHandler). */
  TXN_AUTH_FAILED: { code: 10005, name: 'TXN_AUTH_FAILED' },
  /** A statement sent before LOGIN. */
  TXN_AUTH_REQUIRED: { code: 10006, name: 'TXN_AUTH_REQUIRED' },
  /** A statement this node does not implement. */
  TXN_STATEMENT_TYPE_UNKNOWN: { code: 10013, name: 'TXN_STATEMENT_TYPE_UNKNOWN' },
  /** A row or schema statement on a container that does not exist. */
  TXN_CONTAINER_NOT_FOUND: { code: 10016, name: 'TXN_CONTAINER_NOT_FOUND' },
  /** A statement encoded with another schema version than the container's. */
  TXN_CONTAINER_SCHEMA_UNMATCH: { code: 10017, name: 'TXN_CONTAINER_SCHEMA_UNMATCH' },
  /** DROP_CONTAINER of a collection as a time series, or the other way round. */
  TXN_CONTAINER_TYPE_INVALID: { code: 10018, name: 'TXN_CONTAINER_TYPE_INVALID' },
  /** The client's clusterName is not this node's. */
  TXN_CLUSTER_NAME_INVALID: { code: 10053, name: 'TXN_CLUSTER_NAME_INVALID' },
  /** A CONNECT of a protocol version other than 15. */
  TXN_CLIENT_VERSION_NOT_ACCEPTABLE: { code: 10054, name: 'TXN_CLIENT_VERSION_NOT_ACCEPTABLE' },
  /** A statement of GridDB 1.x that GridDB 5.x refuses (UnsupportedStatementHandler). */
  TXN_STATEMENT_TYPE_UNSUPPORTED: { code: 10055, name: 'TXN_STATEMENT_TYPE_UNSUPPORTED' },
  /** A user name that is no name store allows (griddb-access-statements.ts). */
  TXN_USER_NAME_INVALID: { code: 10080, name: 'TXN_USER_NAME_INVALID' },
  /** A database name that is no name store allows. */
  TXN_DATABASE_NAME_INVALID: { code: 10081, name: 'TXN_DATABASE_NAME_INVALID' },
  /** A users or databases statement with fields GridDB refuses (privilege count, modifiable). */
  TXN_MESSAGE_INVALID: { code: 10089, name: 'TXN_MESSAGE_INVALID' },
  /** GET_USERS of a general user no longer in the access catalog (GetUsersHandler). */
  TXN_CURRENT_USER_REMOVED: { code: 10084, name: 'TXN_CURRENT_USER_REMOVED' },
  /** GET_DATABASES of the connection's database, dropped since its login (GetDatabasesHandler). */
  TXN_CURRENT_DATABASE_REMOVED: { code: 10085, name: 'TXN_CURRENT_DATABASE_REMOVED' },
  /** GET_DATABASES answering a client older than GridDB 4.3 what it cannot read. */
  DS_CON_ACCESS_INVALID: { code: 60153, name: 'DS_CON_ACCESS_INVALID' },
  /** A container statement sent to another partition than its container's. */
  TXN_PARTITION_ID_INVALID: { code: 10065, name: 'TXN_PARTITION_ID_INVALID' },
  /** A container schema the node refuses (a type, a key, a column name). */
  DS_DS_SCHEMA_INVALID: { code: 60015, name: 'DS_DS_SCHEMA_INVALID' },
  /** PUT_CONTAINER with another schema for an existing container, without modifiable. */
  DS_DS_CHANGE_SCHEMA_DISABLE: { code: 60016, name: 'DS_DS_CHANGE_SCHEMA_DISABLE' },
  /** GET_CONTAINER of a collection as a time series, or the other way round (getBaseContainer). */
  DS_DS_CONTAINER_TYPE_INVALID: { code: 60026, name: 'DS_DS_CONTAINER_TYPE_INVALID' },
  /** A container name the node refuses (empty, a part store does not have). */
  DS_DS_CONTAINER_NAME_INVALID: { code: 60025, name: 'DS_DS_CONTAINER_NAME_INVALID' },
  /**
   * Sampling (QUERY_TIME_SERIES_SAMPLING) by YEAR or MONTH, or a unit GridDB does not have:
   * GridDB's TimeSeries::sample accepts DAY to MILLISECOND only (server/time_series.cpp).
   */
  DS_TIM_SAMPLING_TIME_UNIT_INVALID: { code: 60074, name: 'DS_TIM_SAMPLING_TIME_UNIT_INVALID' },
  /**
   * FETCH_ROW_SET of a row set the node does not hold (closed, or its connection gone): the
   * client turns it into GS_ERROR_CC_RECOVERABLE_ROW_SET_LOST (client.cpp
   * ROW_SET_NOT_FOUND_ERROR_CODE).
   */
  DS_DS_RESULT_ID_INVALID: { code: 60132, name: 'DS_DS_RESULT_ID_INVALID' },
  /**
   * A row lock still held by another transaction when the waiting statement's transaction
   * timeout ran out: GridDB's data store throws it and the lock wait rethrows it at its timeout.
   */
  DS_CON_LOCK_CONFLICT: { code: 60166, name: 'DS_CON_LOCK_CONFLICT' },
  /**
   * A session the node does not have (TransactionManager's context lookup): the client opens a
   * new session and sends the statement again unless its transaction had begun.
   */
  TM_SESSION_NOT_FOUND: { code: 110003, name: 'TM_SESSION_NOT_FOUND' },
  /** connectionLimit reached: store's LIMIT_EXCEEDED (lib/base/errors.ts). */
  LIMIT_EXCEEDED: { code: 100005, name: 'LIMIT_EXCEEDED' },
} as const;
export type GriddbErrorCode = (typeof GriddbErrorCode)[keyof typeof GriddbErrorCode];
/** A code and its name as an error stack carries them (GridDB's, or store's own). */
export interface GriddbErrorName {
  readonly code: number;
  readonly name: string;
}

export class GriddbError extends Error {
  constructor(readonly error: GriddbErrorName, message: string) {
    super(message);
    this.name = 'GriddbError';
  }
}

/** Writes the error stack drawn above. */
export function griddbErrorStackWrite(writer: ByteWriter, error: GriddbErrorName,
  message: string): void {
  writer.i32(1);
  writer.i32(error.code);
  griddbStringWrite(writer, message);
  griddbStringWrite(writer, '');
  griddbStringWrite(writer, '');
  griddbStringWrite(writer, '');
  writer.i32(0);
  griddbStringWrite(writer, error.name);
  writer.i32(0);
}
