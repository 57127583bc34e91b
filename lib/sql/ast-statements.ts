// The statement nodes of the SQL syntax tree (ast.ts holds expressions and queries). One node per
// statement form of §5.1; forms the executor does not run itself still parse to a node (users,
// grants, databases: a node's access catalog runs them; roles: NOT_SUPPORTED with the position).

import type { SqlExpression, SqlHint, SqlLiteral, SqlName, SqlQuery, SqlTimeUnit } from './ast.ts';
import type { SqlPosition } from './errors.ts';
import type { SqlColumnType } from './sql-types.ts';

export interface SqlColumnDefinition {
  readonly name: SqlName;
  readonly type: SqlColumnType;
  /** `NOT NULL` → false, `NULL` → true, neither written → undefined (the default applies). */
  readonly nullable: boolean | undefined;
  /** `col type PRIMARY KEY`: only on the first column (§5.2). */
  readonly primaryKey: boolean;
}

/** PARTITION BY: parsed so the executor can refuse it with NOT_SUPPORTED (§4.9). */
export type SqlPartitioning =
  | {
    readonly kind: 'hash'; readonly column: SqlName; readonly partitionCount: bigint;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'interval'; readonly column: SqlName; readonly interval: bigint;
    readonly unit: 'DAY' | 'HOUR' | undefined;
    readonly subpartition: { readonly column: SqlName; readonly count: bigint } | undefined;
    readonly position: SqlPosition;
  };

export interface SqlTableOption {
  readonly key: SqlName;
  readonly value: SqlLiteral;
}

export type SqlInsertMode = 'INSERT' | 'INSERT OR REPLACE' | 'REPLACE';

export type SqlStatement =
  | {
    readonly kind: 'select'; readonly hints: readonly SqlHint[]; readonly query: SqlQuery;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'insert'; readonly hints: readonly SqlHint[]; readonly mode: SqlInsertMode;
    readonly table: SqlName; readonly columns: readonly SqlName[] | undefined;
    readonly source:
      | { readonly kind: 'values'; readonly rows: readonly (readonly SqlExpression[])[] }
      | { readonly kind: 'query'; readonly query: SqlQuery };
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'update'; readonly hints: readonly SqlHint[]; readonly table: SqlName;
    readonly assignments: readonly { readonly column: SqlName; readonly value: SqlExpression }[];
    readonly where: SqlExpression | undefined; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'delete'; readonly hints: readonly SqlHint[]; readonly table: SqlName;
    readonly where: SqlExpression | undefined; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'explain'; readonly analyze: boolean; readonly statement: SqlStatement;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'createTable'; readonly ifNotExists: boolean; readonly name: SqlName;
    readonly columns: readonly SqlColumnDefinition[];
    /** The table constraint `PRIMARY KEY (a, b)`; a column's own PRIMARY KEY is on the column. */
    readonly primaryKey: readonly SqlName[] | undefined;
    readonly timeSeries: boolean; readonly options: readonly SqlTableOption[];
    readonly partitioning: SqlPartitioning | undefined; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'dropTable'; readonly ifExists: boolean; readonly name: SqlName;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'createIndex'; readonly ifNotExists: boolean; readonly name: SqlName;
    readonly table: SqlName; readonly columns: readonly SqlName[]; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'dropIndex'; readonly ifExists: boolean; readonly name: SqlName;
    readonly table: SqlName; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'alterTableAddColumns'; readonly table: SqlName;
    readonly columns: readonly SqlColumnDefinition[]; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'alterTableRenameColumn'; readonly table: SqlName; readonly from: SqlName;
    readonly to: SqlName; readonly position: SqlPosition;
  }
  /** ALTER TABLE t DROP PARTITION FOR (value): partitioning, NOT_SUPPORTED for now. */
  | {
    readonly kind: 'alterTableDropPartition'; readonly table: SqlName;
    readonly value: SqlExpression; readonly position: SqlPosition;
  }
  | SqlAdministrationStatement;

/**
 * Databases, users, roles, privileges and views (§5.2, §5.3): parsed whole; views run in the
 * executor (run-view.ts), the others on a node's access catalog, roles nowhere (NOT_SUPPORTED).
 */
export type SqlAdministrationStatement =
  | {
    readonly kind: 'createDatabase' | 'dropDatabase' | 'createRole' | 'dropRole' | 'dropUser';
    readonly name: SqlName; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'createUser'; readonly name: SqlName; readonly password: string;
    /** `IDENTIFIED BY SHA256 'hex'` (store's): password is GridDB's SHA-256 digest of it. */
    readonly digest?: true;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'setPassword'; readonly user: SqlName | undefined; readonly password: string;
    readonly digest?: true;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'grant' | 'revoke'; readonly privilege: 'SELECT' | 'ALL';
    readonly database: SqlName; readonly grantee: SqlName; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'createView'; readonly force: boolean; readonly name: SqlName;
    readonly query: SqlQuery; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'dropView'; readonly ifExists: boolean; readonly name: SqlName;
    readonly position: SqlPosition;
  };

/** Statement kinds the store parses but does not run yet: the executor answers NOT_SUPPORTED. */
export const SQL_STATEMENT_KINDS_NOT_SUPPORTED: ReadonlySet<SqlStatement['kind']> = new Set([
  'createDatabase', 'dropDatabase', 'createRole', 'dropRole',
  'createUser', 'dropUser', 'setPassword', 'grant', 'revoke',
] as const);

export type { SqlTimeUnit };
