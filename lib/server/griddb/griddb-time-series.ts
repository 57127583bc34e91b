// GridDB's time-series statements that answer one row or one value: GET_TIME_SERIES_ROW_RELATED
// (131: gsGetRowByBaseTime), INTERPOLATE_TIME_SERIES_ROW (132: gsInterpolateTimeSeriesRow) and
// AGGREGATE_TIME_SERIES (133: gsAggregateTimeSeries), each run as the TQL store's own client
// sends for the same call (lib/client/client-time-series.ts) through store's QUERY, so results
// and errors are store's TQL's. (The range and sampling queries, 135 and 136, are queries:
// griddb-query.ts.) Bodies after the statement id (the C client's getTimeSeriesRow,
// interpolateTimeSeriesRow, aggregateTimeSeries):
//
//   131  | row statement head | base i64 (ms) | timeOperator i8 |     reply | found i8 | row |
//   132  | row statement head | base i64 | columnId i32 |           reply | found i8 | row |
//   133  | row statement head | start i64 | end i64 | columnId i32 (-1: none) | aggregation i8 |
//        reply | exists i8 | type i8 | value, fixed size |
//
// timeOperator: 0 PREVIOUS, 1 PREVIOUS_ONLY, 2 NEXT, 3 NEXT_ONLY; aggregation: 0 MINIMUM,
// 1 MAXIMUM, 2 TOTAL, 3 AVERAGE, 4 VARIANCE, 5 STANDARD_DEVIATION, 6 COUNT, 7 WEIGHTED_AVERAGE.
// The row is in GridDB's row encoding without a row id (a time series has none).

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import {
  interpolateTql, timeAggregateTql, timeFindTql, type Aggregation, type TimeOperator,
} from '../../client/client-time-series.ts';
import { griddbColumnTypeCode } from './griddb-container-properties.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { wholeResult, type QueryStatementContext } from './griddb-query.ts';
import { checked, containerOf, griddbRowHeadDecode } from './griddb-row-statements.ts';
import { griddbFixedFieldWrite, griddbRowsWrite } from './griddb-rows.ts';
import { GriddbStatement } from './griddb-statements.ts';
import { FETCH_ROW_COUNT_MAX } from '../../base/limits.ts';

const TIME_OPERATORS: readonly TimeOperator[] = ['PREVIOUS', 'PREVIOUS_ONLY', 'NEXT', 'NEXT_ONLY'];
const AGGREGATIONS: readonly Aggregation[] =
  ['MIN', 'MAX', 'SUM', 'AVG', 'VARIANCE', 'STDDEV', 'COUNT', 'TIME_AVG'];
const MS_MAX = 8_640_000_000_000_000n;

function msOf(value: bigint): number {
  if (value < -MS_MAX || value > MS_MAX) {
    throw new GriddbFrameError(`timestamp ${value} is outside ±${MS_MAX} ms`);
  }
  return Number(value);
}

/** GET_TIME_SERIES_ROW_RELATED, INTERPOLATE_TIME_SERIES_ROW, AGGREGATE_TIME_SERIES. */
export async function timeSeriesStatementRun(context: QueryStatementContext, type: number,
  statementId: bigint, body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const head = griddbRowHeadDecode(statementId, body);
  const { schema, ref } = await containerOf(context, head);
  const columnName = (id: number): string => {
    const column = schema.columns[id];
    if (column === undefined) throw new GriddbFrameError(`column ${id} does not exist`);
    return column.name;
  };
  const tql = griddbDecode(() => {
    const reader = new ByteReader(head.part);
    let text: string;
    if (type === GriddbStatement.GET_TIME_SERIES_ROW_RELATED) {
      const base = msOf(reader.i64());
      const operator = TIME_OPERATORS[reader.i8()];
      if (operator === undefined) throw new GriddbFrameError('time operator is not 0..3');
      text = checked(() => timeFindTql(schema, base, operator));
    } else if (type === GriddbStatement.INTERPOLATE_TIME_SERIES_ROW) {
      const base = msOf(reader.i64());
      const column = columnName(reader.i32());
      text = checked(() => interpolateTql(schema, base, column));
    } else {
      const start = msOf(reader.i64());
      const end = msOf(reader.i64());
      const columnId = reader.i32();
      const aggregation = AGGREGATIONS[reader.i8()];
      if (aggregation === undefined) throw new GriddbFrameError('aggregation is not 0..7');
      // COUNT takes no column (GridDB's client sends -1 for none): it counts the rows.
      const column = columnId === -1 && aggregation === 'COUNT' ? schema.columns[0]!.name
        : columnName(columnId);
      text = checked(() => timeAggregateTql(schema, { start, end }, { column, aggregation }));
    }
    reader.expectEnd();
    return text;
  });
  const sessionId = await context.sessions.sessionFor(head.session, head.transactionMode,
    { partitionId: ref.partitionId, name: ref.name });
  const result = await wholeResult(context, { sessionId,
    ref: { partitionId: ref.partitionId, name: ref.name }, tql, fetchSize: FETCH_ROW_COUNT_MAX,
    partialExecution: false, forUpdate: false });
  if (type === GriddbStatement.AGGREGATE_TIME_SERIES) {
    const column = result.columns[0]!;
    const value = result.rows[0]?.[0] ?? null;
    return (writer) => {
      writer.i8(value === null ? 0 : 1);
      if (value === null) return;
      writer.i8(griddbColumnTypeCode(column));
      griddbFixedFieldWrite(writer, column, value);
    };
  }
  const row = result.rows[0];
  return (writer) => {
    writer.i8(row === undefined ? 0 : 1);
    if (row !== undefined) griddbRowsWrite(writer, schema.columns, [row]);
  };
}
