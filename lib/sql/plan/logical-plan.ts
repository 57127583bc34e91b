// The logical plan: a tree of relational operators the planner builds from a statement and the
// executor runs. Each node says what columns it gives (name and SqlType); the expressions inside a
// node refer to the columns of its input by position.
//
//   values ── filter ── aggregate ── filter ── project ── distinct ── sort ── limit
//   scan   ─┤         └ rangeGroup ┘
//   metatable ┘
//
// Joins and set operations are nodes with two inputs (`left`, `right`), laid out left's columns
// then right's; subqueries are expressions holding their own plan (bound-expression.ts). Windows
// (a later slice) will be one more node kind; nothing here assumes one table except `scan`.

import type { KeyValue, RowKey, Value } from '../../schema/column-type.ts';
import type { SqlFillMethod } from '../ast.ts';
import type { SqlMetatableName } from '../meta/metatables.ts';
import type { SqlType } from '../value.ts';
import type { SqlRowPatternProgram } from './row-pattern-program.ts';
import type { SqlBoundExpression } from './bound-expression.ts';

export interface SqlPlanColumn {
  readonly name: string;
  readonly type: SqlType;
}

/** Every aggregate of §5.8 (STDDEV and VARIANCE are aliases resolved by the planner). */
export type SqlAggregateName =
  | 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX' | 'TOTAL' | 'GROUP_CONCAT' | 'STDDEV_SAMP'
  | 'STDDEV0' | 'STDDEV_POP' | 'VAR_SAMP' | 'VARIANCE0' | 'VAR_POP' | 'MEDIAN'
  | 'PERCENTILE_CONT'
  /** Not SQL: a column outside GROUP BY takes the value of its group's first row, as in SQLite. */
  | 'FIRST';

export interface SqlAggregateCall {
  readonly name: SqlAggregateName;
  /** COUNT(*): none. GROUP_CONCAT: value [, separator]. PERCENTILE_CONT: the ORDER BY key. */
  readonly args: readonly SqlBoundExpression[];
  readonly distinct: boolean;
  /** PERCENTILE_CONT's fraction; GROUP_CONCAT's separator. */
  readonly fraction?: number;
  readonly separator?: string;
  readonly type: SqlType;
}

/**
 * Inclusive bounds on the row key the scan reads; undefined: unbounded on that side. For a
 * composite key each bound is an array of the leading key columns' values (a prefix of the key).
 */
export interface SqlKeyRange {
  readonly from: RowKey | undefined;
  readonly to: RowKey | undefined;
  /** A bound proved no row can match (`k < 5 AND k > 9`): nothing is read. */
  readonly empty: boolean;
}

/**
 * A range of a TREE index (plan-index-range.ts): entries whose leading values lie between `low`
 * and `high` (prefixes of the index's columns, in the index's order; empty: that side unbounded).
 * The shape of the engine's index ranges (lib/query/tql/plan-index.ts), so it reads them as they are.
 */
export interface SqlIndexRange {
  /** The index's name as defined ('' when unnamed) and its columns. */
  readonly name: string;
  readonly columnIndexes: readonly number[];
  readonly low: readonly Value[];
  readonly lowInclusive: boolean;
  readonly high: readonly Value[];
  readonly highInclusive: boolean;
}

export type SqlPlanNode =
  | {
    /** Rows of a table: only `columnIndexes` are read, only keys in `keyRange`. */
    readonly kind: 'scan'; readonly table: string; readonly columnIndexes: readonly number[];
    readonly keyRange: SqlKeyRange;
    /** Disjoint ranges in key order inside keyRange, read one after the other; undefined: keyRange. */
    readonly keyRanges?: readonly SqlKeyRange[] | undefined;
    /** Rows come in descending key order (an ORDER BY … DESC the scan gives, plan-scan.ts). */
    readonly descending?: boolean;
    /** Only the rows this index range names are read (the engine may scan instead: same rows). */
    readonly index: SqlIndexRange | undefined;
    /** Rows read at most (a LIMIT pushed down when nothing between drops rows). */
    readonly rowCountMax: number; readonly columns: readonly SqlPlanColumn[];
  }
  /** The rows of a metatable (§5.11), read from the database when the plan runs. */
  | { readonly kind: 'metatable'; readonly table: SqlMetatableName; readonly columns: readonly SqlPlanColumn[] }
  /** Constant rows: VALUES, or the one empty row of `SELECT 1+1`. */
  | {
    readonly kind: 'values'; readonly rows: readonly (readonly SqlBoundExpression[])[];
    readonly columns: readonly SqlPlanColumn[];
  }
  | {
    readonly kind: 'filter'; readonly input: SqlPlanNode; readonly predicate: SqlBoundExpression;
    readonly columns: readonly SqlPlanColumn[];
  }
  | {
    readonly kind: 'project'; readonly input: SqlPlanNode;
    readonly expressions: readonly SqlBoundExpression[]; readonly columns: readonly SqlPlanColumn[];
  }
  /** Gives the group keys, then one column per aggregate. No keys: one group, even when empty. */
  | {
    readonly kind: 'aggregate'; readonly input: SqlPlanNode;
    readonly keys: readonly SqlBoundExpression[]; readonly aggregates: readonly SqlAggregateCall[];
    /**
     * The groups are computed inside the scan below (input: a scan, or a filter over one), on the
     * blocks' own columns, with no pages (plan-scan-aggregate.ts, execute-scan-aggregate.ts).
     */
    readonly inScan?: true | undefined;
    /**
     * MAX of the second row-key column grouped by the first: only the last row of each key prefix
     * is read (plan-skip-scan.ts, execute-skip-scan.ts).
     */
    readonly skipScan?: true;
    readonly columns: readonly SqlPlanColumn[];
  }
  /** GROUP BY RANGE (§5.6): gives the group start time, then one column per aggregate. */
  | {
    readonly kind: 'rangeGroup'; readonly input: SqlPlanNode; readonly key: SqlBoundExpression;
    /** Group width and the start of one group, in the key's unit (ms, µs or ns). */
    readonly interval: bigint; readonly origin: bigint;
    /** Key bounds from WHERE (inclusive), in the key's unit. */
    readonly low: bigint; readonly high: bigint;
    readonly fill: SqlFillMethod; readonly groupCountMax: number;
    readonly aggregates: readonly SqlAggregateCall[]; readonly columns: readonly SqlPlanColumn[];
  }
  | { readonly kind: 'distinct'; readonly input: SqlPlanNode; readonly columns: readonly SqlPlanColumn[] }
  | {
    readonly kind: 'sort'; readonly input: SqlPlanNode;
    readonly keys: readonly { readonly column: number; readonly descending: boolean }[];
    /** Only the first rowCountMax rows are needed (LIMIT + OFFSET): a bounded sort. */
    readonly rowCountMax: number; readonly columns: readonly SqlPlanColumn[];
  }
  | {
    readonly kind: 'limit'; readonly input: SqlPlanNode; readonly limit: number;
    readonly offset: number; readonly columns: readonly SqlPlanColumn[];
  }
  | SqlJoinNode
  /** One window function over the input (plan-window.ts): the input's columns, then its value. */
  | {
    readonly kind: 'window'; readonly input: SqlPlanNode;
    readonly partitionKeys: readonly SqlBoundExpression[];
    readonly orderKeys: readonly { readonly expression: SqlBoundExpression; readonly descending: boolean }[];
    readonly function: SqlWindowFunction; readonly columns: readonly SqlPlanColumn[];
  }
  | SqlMatchRecognizeNode
  | {
    /** Columns of both sides share one type (the planner widens); ALL keeps duplicates. */
    readonly kind: 'setOperation'; readonly operator: 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT';
    readonly left: SqlPlanNode; readonly right: SqlPlanNode; readonly columns: readonly SqlPlanColumn[];
  };

/** A frame bound with its offset in the ORDER BY key's own unit (rows for ROWS). */
export interface SqlPlanFrameBound {
  readonly kind: 'UNBOUNDED PRECEDING' | 'UNBOUNDED FOLLOWING' | 'CURRENT ROW' | 'PRECEDING' | 'FOLLOWING';
  readonly offset: number;
}

export type SqlWindowFunction =
  | { readonly kind: 'rowNumber' }
  | {
    readonly kind: 'shift'; readonly direction: 'LAG' | 'LEAD'; readonly value: SqlBoundExpression;
    readonly offset: number; readonly otherwise: SqlBoundExpression | undefined;
  }
  | {
    readonly kind: 'aggregate'; readonly call: SqlAggregateCall;
    readonly frame: { readonly unit: 'ROWS' | 'RANGE'; readonly start: SqlPlanFrameBound; readonly end: SqlPlanFrameBound };
  };

/**
 * A join: left's columns, then right's. `condition` is over those columns; a LEFT join gives each
 * left row without a match once, right's columns NULL. The method (plan-join.ts chooses):
 *   nestedLoop       right held in work memory, `condition` tried on every pair;
 *   hash             equal keys (`leftKeys[i] = rightKeys[i]`, NULL never equal): the `buildSide`
 *                    is held in a hash table charged to work memory, the other side streams;
 *   indexNestedLoop  for each left batch, right's table is read by its row key or a TREE index
 *                    on `rightKeys[0]` (one key column of the table), nothing held.
 * `condition` is what remains after the keys (undefined: nothing).
 */
export interface SqlJoinNode {
  readonly kind: 'join';
  readonly joinType: 'INNER' | 'LEFT';
  readonly method: 'nestedLoop' | 'hash' | 'indexNestedLoop';
  readonly left: SqlPlanNode;
  readonly right: SqlPlanNode;
  /** Over the left's columns / the right's own columns. */
  readonly leftKeys: readonly SqlBoundExpression[];
  readonly rightKeys: readonly SqlBoundExpression[];
  readonly buildSide: 'left' | 'right';
  readonly condition: SqlBoundExpression | undefined;
  /**
   * indexNestedLoop: the right table's column looked up and the index that holds it; `next`, for
   * a look-up by the first column of a composite row key, the bounds the right side's filter puts
   * on the second key column (inclusive), so each look-up reads only that key range.
   */
  readonly lookup?: {
    readonly table: string; readonly columnIndex: number; readonly index: SqlIndexRange | undefined;
    readonly next?: { readonly from: KeyValue | undefined; readonly to: KeyValue | undefined } | undefined;
    /**
     * The look-up is by the whole of a two-column row key: `leftKeys[1]` gives the second key
     * column's value (`rightKeys[1]`), so each look-up reads the rows of `[key, second]` only.
     */
    readonly wholeKey?: true;
  };
  readonly columns: readonly SqlPlanColumn[];
}

export function planChildren(node: SqlPlanNode): SqlPlanNode[] {
  if (node.kind === 'join' || node.kind === 'setOperation') return [node.left, node.right];
  return 'input' in node ? [node.input] : [];
}

/**
 * MATCH_RECOGNIZE (plan-match-recognize.ts, execute-match-recognize.ts): the input's rows by
 * partition in ORDER BY order, matched against `program`. ALL ROWS PER MATCH gives each matched
 * row's input columns then the measures; ONE ROW PER MATCH gives `outputColumns` of the match's
 * last row (the partition columns, or every input column when there are no MEASURES) then the
 * measures. `defines[v]` is variable v's condition (undefined: always true).
 */
export interface SqlMatchRecognizeNode {
  readonly kind: 'matchRecognize';
  readonly input: SqlPlanNode;
  readonly partitionColumns: readonly number[];
  readonly orderKeys: readonly { readonly column: number; readonly descending: boolean }[];
  readonly variables: readonly string[];
  readonly program: SqlRowPatternProgram;
  readonly defines: readonly (SqlMatchExpression | undefined)[];
  readonly measures: readonly SqlMatchExpression[];
  readonly allRows: boolean;
  readonly outputColumns: readonly number[];
  readonly stepCountMax: number;
  readonly columns: readonly SqlPlanColumn[];
}

/** An expression of DEFINE or MEASURES: `expression` reads column i of a row of `slots[i]`'s values. */
export interface SqlMatchExpression {
  readonly expression: SqlBoundExpression;
  readonly slots: readonly SqlMatchSlot[];
}

/**
 * A value the match gives an expression, at the row it is evaluated for (the current row: the
 * candidate row in DEFINE, the output row in MEASURES), with SQL:2016's running semantics: only
 * the match's rows up to the current one count. `variable` undefined means every row of the match.
 *   column     `x` (the current row), `V.x` (the last row V took): navigation 'current';
 *              PREV(…)/NEXT(…) the row before/after that one in the partition; FIRST(…)/LAST(…)
 *              the first/last row of the match (or of V's rows)
 *   aggregate  over the match's rows (or V's), `call.args` over the input's columns
 */
export type SqlMatchSlot =
  | {
    readonly kind: 'column'; readonly navigation: 'current' | 'prev' | 'next' | 'first' | 'last';
    readonly variable: number | undefined; readonly column: number;
  }
  | { readonly kind: 'classifier' }
  | { readonly kind: 'matchNumber' }
  | { readonly kind: 'aggregate'; readonly variable: number | undefined; readonly call: SqlAggregateCall };
