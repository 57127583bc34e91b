// What a TQL scalar function declares: how many arguments it takes, whether the first one is a time
// unit (TIMESTAMPADD(DAY, ...)), and how to type-check its arguments and give its implementation.
// The helpers here check argument types with messages that name the function and the argument.

import type { TqlExpression } from './ast.ts';
import type { BoundExpression, ScalarFunctionImpl } from './bound.ts';
import { tqlSemanticError, type TqlPosition } from './error.ts';
import type { TimeUnit } from './timestamp.ts';
import { isNull, typeName, type TqlType } from './types.ts';

export interface FunctionArgument {
  readonly bound: BoundExpression;
  readonly syntax: TqlExpression;
}

export interface FunctionBindContext {
  /** As written in the query. */
  readonly name: string;
  readonly position: TqlPosition;
  /** The query's NOW(), fixed for the whole query. */
  readonly nowMs: number;
  /** The time unit given as the first argument, for functions that take one. */
  readonly unit: TimeUnit | undefined;
  /** 1 when a unit came first: argument 0 of a spec is then the call's second argument. */
  readonly argumentNumberOffset: number;
}

export interface FunctionBinding {
  readonly type: TqlType;
  readonly impl: ScalarFunctionImpl;
  /** Default true: a NULL argument makes the result NULL without calling impl. */
  readonly nullPropagating?: boolean;
}

export interface ScalarFunctionSpec {
  /** Arguments after the unit, if any. */
  readonly argumentCountMin: number;
  readonly argumentCountMax: number;
  readonly unitArgument?: boolean;
  /** Usage, for messages: `SUBSTRING(str, start[, length])`. */
  readonly usage: string;
  bind(args: readonly FunctionArgument[], context: FunctionBindContext): FunctionBinding;
}

/**
 * Checks that argument `index` has an acceptable type (NULL always is); returns its type.
 * `expected` names the acceptable types for the message.
 */
export function argumentOfType(
  args: readonly FunctionArgument[],
  index: number,
  context: FunctionBindContext,
  accepts: (type: TqlType) => boolean,
  expected: string,
): TqlType {
  const argument = args[index]!;
  const type = argument.bound.type;
  if (!isNull(type) && !accepts(type)) {
    const number = index + 1 + context.argumentNumberOffset;
    throw tqlSemanticError(`argument ${number} of ${context.name.toUpperCase()} must be ` +
      `${expected}, not ${typeName(type)}`, argument.syntax.position);
  }
  return type;
}
