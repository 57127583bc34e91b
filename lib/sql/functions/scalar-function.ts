// What a scalar SQL function is to the planner and the executor (§5.8): how many arguments it
// takes, the type of its result for the types of its arguments (checked once, when a statement is
// planned), and its value for one row's arguments. Aggregates and window functions are operators
// of the executor, not scalar functions.

import type { SqlColumn, SqlType, SqlValue } from '../value.ts';

/** What a call may read besides its arguments; the same for every row of one statement. */
export interface SqlEvalContext {
  /** The session's time zone as minutes east of UTC (GridDB's `timeZone` property, `Z` = 0). */
  readonly timeZoneOffsetMinutes: number;
  /** NOW(): the statement's start, ms since the epoch (read once by the caller, in lib/io). */
  readonly statementStartMs: number;
  /** RANDOM() and RANDOMBLOB(): random bytes supplied by the caller (lib/io owns randomness). */
  readonly randomBytes: (count: number) => Uint8Array;
}

/** The result type, or why the arguments do not fit (the planner adds the call's position). */
export type SqlResultType = SqlType | { readonly problem: string };

export interface SqlScalarFunction {
  /** Upper-case name as called; aliases are separate entries of the registry. */
  readonly name: string;
  readonly minArgs: number;
  /** Infinity for variadic functions. */
  readonly maxArgs: number;
  /**
   * Its value may differ between two calls with the same arguments in one statement, or between
   * the plan and the run (NOW, RANDOM, RANDOMBLOB): the planner never folds such a call.
   */
  readonly volatile?: boolean;
  /**
   * Type check at plan time. `constants[i]` holds argument i's value when it is a literal or a
   * bound parameter (units, formats and time zones are checked there once), otherwise undefined.
   */
  resultType(argTypes: readonly SqlType[], constants: readonly (SqlValue | undefined)[]):
    SqlResultType;
  /**
   * One row's value. Arguments are already of the types resultType accepted. A value that makes
   * the call fail (overflow, bad text) throws a StorageError with a stable code; the executor
   * adds the position.
   */
  evaluate(args: readonly SqlValue[], argTypes: readonly SqlType[], context: SqlEvalContext):
    SqlValue;
  /**
   * A whole batch's values at once where a tight loop pays (TIMESTAMP_TRUNC over a typed column),
   * the same values evaluate gives row by row; undefined: this batch takes the row path.
   */
  evaluateColumns?(args: readonly SqlColumn[], argTypes: readonly SqlType[], context: SqlEvalContext,
    rowCount: number): SqlColumn | undefined;
}
