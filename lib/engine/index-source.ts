// Reading a query's rows through a TREE or SPATIAL index (the planner's TqlIndexRange): the index
// names the candidate rows, which are then read by key in row-key order, so the executor sees what
// a scan of the same key range would give it minus rows WHERE cannot select; it evaluates WHERE on
// each candidate as on a scanned row, and results are exactly a scan's.
//
// A session with an open transaction on the container sees its own changes (READ_COMMITTED, as
// transaction.ts): every key of its write set is a candidate too, and each candidate's row is its
// own change if it has one, else the committed row. The index itself holds committed rows only.
//
// The index is not used (undefined: the caller scans) when its structure cannot be had within the
// index memory (container-indexes.ts), when it names more than INDEX_CANDIDATE_SHARE_MAX of the rows
// (reading each by key would cost more than the scan), or for a keyless collection's own appends.

import {
  INDEX_CANDIDATE_COUNT_ALWAYS, INDEX_CANDIDATE_SHARE_MAX, TQL_SCAN_PAGE_ROW_COUNT,
} from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import { rowKeyOps } from '../schema/row-key.ts';
import type { TqlRowPage, TqlSourceScan } from '../query/tql/execute.ts';
import type { TqlIndexRange } from '../query/tql/plan-index.ts';
import type { ContainerEntry } from './catalog.ts';
import type { Transaction } from './transaction.ts';

/** The pages of an index read, or undefined when the index is not to be used for this scan. */
export function indexPages(
  entry: ContainerEntry,
  txn: Transaction | undefined,
  scan: TqlSourceScan & { index: TqlIndexRange },
): Iterable<TqlRowPage> | undefined {
  if (txn !== undefined && txn.appends.length > 0) return undefined;
  const positionsOf = indexPositions(entry, scan.index);
  if (positionsOf === undefined) return undefined;
  const positions = rowKeyOps(entry.schema);
  const compare = positions.compare;
  const inScan = (key: RowKey): boolean => {
    if (scan.from !== undefined && compare(key, scan.from) < 0) return false;
    if (scan.to !== undefined && compare(key, scan.to) > 0) return false;
    if (scan.after === undefined) return true;
    const order = compare(key, scan.after);
    return scan.direction === 'asc' ? order > 0 : order < 0;
  };
  const own = txn === undefined || txn.writes.size === 0 ? undefined : txn.writes;
  const candidateCountMax = Math.max(INDEX_CANDIDATE_COUNT_ALWAYS,
    Math.floor(entry.rows.count() * INDEX_CANDIDATE_SHARE_MAX));
  const candidates: RowKey[] = [];
  for (const key of positionsOf) {
    if (!inScan(key)) continue;
    // A key the session changed is added below, once, with its own row.
    if (own !== undefined && own.has(positions.keyString(key))) continue;
    if (candidates.length === candidateCountMax) return undefined;
    candidates.push(key);
  }
  if (own !== undefined) {
    for (const change of own.values()) if (inScan(change.key)) candidates.push(change.key);
  }
  const sign = scan.direction === 'asc' ? 1 : -1;
  candidates.sort((a, b) => sign * compare(a, b));
  return candidatePages(entry, own, candidates);
}

/** The positions the index names, or undefined when its structure cannot be had. */
function indexPositions(entry: ContainerEntry, range: TqlIndexRange): Iterable<RowKey> | undefined {
  if (range.mbr !== undefined) {
    return entry.indexes.spatialFor(range.columnIndexes[0]!, entry.rows)?.positions(range.mbr);
  }
  return entry.indexes.treeFor(range.columnIndexes, entry.rows)?.positions(range);
}

function* candidatePages(
  entry: ContainerEntry,
  own: Transaction['writes'] | undefined,
  candidates: readonly RowKey[],
): Generator<TqlRowPage, undefined, undefined> {
  const keyString = rowKeyOps(entry.schema).keyString;
  for (let start = 0; start < candidates.length; start += TQL_SCAN_PAGE_ROW_COUNT) {
    const rows: Row[] = [];
    const keys: RowKey[] = [];
    for (const key of candidates.slice(start, start + TQL_SCAN_PAGE_ROW_COUNT)) {
      const change = own?.get(keyString(key));
      const row = change === undefined ? entry.rows.get(key)
        : change.row === null ? undefined : change.row.slice();
      if (row === undefined) continue;
      rows.push(row);
      keys.push(key);
    }
    if (rows.length > 0) yield { rows, positionAt: (index) => keys[index] };
  }
}
