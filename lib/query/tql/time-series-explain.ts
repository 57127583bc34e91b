// EXPLAIN of the time-series functions (explain.ts draws the whole plan). After the SELECTION
// entries of WHERE come, indented by DEPTH:
//
//   TIME_SERIES_FUNCTION STRING <name>               STATEMENT: the select list
//     TIME_SERIES_READ STRING <how>                  how rows are read (below)
//     SAMPLING_POINTS LONG <n>                       TIME_SAMPLING: the points from start to end
//     AGGREGATION_INPUT STRING COLUMN_BATCHES | ROWS TIME_AVG: where its values come from
//   QUERY_RESULT_SORT BOOLEAN TRUE                   an ORDER BY that sorts the result
//     QUERY_RESULT_SORT_EXPRESSION STRING <column>   STATEMENT: ASC | DESC
//
// <how>: NEIGHBOUR_FORWARD | NEIGHBOUR_BACKWARD (TIME_NEXT*, TIME_PREV*: the first selected row
// from the time, through the row-key B+tree), NEIGHBOURS (TIME_INTERPOLATED: the rows either
// side), ONE_PASS (TIME_SAMPLING: the row before the start, then forward once), COLUMN_BATCHES or
// ROWS (TIME_AVG, MAX_ROWS, MIN_ROWS: key and value columns without WHERE, else rows).

import type { TqlAggregateInput } from './execute.ts';
import type { ExplainEntries } from './explain.ts';
import type { PreparedTql } from './prepare.ts';

export function timeSeriesEntries(
  entries: ExplainEntries,
  query: PreparedTql,
  ranInput: TqlAggregateInput | undefined,
): void {
  const selection = query.timeSeries!;
  const name = selection.kind === 'find' || selection.kind === 'extremeRows' ? selection.function
    : selection.kind === 'interpolate' ? 'TIME_INTERPOLATED'
      : selection.kind === 'sampling' ? 'TIME_SAMPLING' : 'TIME_AVG';
  entries.add(0, 'TIME_SERIES_FUNCTION', 'STRING', name, query.clauses.select);
  const columnar = query.filter === undefined && query.schema.type === 'TIME_SERIES' &&
    !query.plan.empty ? 'COLUMN_BATCHES' : 'ROWS';
  switch (selection.kind) {
    case 'find': {
      const forward = selection.function.startsWith('TIME_NEXT');
      entries.add(1, 'TIME_SERIES_READ', 'STRING',
        forward ? 'NEIGHBOUR_FORWARD' : 'NEIGHBOUR_BACKWARD');
      break;
    }
    case 'interpolate':
      entries.add(1, 'TIME_SERIES_READ', 'STRING', 'NEIGHBOURS');
      break;
    case 'sampling':
      entries.add(1, 'TIME_SERIES_READ', 'STRING', 'ONE_PASS');
      entries.add(1, 'SAMPLING_POINTS', 'LONG', String(selection.points?.count ?? 0n));
      break;
    case 'timeAvg':
      entries.add(1, 'TIME_SERIES_READ', 'STRING', columnar);
      entries.add(1, 'AGGREGATION_INPUT', 'STRING', ranInput ?? columnar);
      break;
    case 'extremeRows':
      entries.add(1, 'TIME_SERIES_READ', 'STRING', columnar);
      break;
  }
  if (selection.kind === 'timeAvg' || query.orderBy.length === 0) return;
  entries.add(0, 'QUERY_RESULT_SORT', 'BOOLEAN', 'TRUE', query.clauses.orderBy ?? '');
  for (const key of query.orderBy) {
    const column = query.schema.columns[key.columnIndex]!.name;
    entries.add(1, 'QUERY_RESULT_SORT_EXPRESSION', 'STRING', column,
      key.descending ? 'DESC' : 'ASC');
  }
}

/** How LIMIT acts: on the one row found, on the points made, or on the rows kept. */
export function timeSeriesLimitMode(query: PreparedTql): string {
  const selection = query.timeSeries!;
  switch (selection.kind) {
    case 'find': case 'interpolate': case 'timeAvg': return 'RESULT_ROW';
    case 'sampling': {
      const first = query.orderBy[0];
      const sorted = first !== undefined && (first.columnIndex !== 0 || first.descending);
      return sorted ? 'TOP_ROWS' : 'STOP_SCAN';
    }
    case 'extremeRows': return 'TOP_ROWS';
  }
}
