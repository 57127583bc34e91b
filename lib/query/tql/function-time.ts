// Time functions of TQL (spec/surface.md §3.4), all in UTC. NOW() is the query's start time, one
// value for the whole query. A TIMESTAMP of µs or ns precision keeps its precision through
// TIMESTAMPADD; TIMESTAMPDIFF of two precisions works in the finer one.

import {
  TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN, type TimePrecision,
} from '../../schema/column-type.ts';
import { integralOf, timeInUnits, type Integral } from './arithmetic.ts';
import { tqlEvaluationError } from './error.ts';
import { argumentOfType, type ScalarFunctionSpec } from './function-spec.ts';
import { parseTimestamp, timestampAdd, timestampDiff } from './timestamp.ts';
import {
  isIntegral, isScalarOf, isTimestamp, TQL_LONG, TQL_TIMESTAMP_MS, timestampType, unitsPerMs,
  type TqlType,
} from './types.ts';

const isString = (type: TqlType) => isScalarOf(type, 'STRING');

function precisionOf(type: TqlType): TimePrecision {
  return type.timePrecision ?? 'MILLISECOND';
}

function timestampParser(name: string, precision: TimePrecision): ScalarFunctionSpec {
  return {
    argumentCountMin: 1, argumentCountMax: 1, usage: `${name}(str)`,
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      const { position } = context;
      return {
        type: timestampType(precision),
        impl: (values) => {
          const parsed = parseTimestamp(values[0] as string, precision);
          if ('reason' in parsed) {
            throw tqlEvaluationError(`${context.name.toUpperCase()}('${values[0] as string}'): ` +
              `not a timestamp: ${parsed.reason}`, position);
          }
          return parsed.value;
        },
      };
    },
  };
}

const TIMESTAMPADD: ScalarFunctionSpec = {
  argumentCountMin: 2, argumentCountMax: 2, unitArgument: true,
  usage: 'TIMESTAMPADD(YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|MILLISECOND, timestamp, duration)',
  bind(args, context) {
    const type = argumentOfType(args, 0, context, isTimestamp, 'a TIMESTAMP');
    argumentOfType(args, 1, context, isIntegral, 'an integer');
    const unit = context.unit!;
    const precision = precisionOf(type);
    const { position } = context;
    return {
      type: isTimestamp(type) ? type : TQL_TIMESTAMP_MS,
      impl: (values) => {
        const result = timestampAdd(unit, values[0] as Integral, BigInt(values[1] as Integral),
          precision);
        if (result === undefined) {
          throw tqlEvaluationError('TIMESTAMPADD: the result is out of range', position);
        }
        return result;
      },
    };
  },
};

const TIMESTAMPDIFF: ScalarFunctionSpec = {
  argumentCountMin: 2, argumentCountMax: 2, unitArgument: true,
  usage: 'TIMESTAMPDIFF(YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|MILLISECOND, timestamp1, timestamp2)',
  bind(args, context) {
    const left = precisionOf(argumentOfType(args, 0, context, isTimestamp, 'a TIMESTAMP'));
    const right = precisionOf(argumentOfType(args, 1, context, isTimestamp, 'a TIMESTAMP'));
    const finer = unitsPerMs(left) >= unitsPerMs(right) ? left : right;
    const unit = context.unit!;
    return {
      type: TQL_LONG,
      impl: (values) => integralOf(timestampDiff(unit,
        timeInUnits(values[0] as Integral, left, finer),
        timeInUnits(values[1] as Integral, right, finer), finer)),
    };
  },
};

export const TIME_FUNCTIONS: Record<string, ScalarFunctionSpec> = {
  NOW: {
    argumentCountMin: 0, argumentCountMax: 0, usage: 'NOW()',
    bind(_args, context) {
      const nowMs = context.nowMs;
      return { type: TQL_TIMESTAMP_MS, impl: () => nowMs };
    },
  },
  TIMESTAMP: timestampParser('TIMESTAMP', 'MILLISECOND'),
  TIMESTAMP_MS: timestampParser('TIMESTAMP_MS', 'MILLISECOND'),
  TIMESTAMP_US: timestampParser('TIMESTAMP_US', 'MICROSECOND'),
  TIMESTAMP_NS: timestampParser('TIMESTAMP_NS', 'NANOSECOND'),
  TIMESTAMPADD,
  TIMESTAMP_ADD: TIMESTAMPADD,
  TIMESTAMPDIFF,
  TIMESTAMP_DIFF: TIMESTAMPDIFF,
  TO_TIMESTAMP_MS: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'TO_TIMESTAMP_MS(num)',
    bind(args, context) {
      argumentOfType(args, 0, context, isIntegral, 'an integer (epoch milliseconds)');
      const { position } = context;
      return {
        type: TQL_TIMESTAMP_MS,
        impl: (values) => {
          const ms = values[0] as Integral;
          if (ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX) {
            throw tqlEvaluationError(`TO_TIMESTAMP_MS(${ms}): not a time from 1970 to 9999`,
              position);
          }
          return Number(ms);
        },
      };
    },
  },
  TO_EPOCH_MS: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'TO_EPOCH_MS(timestamp)',
    bind(args, context) {
      const precision = precisionOf(argumentOfType(args, 0, context, isTimestamp, 'a TIMESTAMP'));
      if (precision === 'MILLISECOND') return { type: TQL_LONG, impl: (values) => values[0]! };
      const units = BigInt(unitsPerMs(precision));
      return {
        type: TQL_LONG,
        impl: (values) => {
          const value = values[0] as bigint;
          const ms = value / units;
          return integralOf(value % units < 0n ? ms - 1n : ms); // floor
        },
      };
    },
  },
};
