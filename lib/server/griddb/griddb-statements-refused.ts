// The statements GridDB's C client 5.8 can send with protocol v15 that this node does not
// answer, each refused with a reply naming the statement and the API call that sent it (the
// application gets the code as its GSResult; the connection carries on). From the audit of
// client.h's Statement enum against client.cpp: the separate time-series and collection forms
// (GET_TIME_SERIES 106, PUT_TIME_SERIES 108, DROP_COLLECTION 109, DROP_TIME_SERIES 110, 130,
// 134, 137-139, 142) and GET_MULTIPLE_ROWS 141 are sent only below protocol 3 and
// CREATE/DROP_INDEX 113/114 only below 13; the geometry queries 122/123 fail in the client
// before anything is sent (its encodeGeometry: "GEOMETRY is not a supported type"). The rest:
//
//   CREATE/DROP_EVENT_NOTIFICATION 115/116  gsCreate/DropEventNotification (deprecated): GridDB
//                                           5.x refuses them too, with TXN_STATEMENT_TYPE_UNSUPPORTED
//   CREATE/DROP_TRIGGER 152/153             gsCreateTrigger/gsDropTrigger: GridDB 5.x refuses
//                                           them too, with CM_NOT_SUPPORTED ("Trigger not support")
//
// Any other number is GridDB's TXN_STATEMENT_TYPE_UNKNOWN.

import { GriddbErrorCode, type GriddbErrorName } from './griddb-error.ts';

export interface GriddbStatementRefused {
  name: string;
  call: string;
  error: GriddbErrorName;
  why: string;
}

const NOT_IN_GRIDDB_5 = 'is not supported by GridDB 5.x';

export const GRIDDB_STATEMENTS_REFUSED: ReadonlyMap<number, GriddbStatementRefused> = new Map([
  [115, { name: 'CREATE_EVENT_NOTIFICATION', call: 'gsCreateEventNotification',
    error: GriddbErrorCode.TXN_STATEMENT_TYPE_UNSUPPORTED, why: NOT_IN_GRIDDB_5 }],
  [116, { name: 'DROP_EVENT_NOTIFICATION', call: 'gsDropEventNotification',
    error: GriddbErrorCode.TXN_STATEMENT_TYPE_UNSUPPORTED, why: NOT_IN_GRIDDB_5 }],
  [152, { name: 'CREATE_TRIGGER', call: 'gsCreateTrigger',
    error: GriddbErrorCode.CM_NOT_SUPPORTED, why: NOT_IN_GRIDDB_5 }],
  [153, { name: 'DROP_TRIGGER', call: 'gsDropTrigger',
    error: GriddbErrorCode.CM_NOT_SUPPORTED, why: NOT_IN_GRIDDB_5 }],
]);

/** The refusal's message: which statement, which call, why. */
export function griddbRefusalMessage(type: number): string {
  const refused = GRIDDB_STATEMENTS_REFUSED.get(type);
  return refused === undefined
    ? `statement ${type} is not a GridDB v15 statement this node knows`
    : `statement ${type} (${refused.name}, ${refused.call}) ${refused.why}`;
}
