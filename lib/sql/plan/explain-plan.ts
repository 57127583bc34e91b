// EXPLAIN's answer (§5.10): one JSON object per plan node, children before their parent, each
// with `id`, `type` (SCAN, SELECT, GROUP, SORT, LIMIT, RESULT, …), `inputList` (ids of its inputs)
// and what the node does; EXPLAIN ANALYZE adds `profile.rows`, the rows the node gave.

import { planChildren, type SqlPlanNode } from './logical-plan.ts';
import { sqlIndexLabel } from './plan-index-range.ts';

export interface SqlExplainEntry {
  readonly id: number;
  readonly type: string;
  readonly inputList: number[];
  readonly detail: Record<string, unknown>;
  readonly profile?: { readonly rows: number };
}

const TYPES: Record<SqlPlanNode['kind'], string> = {
  scan: 'SCAN', metatable: 'SCAN', values: 'SELECT', filter: 'SELECT', project: 'SELECT', aggregate: 'GROUP',
  rangeGroup: 'GROUP', distinct: 'GROUP', sort: 'SORT', limit: 'LIMIT', join: 'JOIN', setOperation: 'UNION', window: 'WINDOW',
  matchRecognize: 'WINDOW_MATCH',
};

export function explainPlan(root: SqlPlanNode, rowCounts: ReadonlyMap<SqlPlanNode, number> | undefined,
  scanDetail: (node: Extract<SqlPlanNode, { kind: 'scan' }>) => Record<string, unknown> = () => ({})):
  SqlExplainEntry[] {
  const entries: SqlExplainEntry[] = [];
  const visit = (node: SqlPlanNode): number => {
    const inputList = planChildren(node).map(visit);
    const id = entries.length;
    const entry: SqlExplainEntry = {
      id, type: TYPES[node.kind], inputList,
      // What the table adds (a partitioned table: the data partitions the scan reads of all).
      detail: node.kind === 'scan' ? { ...detailOf(node), ...scanDetail(node) } : detailOf(node),
      ...(rowCounts === undefined ? {} : { profile: { rows: rowCounts.get(node) ?? 0 } }),
    };
    entries.push(entry);
    return id;
  };
  const top = visit(root);
  entries.push({ id: entries.length, type: 'RESULT', inputList: [top], detail: {} });
  return entries;
}

function detailOf(node: SqlPlanNode): Record<string, unknown> {
  const columns = node.columns.map((column) => column.name);
  switch (node.kind) {
    case 'scan':
      return {
        table: node.table, columnIndexes: node.columnIndexes, columns: node.columnIndexes.map((i) => columns[i]),
        keyRange: { from: text(node.keyRange.from), to: text(node.keyRange.to), empty: node.keyRange.empty },
        ...(node.keyRanges === undefined ? {} : { keyRangeCount: node.keyRanges.length }),
        ...(node.descending === true ? { descending: true } : {}),
        ...(node.index === undefined ? {} : {
          index: {
            name: sqlIndexLabel(node.index, node.columns), low: text(node.index.low), high: text(node.index.high),
            highInclusive: node.index.highInclusive,
          },
        }),
        ...(node.rowCountMax === Infinity ? {} : { limit: node.rowCountMax }),
      };
    case 'aggregate':
      return {
        keyCount: node.keys.length, aggregates: node.aggregates.map((a) => a.name),
        ...(node.inScan === true ? { inScan: true } : {}),
        ...(node.skipScan === true ? { skipScan: true } : {}),
      };
    case 'rangeGroup':
      return { interval: String(node.interval), fill: node.fill, aggregates: node.aggregates.map((a) => a.name) };
    case 'sort': return { keys: node.keys, ...(node.rowCountMax === Infinity ? {} : { limit: node.rowCountMax }) };
    case 'limit': return { limit: node.limit === Infinity ? null : node.limit, offset: node.offset };
    case 'filter': return { operation: 'FILTER' };
    case 'join':
      return {
        joinType: node.joinType, method: node.method, keyCount: node.leftKeys.length,
        ...(node.method === 'hash' ? { buildSide: node.buildSide } : {}),
        ...(node.lookup === undefined ? {} : {
          lookup: { table: node.lookup.table, column: node.right.columns[node.lookup.columnIndex]?.name,
            by: node.lookup.index === undefined ? 'ROWKEY' : sqlIndexLabel(node.lookup.index, node.right.columns),
            ...(node.lookup.wholeKey === true ? { wholeKey: true } : {}),
            ...(node.lookup.next === undefined ? {} : { next: { from: text(node.lookup.next.from), to: text(node.lookup.next.to) } }) },
        }),
      };
    case 'setOperation': return { operation: node.operator };
    case 'window':
      return {
        function: node.function.kind === 'aggregate' ? node.function.call.name
          : node.function.kind === 'shift' ? node.function.direction : 'ROW_NUMBER',
        partitionKeyCount: node.partitionKeys.length, orderKeyCount: node.orderKeys.length,
        ...(node.function.kind === 'aggregate' ? { frame: node.function.frame } : {}),
      };
    case 'matchRecognize':
      return {
        variables: node.variables, rowsPerMatch: node.allRows ? 'ALL ROWS' : 'ONE ROW',
        partitionKeyCount: node.partitionColumns.length, orderKeyCount: node.orderKeys.length,
        measureCount: node.measures.length, instructionCount: node.program.instructions.length,
      };
    case 'metatable': return { table: node.table };
    case 'values': return { operation: 'VALUES', rowCount: node.rows.length };
    default: return { columns };
  }
}

function text(value: unknown): unknown {
  return typeof value === 'bigint' ? String(value) : Array.isArray(value) ? value.map(text) : value;
}
