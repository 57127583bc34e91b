// The time-series functions of the select list (spec/surface.md §3.5), checked against the schema
// before a row is read: TIME_NEXT, TIME_NEXT_ONLY, TIME_PREV, TIME_PREV_ONLY (`*`, ts),
// TIME_INTERPOLATED(column, ts), TIME_SAMPLING(* | column, start, end, interval, unit),
// TIME_AVG(column), MAX_ROWS(column), MIN_ROWS(column). time-series-execute.ts runs them.
//
// As GridDB's server (selection_func_impl.h, aggregation_func.h): all but MAX_ROWS and MIN_ROWS
// need a TIME_SERIES container; the time arguments are constant TIMESTAMPs (NOW(), TIMESTAMP(..),
// TIMESTAMPADD(..) of constants), a NULL one gives no row; the interpolated column is numeric
// (BYTE..DOUBLE); the interval is a positive integer; an end before the start gives no row.
//
// Times are held as bigints in the key's units (ms, µs or ns), so TIMESTAMP(6) and TIMESTAMP(9)
// keep their precision. A time finer than the key compares exactly (TIME_NEXT of 1.5 ms on a
// ms key is the first key ≥ 2 ms); an interpolation point or a sampling start finer than the key
// cannot be a key of the result, so it is refused.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import type { TqlCall, TqlExpression } from './ast.ts';
import type { Binder } from './bind.ts';
import { tqlSemanticError, type TqlPosition } from './error.ts';
import type { SamplingApi } from './time-series-sampling-api.ts';
import {
  isFloating, isNull, isNumeric, isTimestamp, typeName, unitsPerMs, type TqlType,
} from './types.ts';

export const TIME_FIND_FUNCTIONS = [
  'TIME_NEXT', 'TIME_NEXT_ONLY', 'TIME_PREV', 'TIME_PREV_ONLY',
] as const;
export type TimeFindFunction = (typeof TIME_FIND_FUNCTIONS)[number];

export const TIME_SERIES_FUNCTIONS = [
  ...TIME_FIND_FUNCTIONS, 'TIME_INTERPOLATED', 'TIME_SAMPLING', 'TIME_AVG', 'MAX_ROWS', 'MIN_ROWS',
] as const;
export type TimeSeriesFunction = (typeof TIME_SERIES_FUNCTIONS)[number];

export function isTimeSeriesFunction(name: string): name is TimeSeriesFunction {
  return (TIME_SERIES_FUNCTIONS as readonly string[]).includes(name);
}

/** Sampling units and their length in ms (UTC: a day is always 86 400 000 ms). */
const SAMPLING_UNIT_MS: ReadonlyMap<string, bigint> = new Map([
  ['DAY', 86_400_000n], ['HOUR', 3_600_000n], ['MINUTE', 60_000n], ['SECOND', 1000n],
  ['MILLISECOND', 1n],
]);

/** A time argument in key units: `floor` and `ceil` differ when it is finer than the key. */
export interface KeyTime {
  readonly floor: bigint;
  readonly ceil: bigint;
}

export type TimeSeriesSelection =
  | {
    readonly kind: 'find'; readonly function: TimeFindFunction;
    /** undefined: the argument is NULL, there is no row. */
    readonly time: KeyTime | undefined; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'interpolate'; readonly columnIndex: number; readonly columnType: TqlType;
    readonly time: bigint | undefined; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'sampling';
    /** undefined: `*`, every field from the previous row. */
    readonly columnIndex: number | undefined; readonly columnType: TqlType | undefined;
    /** undefined: a NULL argument, no row. */
    readonly points: SamplingPoints | undefined; readonly position: TqlPosition;
    /** Set by the client's sampling call (not TQL): its rules (time-series-sampling-api.ts). */
    readonly api?: SamplingApi;
  }
  | {
    readonly kind: 'timeAvg'; readonly columnIndex: number; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'extremeRows'; readonly function: 'MAX_ROWS' | 'MIN_ROWS';
    readonly columnIndex: number; readonly columnType: TqlType; readonly position: TqlPosition;
  };

/** Points start, start + interval, ... up to end, in key units. */
export interface SamplingPoints {
  readonly start: bigint;
  readonly end: bigint;
  readonly interval: bigint;
  /** How many points there are: 0 when end is before start. */
  readonly count: bigint;
}

export function bindTimeSeriesSelection(
  call: TqlCall,
  name: TimeSeriesFunction,
  binder: Binder,
): TimeSeriesSelection {
  const schema = binder.scope.schema;
  const position = call.position;
  if (name !== 'MAX_ROWS' && name !== 'MIN_ROWS' && schema.type !== 'TIME_SERIES') {
    throw tqlSemanticError(`${name} needs a TIME_SERIES container; "${schema.name}" is a ` +
      'COLLECTION', position);
  }
  switch (name) {
    case 'TIME_NEXT': case 'TIME_NEXT_ONLY': case 'TIME_PREV': case 'TIME_PREV_ONLY': {
      checkShape(call, name, { star: true, argumentCount: 1 }, `${name}(*, timestamp)`);
      const time = timeArgument(call.args[0]!, 2, name, binder);
      return { kind: 'find', function: name, time, position };
    }
    case 'TIME_INTERPOLATED': {
      checkShape(call, name, { star: false, argumentCount: 2 }, `${name}(column, timestamp)`);
      const column = numericColumn(call.args[0]!, name, binder);
      const time = timeArgument(call.args[1]!, 2, name, binder);
      const exact = exactTime(time, name, schema, call);
      return { kind: 'interpolate', ...column, time: exact, position };
    }
    case 'TIME_SAMPLING': return bindSampling(call, binder);
    case 'TIME_AVG': {
      checkShape(call, name, { star: false, argumentCount: 1 }, `${name}(column)`);
      const { columnIndex } = numericColumn(call.args[0]!, name, binder);
      return { kind: 'timeAvg', columnIndex, position };
    }
    case 'MAX_ROWS': case 'MIN_ROWS': {
      checkShape(call, name, { star: false, argumentCount: 1 }, `${name}(column)`);
      const argument = call.args[0]!;
      const column = binder.column(nameOf(argument, name));
      if (!isNumeric(column.type) && !isTimestamp(column.type)) {
        throw tqlSemanticError(`${name} needs a numeric or TIMESTAMP column, not ` +
          `${typeName(column.type)}`, argument.position);
      }
      return {
        kind: 'extremeRows', function: name, columnIndex: column.columnIndex,
        columnType: column.type, position,
      };
    }
  }
}

function bindSampling(call: TqlCall, binder: Binder): TimeSeriesSelection {
  const name = 'TIME_SAMPLING';
  const usage = `${name}(* | column, start, end, interval, DAY | HOUR | MINUTE | SECOND | ` +
    'MILLISECOND)';
  const star = call.star;
  checkShape(call, name, { star, argumentCount: star ? 4 : 5 }, usage);
  const args = star ? call.args : call.args.slice(1);
  const column = star ? undefined : numericColumn(call.args[0]!, name, binder);
  const schema = binder.scope.schema;
  const start = timeArgument(args[0]!, 2, name, binder);
  const end = timeArgument(args[1]!, 3, name, binder);
  const interval = intervalArgument(args[2]!, binder);
  const unitMs = samplingUnit(args[3]!, usage);
  const base = { kind: 'sampling' as const, columnIndex: column?.columnIndex,
    columnType: column?.columnType, position: call.position };
  const startUnits = exactTime(start, name, schema, call);
  if (startUnits === undefined || end === undefined || interval === undefined) {
    return { ...base, points: undefined };
  }
  const intervalUnits = interval * unitMs * BigInt(keyUnitsPerMs(schema));
  // The last point is the last one not after end, whatever the precision of end.
  const count = end.floor < startUnits ? 0n : (end.floor - startUnits) / intervalUnits + 1n;
  const points = { start: startUnits, end: end.floor, interval: intervalUnits, count };
  return { ...base, points };
}

function checkShape(
  call: TqlCall,
  name: string,
  shape: { star: boolean; argumentCount: number },
  usage: string,
): void {
  if (call.star !== shape.star) {
    const what = shape.star ? 'takes * first' : name === 'TIME_INTERPOLATED'
      ? 'cannot interpolate *: name a numeric column' : 'takes a column, not *';
    throw tqlSemanticError(`${name} ${what}: ${usage}`, call.position);
  }
  if (call.args.length !== shape.argumentCount) {
    throw tqlSemanticError(`${name} takes ${shape.argumentCount + (shape.star ? 1 : 0)} ` +
      `arguments: ${usage}`, call.position);
  }
}

function nameOf(argument: TqlExpression, name: string): TqlExpression & { kind: 'name' } {
  if (argument.kind !== 'name') {
    throw tqlSemanticError(`${name} takes a column name first`, argument.position);
  }
  return argument;
}

function numericColumn(
  argument: TqlExpression,
  name: string,
  binder: Binder,
): { columnIndex: number; columnType: TqlType } {
  const column = binder.column(nameOf(argument, name));
  if (!isNumeric(column.type)) {
    const what = name === 'TIME_AVG' ? 'average' : 'interpolate';
    throw tqlSemanticError(`${name} cannot ${what} column ${argument.kind === 'name'
      ? argument.name : ''} (${typeName(column.type)}): it needs a numeric column ` +
      '(BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE)', argument.position);
  }
  if (column.columnIndex === 0) {
    throw tqlSemanticError(`${name} takes a value column, not the row key`, argument.position);
  }
  return { columnIndex: column.columnIndex, columnType: column.type };
}

/** A constant TIMESTAMP argument in key units; undefined when it is NULL. */
function timeArgument(
  argument: TqlExpression,
  number: number,
  name: string,
  binder: Binder,
): KeyTime | undefined {
  const bound = binder.expression(argument);
  if (!isNull(bound.type) && !isTimestamp(bound.type)) {
    throw tqlSemanticError(`argument ${number} of ${name} must be a TIMESTAMP, not ` +
      `${typeName(bound.type)}`, argument.position);
  }
  if (bound.kind !== 'constant') {
    throw tqlSemanticError(`argument ${number} of ${name} must be a constant TIMESTAMP ` +
      "(NOW(), TIMESTAMP('...'), ...), not an expression of the row", argument.position);
  }
  if (bound.value === null) return undefined;
  const keyUnits = BigInt(keyUnitsPerMs(binder.scope.schema));
  const valueUnits = BigInt(unitsPerMs(bound.type.timePrecision));
  const value = BigInt(bound.value as number | bigint);
  if (valueUnits <= keyUnits) {
    const scaled = value * (keyUnits / valueUnits);
    return { floor: scaled, ceil: scaled };
  }
  const scale = valueUnits / keyUnits;
  let floor = value / scale;
  if (value % scale !== 0n && value < 0n) floor -= 1n;
  return { floor, ceil: value % scale === 0n ? floor : floor + 1n };
}

function exactTime(
  time: KeyTime | undefined,
  name: string,
  schema: ContainerSchema,
  call: TqlCall,
): bigint | undefined {
  if (time === undefined) return undefined;
  if (time.floor !== time.ceil) {
    const precision = schema.columns[0]!.timePrecision ?? 'MILLISECOND';
    throw tqlSemanticError(`${name} needs a time the key can hold: the key is ` +
      `TIMESTAMP of ${precision} precision, the time is finer`, call.position);
  }
  return time.floor;
}

function intervalArgument(argument: TqlExpression, binder: Binder): bigint | undefined {
  const bound = binder.expression(argument);
  if (bound.kind !== 'constant' || (!isNull(bound.type) &&
    (!isNumeric(bound.type) || isFloating(bound.type)))) {
    throw tqlSemanticError('argument 4 of TIME_SAMPLING (the interval) must be a constant ' +
      `integer, not ${typeName(bound.type)}`, argument.position);
  }
  if (bound.value === null) return undefined;
  const interval = BigInt(bound.value as number | bigint);
  if (interval <= 0n) {
    throw tqlSemanticError(`the interval of TIME_SAMPLING must be positive, not ${interval}`,
      argument.position);
  }
  return interval;
}

function samplingUnit(argument: TqlExpression, usage: string): bigint {
  const text = argument.kind === 'name' ? argument.name
    : argument.kind === 'literal' && argument.literal.type === 'STRING'
      ? argument.literal.value : undefined;
  const ms = text === undefined ? undefined : SAMPLING_UNIT_MS.get(text.toUpperCase());
  if (ms === undefined) {
    throw tqlSemanticError(`the unit of TIME_SAMPLING must be DAY, HOUR, MINUTE, SECOND or ` +
      `MILLISECOND: ${usage}`, argument.position);
  }
  return ms;
}

function keyUnitsPerMs(schema: ContainerSchema): number {
  return unitsPerMs(schema.columns[0]!.timePrecision);
}
