// What an engine thread's SQL statement asks of the node's other engine threads (one per partition
// group, lib/node/engine-thread/), through the main thread: the rows of a metatable from every
// group ("#sqls", "#tables", "#index_info", "#sockets" are each group's; the node shows them all),
// and a table that lives in another group (INSERT INTO a SELECT … FROM b): its schema, then its
// committed rows page by page. Answers are plain data (structured clone carries bigint and
// Uint8Array). Where every group runs in one thread there are no peers and the local answer is
// the node's.
//
//   metatableRows  every group answers its rows (at most SQL_METATABLE_GROUP_ROW_COUNT_MAX each,
//                  else LIMIT_EXCEEDED); the main thread joins them in group order
//   tableSchema    the group of the table answers its schema, or undefined
//   view           the group of the view's name answers its name and SELECT, or undefined
//   scanPage       the group of the table answers up to rowCountMax committed rows after the key
//                  `after` (exclusive; before it when `descending`), and where the next page
//                  starts (undefined: no more); with an `index` range, only the rows the index
//                  names (when the index pays: sql-index-scan.ts), still in key order

import { StorageError } from '../base/errors.ts';
import { SQL_METATABLE_GROUP_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Store } from '../engine/store.ts';
import { storeSqlDatabase, storeSqlScanPage, type SqlScanPage } from '../engine/sql-database.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { DatabaseId } from '../schema/database-names.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { SqlMetatableName, SqlNodeActivity } from '../sql/meta/metatables.ts';
import type { SqlIndexRange } from '../sql/plan/logical-plan.ts';
import type { SqlView } from '../sql/sql-database.ts';
import type { SqlValue } from '../sql/value.ts';

/** Every call is made in the statement's database (lib/schema/database-names.ts); public when absent. */
export type SqlPeerCall = { readonly databaseId?: DatabaseId } & (
  | { readonly kind: 'metatableRows'; readonly name: SqlMetatableName }
  | { readonly kind: 'tableSchema'; readonly name: string }
  | { readonly kind: 'view'; readonly name: string }
  | {
    readonly kind: 'scanPage'; readonly table: string; readonly columnIndexes: readonly number[];
    /** The key range the plan pushed down (inclusive). */
    readonly from: RowKey | undefined; readonly to: RowKey | undefined;
    readonly after: RowKey | undefined; readonly rowCountMax: number;
    readonly index?: SqlIndexRange | undefined; readonly descending?: boolean | undefined;
  });

/** The answers, by call. */
export interface SqlPeerAnswers {
  metatableRows: SqlValue[][];
  tableSchema: ContainerSchema | undefined;
  view: SqlView | undefined;
  scanPage: SqlScanPage;
}

export interface SqlPeers {
  call<K extends SqlPeerCall['kind']>(call: Extract<SqlPeerCall, { kind: K }>): Promise<SqlPeerAnswers[K]>;
}

/** This group's answer to a peer call (the main thread joins metatable rows of every group). */
export function sqlPeerAnswer(store: Store, activity: SqlNodeActivity, call: SqlPeerCall): unknown {
  const database = storeSqlDatabase(store, {
    yieldTurn: () => Promise.resolve(), activity,
    ...(call.databaseId === undefined ? {} : { databaseId: call.databaseId }),
  });
  switch (call.kind) {
    case 'metatableRows': {
      const rows = database.metatableRows(call.name);
      if (rows.length > SQL_METATABLE_GROUP_ROW_COUNT_MAX) {
        throw new StorageError('LIMIT_EXCEEDED', `the metatable "${call.name}" has ${rows.length} rows in one ` +
          `partition group, more than ${SQL_METATABLE_GROUP_ROW_COUNT_MAX}`);
      }
      return rows;
    }
    case 'tableSchema': return database.tableSchema(call.name);
    case 'view': return database.view(call.name);
    case 'scanPage': return storeSqlScanPage(store, call);
  }
}
