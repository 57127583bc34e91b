// An SQL scan through a TREE index (the planner's SqlIndexRange, lib/sql/plan/plan-index-range.ts):
// the index names the candidate rows, which are then read by key in row-key order, SQL_BATCH_ROW_COUNT
// per page with one event-loop turn between pages, so the executor sees what a scan of the same key
// range would give it minus rows WHERE cannot select (its filter still runs on every row).
//
// The candidates are taken from the index at the start, in one synchronous step; each page reads its
// rows as committed then: a row removed meanwhile is skipped, a row changed meanwhile is read as
// changed and filtered again. The index is not used (undefined: the caller scans) when its structure
// cannot be had within the index memory (container-indexes.ts), or when it names more than
// INDEX_CANDIDATE_SHARE_MAX of the rows (reading each by key would cost more than the scan), the
// limits TQL's index reads keep (index-source.ts).

import {
  INDEX_CANDIDATE_COUNT_ALWAYS, INDEX_CANDIDATE_SHARE_MAX, SQL_BATCH_ROW_COUNT,
} from '../base/limits.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import { rowKeyOps } from '../schema/row-key.ts';
import type { SqlBatch } from '../sql/exec/evaluate.ts';
import { sqlTypeOfColumn, type SqlScanRequest } from '../sql/exec/table-source.ts';
import type { SqlIndexRange } from '../sql/plan/logical-plan.ts';
import type { SqlValue } from '../sql/value.ts';
import type { ContainerEntry } from './catalog.ts';

/** The keys the index names within the request's key range, sorted; undefined: scan instead. */
export function indexCandidates(entry: ContainerEntry, request: SqlScanRequest & { index: SqlIndexRange }):
  RowKey[] | undefined {
  const tree = entry.indexes.treeFor(request.index.columnIndexes, entry.rows);
  if (tree === undefined) return undefined;
  const compare = rowKeyOps(entry.schema).compare;
  // A composite bound may be a prefix of the key: compare only the columns it has.
  const order = (key: RowKey, bound: RowKey): number => Array.isArray(bound)
    ? compare((key as RowKey[]).slice(0, bound.length) as RowKey, bound) : compare(key, bound);
  const candidateCountMax = Math.max(INDEX_CANDIDATE_COUNT_ALWAYS,
    Math.floor(entry.rows.count() * INDEX_CANDIDATE_SHARE_MAX));
  const candidates: RowKey[] = [];
  for (const key of tree.positions(request.index)) {
    if (request.from !== undefined && order(key, request.from) < 0) continue;
    if (request.to !== undefined && order(key, request.to) > 0) continue;
    if (candidates.length === candidateCountMax) return undefined;
    candidates.push(key);
  }
  candidates.sort(compare);
  return candidates;
}

/** Pages of the candidates' committed rows, only the columns asked for. */
export async function* indexPages(
  entryOf: () => ContainerEntry,
  request: SqlScanRequest,
  candidates: readonly RowKey[],
  yieldTurn: () => Promise<void>,
): AsyncGenerator<SqlBatch> {
  let left = request.rowCountMax;
  for (let start = 0; start < candidates.length && left > 0; start += SQL_BATCH_ROW_COUNT) {
    if (start > 0) await yieldTurn();
    const entry = entryOf();
    const columns = request.columnIndexes.map((index) => entry.schema.columns[index]!);
    const out: SqlValue[][] = columns.map(() => []);
    let rowCount = 0;
    for (const key of candidates.slice(start, start + SQL_BATCH_ROW_COUNT)) {
      if (rowCount === left) break;
      const row = entry.rows.get(key);
      if (row === undefined) continue;
      columns.forEach((column, c) => out[c]!.push(sqlValueOf(column, row[request.columnIndexes[c]!])));
      rowCount++;
    }
    left -= rowCount;
    if (rowCount > 0) yield { rowCount, columns: out };
  }
}

/**
 * One page of the candidates' committed rows after the key `after` (exclusive), for a statement in
 * another engine thread (storeSqlScanPage): at most rowCountMax, and the last candidate read when
 * more remain (undefined: no more).
 */
export function indexPage(entry: ContainerEntry, request: SqlScanRequest, candidates: readonly RowKey[],
  after: RowKey | undefined, rowCountMax: number): { batch: SqlBatch; last: RowKey | undefined } {
  const compare = rowKeyOps(entry.schema).compare;
  // Candidates are sorted: the first past `after` by halving.
  let low = 0;
  let high = candidates.length;
  while (after !== undefined && low < high) {
    const middle = (low + high) >>> 1;
    if (compare(candidates[middle]!, after) <= 0) low = middle + 1;
    else high = middle;
  }
  const columns = request.columnIndexes.map((index) => entry.schema.columns[index]!);
  const out: SqlValue[][] = columns.map(() => []);
  let rowCount = 0;
  let next = low;
  for (; next < candidates.length && rowCount < rowCountMax; next++) {
    const row = entry.rows.get(candidates[next]!);
    if (row === undefined) continue;
    columns.forEach((column, c) => out[c]!.push(sqlValueOf(column, row[request.columnIndexes[c]!])));
    rowCount++;
  }
  return { batch: { rowCount, columns: out }, last: next < candidates.length ? candidates[next - 1] : undefined };
}

function sqlValueOf(column: ColumnSchema, value: unknown): SqlValue {
  if (value === null || value === undefined || sqlTypeOfColumn(column) === 'UNKNOWN') return null;
  if (column.type === 'BOOL') return value !== 0 && value !== false;
  return value as SqlValue;
}
