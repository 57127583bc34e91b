// The TQL behind the client's index and time-series calls: GridDB's TimeSeries.query(start, end,
// order) and TimeSeries.aggregate(start, end, column, aggregation) become TQL statements over the
// existing QUERY message, so they get TQL's planning (a row-key range), its errors (an unknown
// column, a column the aggregation cannot take: TQL_SEMANTIC) and its results exactly. The
// sampling call is GridDB's own statement, not TQL: it travels as TIME_SAMPLING(*, …) with its
// mode and columns beside it (QUERY option 0x08), which the node runs by the call's rules
// (lib/query/tql/time-series-sampling-api.ts).
//
//   queryByTimeRange(s, e, 'DESCENDING')  SELECT * WHERE "ts" >= TIMESTAMP('…Z') AND
//                                           "ts" <= TIMESTAMP('…Z') ORDER BY "ts" DESC
//   aggregate(s, e, 'kw', 'AVG')          SELECT AVG("kw") WHERE "ts" >= … AND "ts" <= …
//   aggregate(s, e, 'kw', 'TIME_AVG')     SELECT TIME_AVG("kw") WHERE …  (neighbours in range)
//   get(t, 'NEXT' | 'NEXT_ONLY' | 'PREVIOUS' | 'PREVIOUS_ONLY')  (GridDB's TimeOperator)
//                                         SELECT TIME_NEXT | TIME_NEXT_ONLY | TIME_PREV |
//                                           TIME_PREV_ONLY(*, TIMESTAMP('…Z'))
//   interpolate(t, 'kw')                  SELECT TIME_INTERPOLATED("kw", TIMESTAMP('…Z'))
//   querySampling(s, e, ['kw', 'temp'], 'LINEAR_OR_PREVIOUS', 10, 'SECOND')
//                                         SELECT TIME_SAMPLING(*, TIMESTAMP('…Z'),
//                                           TIMESTAMP('…Z'), 10, SECOND)  + LINEAR_OR_PREVIOUS [1, 2]
//   querySampling(s, e, [], 'EMPTY', 1, 'MINUTE')      SELECT TIME_SAMPLING(*, …, 1, MINUTE) + EMPTY []
//
// Names are quoted as TQL identifiers ("" for a quote inside); times are UTC text with milliseconds.

import { StorageError } from '../base/errors.ts';
import type { ContainerSchema, IndexType } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import type { SamplingApi } from '../query/tql/time-series-sampling-api.ts';

/** A point in time: ms since the epoch, or a Date; undefined or null: unbounded. */
export type TimeInput = number | Date | null | undefined;
export type QueryOrder = 'ASCENDING' | 'DESCENDING';
export type Aggregation =
  'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX' | 'VARIANCE' | 'STDDEV' | 'TIME_AVG';

const AGGREGATIONS: readonly Aggregation[] =
  ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'VARIANCE', 'STDDEV', 'TIME_AVG'];

/** GridDB's TimeOperator: the row at or after, after, at or before, before a time. */
export type TimeOperator = 'NEXT' | 'NEXT_ONLY' | 'PREVIOUS' | 'PREVIOUS_ONLY';

const TIME_OPERATOR_FUNCTIONS: Readonly<Record<TimeOperator, string>> = {
  NEXT: 'TIME_NEXT', NEXT_ONLY: 'TIME_NEXT_ONLY', PREVIOUS: 'TIME_PREV',
  PREVIOUS_ONLY: 'TIME_PREV_ONLY',
};

/**
 * GridDB's InterpolationMode LINEAR_OR_PREVIOUS (also spelled INTERPOLATE): the named columns on a
 * line between rows, the other fields the previous row's; PREVIOUS: LINEAR_OR_PREVIOUS naming no
 * column (every field the previous row's; naming one is an error); EMPTY: a point without a row
 * gets the empty value of every field but the key (naming a column is an error, as in GridDB).
 */
export type InterpolationMode = 'LINEAR_OR_PREVIOUS' | 'INTERPOLATE' | 'PREVIOUS' | 'EMPTY';

const INTERPOLATION_MODES: readonly InterpolationMode[] =
  ['LINEAR_OR_PREVIOUS', 'INTERPOLATE', 'PREVIOUS', 'EMPTY'];

export type SamplingUnit = 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND' | 'MILLISECOND';

const SAMPLING_UNITS: readonly SamplingUnit[] = ['DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];

export function timeFindTql(
  schema: ContainerSchema,
  time: TimeInput,
  operator: TimeOperator,
): string {
  timeKeyOf(schema);
  if (!Object.hasOwn(TIME_OPERATOR_FUNCTIONS, operator)) {
    throw new StorageError('TQL_SEMANTIC', 'the time operator must be NEXT, NEXT_ONLY, PREVIOUS ' +
      `or PREVIOUS_ONLY, not ${String(operator)}`);
  }
  return `SELECT ${TIME_OPERATOR_FUNCTIONS[operator]}(*, ${timeLiteral(time, 'time')})`;
}

export function interpolateTql(schema: ContainerSchema, time: TimeInput, column: string): string {
  timeKeyOf(schema);
  if (typeof column !== 'string') {
    throw new StorageError('TQL_SEMANTIC', 'interpolate takes a column name');
  }
  return `SELECT TIME_INTERPOLATED(${quoteName(column)}, ${timeLiteral(time, 'time')})`;
}

export function samplingTql(
  schema: ContainerSchema,
  range: { start: TimeInput; end: TimeInput },
  sampling: { columns: readonly string[]; mode: InterpolationMode; interval: number;
    unit: SamplingUnit },
): { tql: string; api: SamplingApi } {
  timeKeyOf(schema);
  const { columns, mode, interval, unit } = sampling;
  if (!INTERPOLATION_MODES.includes(mode)) {
    throw new StorageError('TQL_SEMANTIC', 'the interpolation mode must be LINEAR_OR_PREVIOUS ' +
      `(INTERPOLATE), PREVIOUS or EMPTY, not ${String(mode)}`);
  }
  if (!Array.isArray(columns) || columns.some((column) => typeof column !== 'string')) {
    throw new StorageError('TQL_SEMANTIC', 'the columns to interpolate are an array of names');
  }
  if (mode === 'PREVIOUS' && columns.length > 0) {
    throw new StorageError('TQL_SEMANTIC', 'PREVIOUS interpolates no column: name none, or use ' +
      'LINEAR_OR_PREVIOUS');
  }
  // As GridDB's client, names become column indexes here: an unknown one never leaves.
  const columnIndexes = columns.map((column) => {
    const index = schema.columns.findIndex((c) => normalizeName(c.name) === normalizeName(column));
    if (index < 0) throw new StorageError('TQL_SEMANTIC', `column ${column} does not exist`);
    return index;
  });
  if (!Number.isSafeInteger(interval)) {
    throw new StorageError('TQL_SEMANTIC', `the interval must be an integer, not ${interval}`);
  }
  if (!SAMPLING_UNITS.includes(unit)) {
    throw new StorageError('TQL_SEMANTIC', `the interval unit must be one of ` +
      `${SAMPLING_UNITS.join(', ')}, not ${String(unit)}`);
  }
  const tql = `SELECT TIME_SAMPLING(*, ${timeLiteral(range.start, 'start')}, ` +
    `${timeLiteral(range.end, 'end')}, ${interval}, ${unit})`;
  return { tql, api: { mode: mode === 'EMPTY' ? 'EMPTY' : 'LINEAR_OR_PREVIOUS', columnIndexes } };
}

function timeLiteral(time: TimeInput, what: string): string {
  const text = timeText(time, what);
  if (text === undefined) {
    throw new StorageError('TQL_SEMANTIC', `${what} must be a time (ms since the epoch or a Date)`);
  }
  return `TIMESTAMP('${text}')`;
}

/** GridDB's IndexInfo: columns (or the single columnName), type, name. */
export interface IndexInfo {
  columnNames?: string[];
  columnName?: string;
  type?: IndexType;
  name?: string;
}

/** An index call's argument as the node takes it: `{ columnNames, type?, name? }`. */
export function indexInfoOf(column: string | IndexInfo, type: IndexType | undefined): object {
  if (typeof column === 'string') {
    return type === undefined ? { columnNames: [column] } : { columnNames: [column], type };
  }
  if (typeof column !== 'object' || column === null) {
    throw new StorageError('INVALID_SCHEMA', 'an index is named by a column name or an IndexInfo');
  }
  const { columnName, ...rest } = column;
  const info: IndexInfo = columnName === undefined ? rest : { ...rest, columnNames: [columnName] };
  return info.type === undefined && type !== undefined ? { ...info, type } : info;
}

export function timeRangeTql(
  schema: ContainerSchema,
  range: { start: TimeInput; end: TimeInput },
  order: QueryOrder,
): string {
  if (order !== 'ASCENDING' && order !== 'DESCENDING') {
    throw new StorageError('TQL_SEMANTIC',
      `order must be ASCENDING or DESCENDING, not ${String(order)}`);
  }
  const key = timeKeyOf(schema);
  const where = timeWhere(key, range);
  return `SELECT *${where} ORDER BY ${key}${order === 'DESCENDING' ? ' DESC' : ''}`;
}

export function timeAggregateTql(
  schema: ContainerSchema,
  range: { start: TimeInput; end: TimeInput },
  what: { column: string; aggregation: Aggregation },
): string {
  const key = timeKeyOf(schema);
  if (!AGGREGATIONS.includes(what.aggregation)) {
    throw new StorageError('TQL_SEMANTIC', `aggregation must be one of ` +
      `${AGGREGATIONS.join(', ')}, not ${String(what.aggregation)}`);
  }
  if (typeof what.column !== 'string') {
    throw new StorageError('TQL_SEMANTIC', 'aggregate takes a column name');
  }
  // GridDB's COUNT counts rows; TQL's COUNT takes *. The column must exist all the same.
  const argument = what.aggregation === 'COUNT' ? '*' : quoteName(what.column);
  const where = timeWhere(key, range);
  if (what.aggregation === 'COUNT' && !schema.columns.some((c) =>
    normalizeName(c.name) === normalizeName(what.column))) {
    throw new StorageError('TQL_SEMANTIC', `column ${what.column} does not exist`);
  }
  return `SELECT ${what.aggregation}(${argument})${where}`;
}

function timeKeyOf(schema: ContainerSchema): string {
  if (schema.type !== 'TIME_SERIES') {
    throw new StorageError('TQL_SEMANTIC', `container ${JSON.stringify(schema.name)} is a ` +
      'collection: time ranges and time aggregation need a TIME_SERIES container');
  }
  return quoteName(schema.columns[0]!.name);
}

function timeWhere(key: string, range: { start: TimeInput; end: TimeInput }): string {
  const conditions: string[] = [];
  const start = timeText(range.start, 'start');
  const end = timeText(range.end, 'end');
  if (start !== undefined) conditions.push(`${key} >= TIMESTAMP('${start}')`);
  if (end !== undefined) conditions.push(`${key} <= TIMESTAMP('${end}')`);
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

function timeText(time: TimeInput, what: string): string | undefined {
  if (time === undefined || time === null) return undefined;
  const ms = time instanceof Date ? time.getTime() : time;
  const date = typeof ms === 'number' && Number.isSafeInteger(ms) ? new Date(ms) : undefined;
  const year = date?.getUTCFullYear();
  if (date === undefined || year === undefined || Number.isNaN(year) || year < 0 || year > 9999) {
    throw new StorageError('TQL_SEMANTIC',
      `${what} must be a time in years 0–9999 (ms since the epoch or a Date), not ${String(time)}`);
  }
  return date.toISOString();
}

function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
