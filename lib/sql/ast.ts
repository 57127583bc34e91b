// The syntax tree of SQL statements, as the parser reads them: names are not resolved and nothing
// is typed yet. Every node keeps the position of its first token, for the errors of later stages.
//
// Shape for what comes next (joins, subqueries, set operations, window functions, views): a query
// is a tree the planner turns into relational operators (scan, filter, project, aggregate, sort,
// limit), never a special case per statement shape. FROM holds one SqlTableReference, a node
// union that joins (`{ kind: 'join', left, right, ... }`) and derived tables (`{ kind: 'subquery',
// query, alias }`) extend; SqlQuery is a union that set operations (`{ kind: 'setOperation' }`)
// extend; INSERT's source is a SqlQuery or VALUES; subquery expressions join SqlExpression. The
// parser refuses those forms today with NOT_SUPPORTED at their position.

import type { SqlPosition } from './errors.ts';
import type { SqlColumnType } from './sql-types.ts';

/** A name as written: `quoted` names keep their case and may be reserved words or "#tables". */
export interface SqlName {
  readonly text: string;
  readonly quoted: boolean;
  readonly position: SqlPosition;
}

export type SqlLiteral =
  | { readonly type: 'NULL' }
  | { readonly type: 'BOOL'; readonly value: boolean }
  /**
   * Any integer the text holds, exact; the executor checks it fits a LONG. Negative only as a
   * WITH option value: in expressions a minus sign is a unary operator.
   */
  | { readonly type: 'INTEGER'; readonly value: bigint }
  | { readonly type: 'DOUBLE'; readonly value: number }
  | { readonly type: 'STRING'; readonly value: string }
  | { readonly type: 'BLOB'; readonly value: Uint8Array };

export type SqlBinaryOperator =
  | 'OR' | 'AND' | '=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>='
  | '&' | '|' | '<<' | '>>' | '+' | '-' | '*' | '/' | '%' | '||';

export type SqlUnaryOperator = '-' | '+' | '~' | 'NOT';

/** Units of GROUP BY RANGE and of EXTRACT, TIMESTAMP_ADD, TIMESTAMP_DIFF, TIMESTAMP_TRUNC. */
export type SqlTimeUnit = string;

export interface SqlOrderItem {
  readonly expression: SqlExpression;
  readonly direction: 'ASC' | 'DESC' | undefined;
}

export type SqlExpression =
  | { readonly kind: 'literal'; readonly literal: SqlLiteral; readonly position: SqlPosition }
  /** A column, `col` or `table.col`. */
  | {
    readonly kind: 'column'; readonly table: SqlName | undefined; readonly name: SqlName;
    readonly position: SqlPosition;
  }
  /** A `?` parameter: `index` counts from 1 in order of appearance in its statement. */
  | {
    readonly kind: 'parameter'; readonly index: number; readonly text: string;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'unary'; readonly operator: SqlUnaryOperator; readonly operand: SqlExpression;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'binary'; readonly operator: SqlBinaryOperator;
    readonly left: SqlExpression; readonly right: SqlExpression; readonly position: SqlPosition;
  }
  /** `a IS b`, `a IS NOT b`: NULL-safe equality. */
  | {
    readonly kind: 'is'; readonly negated: boolean; readonly left: SqlExpression;
    readonly right: SqlExpression; readonly position: SqlPosition;
  }
  /** `a ISNULL`, `a NOTNULL` (also written `a NOT NULL`). */
  | {
    readonly kind: 'isNull'; readonly negated: boolean; readonly operand: SqlExpression;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'like'; readonly operator: 'LIKE' | 'GLOB'; readonly negated: boolean;
    readonly operand: SqlExpression; readonly pattern: SqlExpression;
    readonly escape: SqlExpression | undefined; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'between'; readonly negated: boolean; readonly operand: SqlExpression;
    readonly low: SqlExpression; readonly high: SqlExpression; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'in'; readonly negated: boolean; readonly operand: SqlExpression;
    readonly list: readonly SqlExpression[]; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'case'; readonly operand: SqlExpression | undefined;
    readonly whens: readonly { readonly when: SqlExpression; readonly then: SqlExpression }[];
    readonly otherwise: SqlExpression | undefined; readonly position: SqlPosition;
  }
  | {
    readonly kind: 'cast'; readonly operand: SqlExpression; readonly type: SqlColumnType;
    readonly position: SqlPosition;
  }
  /**
   * A function call. `name` is as written (functions are case-insensitive); `star` for COUNT(*);
   * `quantifier` for aggregates `f(DISTINCT x)`; `withinGroup` for PERCENTILE_CONT(p) WITHIN
   * GROUP (ORDER BY ...).
   */
  | {
    readonly kind: 'call'; readonly name: string; readonly star: boolean;
    readonly quantifier: 'DISTINCT' | 'ALL' | undefined; readonly args: readonly SqlExpression[];
    readonly withinGroup: readonly SqlOrderItem[] | undefined; readonly position: SqlPosition;
  }
  /** A unit keyword as a function argument: EXTRACT(YEAR, ts), TIMESTAMP_ADD(DAY, ts, 1). */
  | { readonly kind: 'timeUnit'; readonly unit: SqlTimeUnit; readonly position: SqlPosition }
  /** `f(args) OVER (PARTITION BY … ORDER BY … frame)` (§5.5): only in the select list. */
  | {
    readonly kind: 'window'; readonly call: Extract<SqlExpression, { kind: 'call' }>;
    readonly partitionBy: readonly SqlExpression[]; readonly orderBy: readonly SqlOrderItem[];
    readonly frame: SqlWindowFrame | undefined; readonly position: SqlPosition;
  }
  /** `(SELECT ...)` as a value: one column, at most one row (none: NULL). */
  | { readonly kind: 'scalarSubquery'; readonly query: SqlQuery; readonly position: SqlPosition }
  | {
    readonly kind: 'exists'; readonly negated: boolean; readonly query: SqlQuery;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'inSubquery'; readonly negated: boolean; readonly operand: SqlExpression;
    readonly query: SqlQuery; readonly position: SqlPosition;
  };

export type SqlSelectItem =
  | { readonly kind: 'star'; readonly table: SqlName | undefined; readonly position: SqlPosition }
  | {
    readonly kind: 'expression'; readonly expression: SqlExpression;
    readonly alias: SqlName | undefined;
  };

/** What FROM reads: a table, a join of two references, or a derived table `(SELECT ...) alias`. */
export type SqlTableReference =
  | {
    readonly kind: 'table'; readonly name: SqlName; readonly alias: SqlName | undefined;
    readonly position: SqlPosition;
  }
  /**
   * `left [NATURAL] {[INNER] | LEFT [OUTER] | CROSS} JOIN right [ON cond | USING (cols)]`; a
   * comma is a CROSS join. `condition` and `using` are both undefined for CROSS and NATURAL.
   */
  | {
    readonly kind: 'join'; readonly type: SqlJoinType; readonly natural: boolean;
    readonly left: SqlTableReference; readonly right: SqlTableReference;
    readonly condition: SqlExpression | undefined; readonly using: readonly SqlName[] | undefined;
    readonly position: SqlPosition;
  }
  | {
    readonly kind: 'derived'; readonly query: SqlQuery; readonly alias: SqlName;
    readonly position: SqlPosition;
  }
  /** `source MATCH_RECOGNIZE (...) [[AS] alias]` (§5.5, 5.9): row pattern recognition. */
  | {
    readonly kind: 'matchRecognize'; readonly source: SqlMatchSource;
    readonly clause: SqlMatchRecognize; readonly alias: SqlName | undefined;
    readonly position: SqlPosition;
  };

/** What MATCH_RECOGNIZE reads: a table (or view) by name, or `(SELECT ...)`, neither aliased. */
export type SqlMatchSource =
  | { readonly kind: 'table'; readonly name: SqlName }
  | { readonly kind: 'query'; readonly query: SqlQuery };

/**
 * The inside of MATCH_RECOGNIZE (...), GridDB 5.9's grammar. `rowsPerMatch` undefined: not
 * written (GridDB's parser then takes ALL ROWS PER MATCH). `skipPastLastRow`: `AFTER MATCH SKIP
 * PAST LAST ROW` was written (the only skip GridDB has, and the default).
 */
export interface SqlMatchRecognize {
  readonly partitionBy: readonly SqlExpression[];
  readonly orderBy: readonly SqlOrderItem[];
  readonly measures: readonly { readonly expression: SqlExpression; readonly alias: SqlName | undefined }[];
  readonly rowsPerMatch: 'ONE ROW' | 'ALL ROWS' | undefined;
  readonly skipPastLastRow: boolean;
  readonly pattern: SqlRowPattern;
  readonly define: readonly { readonly name: SqlName; readonly condition: SqlExpression }[];
}

/**
 * A row pattern: a regular expression over pattern variables. `max` is Infinity for `*`, `+`,
 * `{n,}`; an anchor is zero-width: `^` the partition's start, `$` its end. Parentheses leave no
 * node: `(A B) C` is a concatenation whose first item is a concatenation.
 */
export type SqlRowPattern =
  | { readonly kind: 'variable'; readonly name: SqlName }
  | { readonly kind: 'anchor'; readonly anchor: '^' | '$'; readonly position: SqlPosition }
  | { readonly kind: 'concat'; readonly items: readonly SqlRowPattern[] }
  | { readonly kind: 'alternation'; readonly items: readonly SqlRowPattern[] }
  | {
    readonly kind: 'quantified'; readonly pattern: SqlRowPattern; readonly min: number;
    readonly max: number; readonly position: SqlPosition;
  };

/** `{ROWS | RANGE} BETWEEN start AND end`; a single bound `b` is `BETWEEN b AND CURRENT ROW`. */
export interface SqlWindowFrame {
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: SqlFrameBound;
  readonly end: SqlFrameBound;
}

/** `n` (and `timeUnit` for `(n, unit)`) with PRECEDING / FOLLOWING. */
export type SqlFrameBound =
  | { readonly kind: 'UNBOUNDED PRECEDING' | 'UNBOUNDED FOLLOWING' | 'CURRENT ROW' }
  | {
    readonly kind: 'PRECEDING' | 'FOLLOWING'; readonly offset: bigint;
    readonly timeUnit: SqlTimeUnit | undefined;
  };

/** GridDB has no RIGHT or FULL outer join (§5.5): the parser refuses them. */
export type SqlJoinType = 'INNER' | 'LEFT' | 'CROSS';

export type SqlFillMethod = 'LINEAR' | 'NONE' | 'NULL' | 'PREVIOUS';

export type SqlGroupBy =
  | { readonly kind: 'expressions'; readonly expressions: readonly SqlExpression[] }
  /** GROUP BY RANGE(key) EVERY(interval, unit[, offset]) [FILL(method)] (§5.6). */
  | {
    readonly kind: 'range'; readonly key: SqlExpression; readonly interval: bigint;
    readonly unit: SqlTimeUnit;
    /** A LONG in `unit`, or a time zone string `Z`, `+09:00`, `-0130`. */
    readonly offset: bigint | string | undefined;
    readonly fill: SqlFillMethod | undefined; readonly position: SqlPosition;
  };

export interface SqlSelectCore {
  readonly kind: 'select';
  readonly quantifier: 'DISTINCT' | 'ALL' | undefined;
  readonly items: readonly SqlSelectItem[];
  readonly from: SqlTableReference | undefined;
  readonly where: SqlExpression | undefined;
  readonly groupBy: SqlGroupBy | undefined;
  readonly having: SqlExpression | undefined;
  /** Expressions, output aliases or 1-based ordinals (integer literals): the planner tells. */
  readonly orderBy: readonly SqlOrderItem[];
  readonly limit: SqlExpression | undefined;
  readonly offset: SqlExpression | undefined;
  readonly position: SqlPosition;
}

export type SqlSetOperator = 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT';

/**
 * `left op right [ORDER BY ...] [LIMIT ...]`: the operators bind equally, left to right (as in
 * GridDB and SQLite; PostgreSQL binds INTERSECT tighter). ORDER BY and LIMIT apply to the whole.
 */
export interface SqlSetOperation {
  readonly kind: 'setOperation';
  readonly operator: SqlSetOperator;
  readonly left: SqlQuery;
  readonly right: SqlSelectCore;
  /** Output column names or 1-based ordinals. */
  readonly orderBy: readonly SqlOrderItem[];
  readonly limit: SqlExpression | undefined;
  readonly offset: SqlExpression | undefined;
  readonly position: SqlPosition;
}

export type SqlQuery = SqlSelectCore | SqlSetOperation;

/** One optimizer hint of a hint comment: `IndexScan(t)`, `Leading((t1 t2) t3)`. */
export interface SqlHint {
  readonly name: string;
  readonly args: readonly SqlHintArgument[];
  readonly position: SqlPosition;
}

export type SqlHintArgument =
  | { readonly kind: 'name'; readonly text: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'group'; readonly items: readonly SqlHintArgument[] };

export type { SqlStatement, SqlColumnDefinition, SqlPartitioning } from './ast-statements.ts';
