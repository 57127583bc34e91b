// EXPLAIN and EXPLAIN ANALYZE (spec/surface.md §3.7): instead of its result, a query gives the plan
// the executor (execute.ts) follows for it, as rows of six columns (TQL_EXPLAIN_COLUMNS):
//
//   ID INTEGER        the entry's position, from 0
//   DEPTH INTEGER     nesting: an entry details the nearest earlier entry one level less deep
//   TYPE STRING       what the entry is about
//   VALUE_TYPE STRING the type of VALUE; '' when there is none
//   VALUE STRING      the value as text; '' when there is none
//   STATEMENT STRING  the part of the query text the entry comes from; '' when none
//
// The entries, in this order (indented by DEPTH; each is there only when it applies):
//
//   SELECTION CONDITION NULL | WHERE | EMPTY         how rows are chosen; STATEMENT: the WHERE text
//     INDEX BTREE ROWMAP | <index>                   read in row-key order, or through a TREE index
//     INDEX RTREE <index>                            or through a SPATIAL index
//       INDEX_RANGE STRING [low, high)               the range of the index read
//       INDEX_RANGE STRING MBR(x y[ z], x y[ z])     a SPATIAL index: the box rows must meet
//       KEY_RANGE STRING [from, to]                  row-key bounds of the read
//       SCAN_ORDER STRING DESC                       the read runs backwards (ascending: no entry)
//       INDEX_SKIPPED STRING <index>                 ANALYZE: the planned index was not read
//     FILTER BOOLEAN TRUE | FALSE                    WHERE is evaluated on every row read
//   QUERY_RESULT_SORT BOOLEAN TRUE                   there is an ORDER BY
//     QUERY_RESULT_SORT_API_INDEX_ORDER STRING ASC | DESC      row-key order is the result order
//     QUERY_RESULT_SORT_EXPRESSION STRING <column>  STATEMENT: ASC | DESC   a sort key, rows sorted
//   AGGREGATION STRING <function>                    STATEMENT: the select list
//     AGGREGATION_INPUT STRING ROW_COUNT | COLUMN_BATCHES | ROWS   where its values come from
//   QUERY_LIMIT LONG <n>                             STATEMENT: the LIMIT clause
//     QUERY_OFFSET LONG <m>
//     LIMIT_MODE STRING STOP_SCAN | TOP_ROWS | RESULT_ROW   the scan stops at the LIMIT; a sort
//                                                   keeps the best OFFSET + LIMIT; the aggregate's row
//   QUERY_EXECUTE_RESULT_ROWS INTEGER <n>            rows WHERE selected (0 without ANALYZE)
//   and with ANALYZE:
//   QUERY_SCANNED_ROWS INTEGER <n>                   rows read from the container
//   QUERY_RESULT_TYPE STRING RESULT_ROW_ID_SET | RESULT_ROWSET | RESULT_AGGREGATE
//   QUERY_RESULT_ROWS INTEGER <n>                    rows of the result
//   QUERY_EXECUTE_TIME_MS DOUBLE <ms>                how long the run took (when a clock is given)
//
// The spec names the columns and four TYPEs (SELECTION, INDEX, QUERY_EXECUTE_RESULT_ROWS,
// QUERY_RESULT_TYPE); where it is silent GridDB's server is followed: its TYPE names for what it
// reports too (the sort entries, QUERY_RESULT_ROWS), its VALUE_TYPEs CONDITION and BTREE, which are
// not TQL types, and `SELECTION CONDITION NULL`, `INDEX BTREE ROWMAP` and
// `QUERY_EXECUTE_RESULT_ROWS INTEGER 0` for `EXPLAIN SELECT *`. The other TYPEs are this store's:
// GridDB's executor differs (it splits WHERE into OR branches, each searched on its own), and
// the plan must say what this one does.
//
// EXPLAIN does not read a row, so it gives the plan as planned: the source may still scan where the
// plan names an index (one not in memory, or one naming too many rows: index-source.ts), and an
// aggregate may read rows where it planned a count. EXPLAIN ANALYZE runs the query as a fetch
// would (so its errors are the query's) and reports what the run did.

import type { Mbr } from '../../geometry/geometry.ts';
import { formatCoordinate } from '../../geometry/wkt-print.ts';
import type { Row, Value } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type {
  TqlAggregateInput, TqlExecuteOptions, TqlResult, TqlRowSource, TqlRunStats,
} from './execute.ts';
import { indexLabel, type TqlIndexRange } from './plan-index.ts';
import type { PreparedTql } from './prepare.ts';
import { timeSeriesEntries, timeSeriesLimitMode } from './time-series-explain.ts';

const column = (name: string, type: 'INTEGER' | 'STRING'): ColumnSchema =>
  ({ name, type, array: false, notNull: true });

export const TQL_EXPLAIN_COLUMNS: readonly ColumnSchema[] = [
  column('ID', 'INTEGER'), column('DEPTH', 'INTEGER'), column('TYPE', 'STRING'),
  column('VALUE_TYPE', 'STRING'), column('VALUE', 'STRING'), column('STATEMENT', 'STRING'),
];

type Execute = (query: PreparedTql, source: TqlRowSource, options: TqlExecuteOptions) => TqlResult;

/** What an ANALYZE run did. */
interface Run {
  readonly result: TqlResult;
  readonly stats: TqlRunStats;
  readonly indexRead: TqlIndexRange | undefined;
  readonly elapsedMs: number | undefined;
}

/** The rows of EXPLAIN [ANALYZE]; `execute` runs the query itself for ANALYZE. */
export function explainTql(
  query: PreparedTql,
  source: TqlRowSource,
  options: Pick<TqlExecuteOptions, 'monotonicMs'>,
  execute: Execute,
): TqlResult {
  const entries = new ExplainEntries();
  if (query.explain !== 'EXPLAIN ANALYZE') {
    planEntries(entries, query, undefined);
    entries.add(0, 'QUERY_EXECUTE_RESULT_ROWS', 'INTEGER', '0');
    return entries.result(0);
  }
  const stats: TqlRunStats = { scannedRowCount: 0, selectedRowCount: 0, aggregateInput: undefined };
  const startMs = options.monotonicMs?.();
  const result = execute({ ...query, explain: undefined }, source, { stats });
  const elapsedMs = startMs === undefined ? undefined : options.monotonicMs!() - startMs;
  // A source that cannot tell is taken at the plan's word.
  const indexRead = source.indexRead === undefined ? query.plan.index : source.indexRead();
  const run: Run = { result, stats, indexRead, elapsedMs };
  planEntries(entries, query, run);
  entries.add(0, 'QUERY_EXECUTE_RESULT_ROWS', 'INTEGER', String(stats.selectedRowCount));
  runEntries(entries, run);
  return entries.result(stats.scannedRowCount);
}

export class ExplainEntries {
  private readonly rows: Row[] = [];

  add(depth: number, type: string, valueType: string, value: string, statement = ''): void {
    this.rows.push([this.rows.length, depth, type, valueType, value, statement]);
  }

  result(scannedRowCount: number): TqlResult {
    const columns = TQL_EXPLAIN_COLUMNS.map((c) => ({ ...c }));
    return { kind: 'explain', columns, rows: this.rows, scannedRowCount };
  }
}

function planEntries(entries: ExplainEntries, query: PreparedTql, run: Run | undefined): void {
  selectionEntries(entries, query, run);
  if (query.timeSeries !== undefined) {
    timeSeriesEntries(entries, query, run?.stats.aggregateInput);
  } else {
    if (query.aggregate === undefined) sortEntries(entries, query);
    aggregateEntries(entries, query, run);
  }
  limitEntries(entries, query);
}

function selectionEntries(entries: ExplainEntries, query: PreparedTql, run: Run | undefined) {
  const { plan, schema } = query;
  const statement = query.clauses.where ?? '';
  const condition = query.where === undefined ? 'NULL' : plan.empty ? 'EMPTY' : 'WHERE';
  entries.add(0, 'SELECTION', 'CONDITION', condition, statement);
  if (plan.empty) return; // no row is read
  const index = run === undefined ? plan.index : run.indexRead;
  const read = index === undefined ? 'ROWMAP' : indexLabel(index, schema.columns);
  entries.add(1, 'INDEX', index?.mbr === undefined ? 'BTREE' : 'RTREE', read);
  if (index !== undefined) {
    const columns = index.columnIndexes.map((c) => schema.columns[c]!);
    const range = index.mbr === undefined ? indexRangeText(index, columns) : mbrText(index.mbr);
    entries.add(2, 'INDEX_RANGE', 'STRING', range);
  }
  if (plan.from !== undefined || plan.to !== undefined) {
    const key = schema.columns[0]!;
    const from = plan.from === undefined ? '*' : literal(plan.from as Value, key);
    const to = plan.to === undefined ? '*' : literal(plan.to as Value, key);
    entries.add(2, 'KEY_RANGE', 'STRING', `[${from}, ${to}]`);
  }
  if (plan.direction === 'desc') entries.add(2, 'SCAN_ORDER', 'STRING', 'DESC');
  if (plan.index !== undefined && index === undefined) {
    entries.add(2, 'INDEX_SKIPPED', 'STRING', indexLabel(plan.index, schema.columns));
  }
  if (query.where !== undefined) {
    entries.add(1, 'FILTER', 'BOOLEAN', query.filter === undefined ? 'FALSE' : 'TRUE');
  }
}

function sortEntries(entries: ExplainEntries, query: PreparedTql): void {
  if (query.orderBy.length === 0) return;
  entries.add(0, 'QUERY_RESULT_SORT', 'BOOLEAN', 'TRUE', query.clauses.orderBy ?? '');
  if (query.plan.ordered) {
    const direction = query.plan.direction === 'desc' ? 'DESC' : 'ASC';
    entries.add(1, 'QUERY_RESULT_SORT_API_INDEX_ORDER', 'STRING', direction);
    return;
  }
  for (const key of query.orderBy) {
    const name = query.schema.columns[key.columnIndex]!.name;
    entries.add(1, 'QUERY_RESULT_SORT_EXPRESSION', 'STRING', name, key.descending ? 'DESC' : 'ASC');
  }
}

function aggregateEntries(entries: ExplainEntries, query: PreparedTql, run: Run | undefined) {
  const spec = query.aggregate;
  if (spec === undefined) return;
  entries.add(0, 'AGGREGATION', 'STRING', spec.function, query.clauses.select);
  const input = run?.stats.aggregateInput ?? plannedAggregateInput(query);
  entries.add(1, 'AGGREGATION_INPUT', 'STRING', input);
}

/** What execute.ts tries first: a count, columnar batches, or else rows. */
function plannedAggregateInput(query: PreparedTql): TqlAggregateInput {
  const spec = query.aggregate!;
  if (query.filter !== undefined) return 'ROWS';
  if (spec.function === 'COUNT' && spec.columnIndex === undefined) return 'ROW_COUNT';
  return spec.columnIndex !== undefined && !query.plan.empty ? 'COLUMN_BATCHES' : 'ROWS';
}

function limitEntries(entries: ExplainEntries, query: PreparedTql): void {
  if (query.clauses.limit === undefined) return;
  entries.add(0, 'QUERY_LIMIT', 'LONG', countText(query.limit), query.clauses.limit);
  if (query.offset > 0) entries.add(1, 'QUERY_OFFSET', 'LONG', countText(query.offset));
  const mode = query.timeSeries !== undefined ? timeSeriesLimitMode(query)
    : query.aggregate !== undefined ? 'RESULT_ROW'
      : query.plan.ordered ? 'STOP_SCAN' : 'TOP_ROWS';
  entries.add(1, 'LIMIT_MODE', 'STRING', mode);
}

function runEntries(entries: ExplainEntries, run: Run): void {
  const { result, stats } = run;
  entries.add(0, 'QUERY_SCANNED_ROWS', 'INTEGER', String(stats.scannedRowCount));
  let type: string;
  let rowCount: number;
  if (result.kind === 'aggregate') {
    type = 'RESULT_AGGREGATE';
    rowCount = result.value === null ? 0 : 1;
  } else {
    // GridDB's names: a SELECT * result is a set of row ids, an empty one a (empty) row set.
    rowCount = result.kind === 'encodedRows' ? result.rows.count : result.rows.length;
    type = rowCount > 0 ? 'RESULT_ROW_ID_SET' : 'RESULT_ROWSET';
  }
  entries.add(0, 'QUERY_RESULT_TYPE', 'STRING', type);
  entries.add(0, 'QUERY_RESULT_ROWS', 'INTEGER', String(rowCount));
  if (run.elapsedMs !== undefined) {
    entries.add(0, 'QUERY_EXECUTE_TIME_MS', 'DOUBLE', run.elapsedMs.toFixed(3));
  }
}

/** LIMIT and OFFSET beyond 2^53 are held as Infinity (prepare.ts): as good as no limit. */
function countText(count: number): string {
  return Number.isFinite(count) ? String(count) : '9223372036854775807';
}

/** `[low, high)`: brackets say whether a bound is in the range; `*` is open. */
function indexRangeText(index: TqlIndexRange, columns: readonly ColumnSchema[]): string {
  const tuple = (values: readonly Value[]) => {
    if (values.length === 0) return '*';
    const parts = values.map((value, i) => literal(value, columns[i]!));
    return parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`;
  };
  const open = index.low.length > 0 && !index.lowInclusive ? '(' : '[';
  const close = index.high.length > 0 && !index.highInclusive ? ')' : ']';
  return `${open}${tuple(index.low)}, ${tuple(index.high)}${close}`;
}

/** `MBR(0 0, 10 10)`; z only when the box is bounded in z (a 3-D geometry). */
function mbrText(mbr: Mbr): string {
  const corner = (x: number, y: number, z: number) =>
    [x, y, ...(Number.isFinite(z) ? [z] : [])].map(formatCoordinate).join(' ');
  return `MBR(${corner(mbr.minX, mbr.minY, mbr.minZ)}, ${corner(mbr.maxX, mbr.maxY, mbr.maxZ)})`;
}

/** A value of `column` as a TQL literal would write it. */
function literal(value: Value, column: ColumnSchema): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (column.type === 'TIMESTAMP' && (typeof value === 'number' || typeof value === 'bigint')) {
    return timestampLiteral(value, column);
  }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'INF' : '-INF';
    return String(value);
  }
  return String(value);
}

/** Widest time a Date holds, in ms either side of the epoch. */
const DATE_MS_LIMIT = 8.64e15;

function timestampLiteral(value: number | bigint, column: ColumnSchema): string {
  const digits = column.timePrecision === 'NANOSECOND' ? 6
    : column.timePrecision === 'MICROSECOND' ? 3 : 0;
  const unitsPerMs = 10n ** BigInt(digits);
  const units = BigInt(value);
  let ms = units / unitsPerMs;
  let fraction = units % unitsPerMs;
  if (fraction < 0n) {
    ms -= 1n;
    fraction += unitsPerMs;
  }
  // A bound beyond every storable time (a planner bound may be) is written as a number.
  if (ms > BigInt(DATE_MS_LIMIT) || ms < -BigInt(DATE_MS_LIMIT)) return String(value);
  const text = new Date(Number(ms)).toISOString();
  const extra = digits === 0 ? '' : fraction.toString().padStart(digits, '0');
  const name = digits === 6 ? 'TIMESTAMP_NS' : digits === 3 ? 'TIMESTAMP_US' : 'TIMESTAMP';
  return `${name}('${text.slice(0, -1)}${extra}Z')`;
}
