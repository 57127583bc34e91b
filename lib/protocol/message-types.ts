// The message types of the client protocol: the messageType byte of a frame (frame.ts). A request
// and its reply carry the same type. Numbers never change meaning; a retired type keeps its number.
//
//   connection   1 HELLO  2 AUTH  3 PING  4 SESSION_OPEN  5 SESSION_CLOSE
//   containers  10 CONTAINER_PUT  11 CONTAINER_INFO  12 CONTAINER_DROP  13 CONTAINER_LIST
//               14 CREATE_INDEX  15 DROP_INDEX
//   rows        20 ROW_PUT (put is a multiPut of one row)  21 ROW_GET  22 ROW_REMOVE
//               23 MULTI_PUT  24 MULTI_GET (several containers)
//               25 ROW_PUT_EXISTED (one row; answers whether its key had a row: GridDB's PUT_ROW)
//               26 ROW_GET_FOR_UPDATE (ROW_GET that locks the key for the session's transaction)
//   transaction 30 SET_AUTO_COMMIT  31 COMMIT  32 ABORT
//               33 LOG_SYNC (the xlog of a container's partition synced now: GridDB's gsFlush)
//   queries     40 QUERY  41 FETCH  42 RESULT_CLOSE  43 SQL_EXECUTE (pages on with FETCH)
//               44 SQL_CANCEL (a running statement by its "#sqls" query id, from any connection)

export const MessageType = {
  HELLO: 1,
  AUTH: 2,
  PING: 3,
  SESSION_OPEN: 4,
  SESSION_CLOSE: 5,
  CONTAINER_PUT: 10,
  CONTAINER_INFO: 11,
  CONTAINER_DROP: 12,
  CONTAINER_LIST: 13,
  CREATE_INDEX: 14,
  DROP_INDEX: 15,
  ROW_PUT: 20,
  ROW_GET: 21,
  ROW_REMOVE: 22,
  MULTI_PUT: 23,
  MULTI_GET: 24,
  ROW_PUT_EXISTED: 25,
  ROW_GET_FOR_UPDATE: 26,
  SET_AUTO_COMMIT: 30,
  COMMIT: 31,
  ABORT: 32,
  LOG_SYNC: 33,
  QUERY: 40,
  FETCH: 41,
  RESULT_CLOSE: 42,
  SQL_EXECUTE: 43,
  SQL_CANCEL: 44,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

/** Names by number, for messages; an unknown number has none. */
export const MESSAGE_TYPE_NAMES: Readonly<Record<number, string | undefined>> = Object.fromEntries(
  Object.entries(MessageType).map(([name, type]) => [type, name]));
