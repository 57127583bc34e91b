// GridDB's NoSQL statement numbers (protocol v15: the C client's Statement enum index + 100, the
// server's GSEventType; spec/internals.md §4.3) and the result byte of a reply. Only the numbers
// this node answers are listed; any other statement gets GridDB's "not supported" error.

export const GriddbStatement = {
  CONNECT: 100,
  DISCONNECT: 101,
  LOGIN: 102,
  LOGOUT: 103,
  GET_PARTITION_ADDRESS: 104,
  GET_CONTAINER: 105,
  PUT_CONTAINER: 107,
  CREATE_SESSION: 111,
  CLOSE_SESSION: 112,
  FLUSH_LOG: 117,
  COMMIT_TRANSACTION: 118,
  ABORT_TRANSACTION: 119,
  GET_ROW: 120,
  QUERY_TQL: 121,
  PUT_ROW: 124,
  PUT_MULTIPLE_ROWS: 125,
  UPDATE_ROW_BY_ID: 126,
  DELETE_ROW: 127,
  DELETE_ROW_BY_ID: 128,
  APPEND_TIME_SERIES_ROW: 129,
  GET_TIME_SERIES_ROW_RELATED: 131,
  INTERPOLATE_TIME_SERIES_ROW: 132,
  AGGREGATE_TIME_SERIES: 133,
  QUERY_TIME_SERIES_RANGE: 135,
  QUERY_TIME_SERIES_SAMPLING: 136,
  GET_CONTAINER_PROPERTIES: 140,
  GET_PARTITION_CONTAINER_NAMES: 143,
  DROP_CONTAINER: 144,
  CREATE_MULTIPLE_SESSIONS: 145,
  CLOSE_MULTIPLE_SESSIONS: 146,
  EXECUTE_MULTIPLE_QUERIES: 147,
  GET_MULTIPLE_CONTAINER_ROWS: 148,
  PUT_MULTIPLE_CONTAINER_ROWS: 149,
  CLOSE_ROW_SET: 150,
  FETCH_ROW_SET: 151,
  GET_USERS: 154,
  PUT_USER: 155,
  DROP_USER: 156,
  GET_DATABASES: 157,
  PUT_DATABASE: 158,
  DROP_DATABASE: 159,
  PUT_PRIVILEGE: 160,
  DROP_PRIVILEGE: 161,
  CREATE_INDEX_DETAIL: 162,
  DROP_INDEX_DETAIL: 163,
} as const;
export type GriddbStatement = (typeof GriddbStatement)[keyof typeof GriddbStatement];

/** The byte after the statement id in a reply (client.cpp StatementResult). */
export const GriddbResult = {
  SUCCESS: 0,
  /** The application's error: the client returns it to the application as it is. */
  STATEMENT_ERROR: 1,
  /** The node's error: the client retries on another connection until failoverTimeout. */
  NODE_ERROR: 2,
  /** Wrong node (not the partition's owner): the client refreshes its partition map. */
  DENY: 3,
} as const;
export type GriddbResult = (typeof GriddbResult)[keyof typeof GriddbResult];

/** The one NoSQL protocol version GridDB 5.x accepts (TXN_V4_0_1_CLIENT_VERSION). */
export const GRIDDB_PROTOCOL_VERSION = 15;
