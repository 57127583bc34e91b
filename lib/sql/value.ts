// Types of SQL expressions and the JavaScript shape of their values while a statement runs. The
// shapes are the engine's (lib/schema/column-type.ts), so column batches reach the executor
// without conversion:
//
//   BOOL → boolean    BYTE, SHORT, INTEGER, FLOAT, DOUBLE → number    LONG → bigint (always, also
//   when computed: LONG arithmetic is exact and overflow is an error)    TIMESTAMP (3) → number of
//   ms since the epoch    TIMESTAMP(6) | TIMESTAMP(9) → bigint of µs | ns    STRING → string
//   BLOB → Uint8Array    NULL → null
//
// UNKNOWN is the type of a bare NULL and of what SQL cannot read (GEOMETRY and array columns read
// as NULL of type UNKNOWN, as in GridDB).

import type { SqlColumnType } from './sql-types.ts';

export type SqlType = SqlColumnType | 'UNKNOWN';

export type SqlValue = null | boolean | number | bigint | string | Uint8Array;

/**
 * One column of a batch (lib/sql/exec/), by row. A scan hands out a DOUBLE or TIMESTAMP (ms)
 * column without NULLs as a Float64Array (its own copy of the block's values, never a view: a
 * page outlives the turn it was read in); a kernel over such a column may answer one too. The
 * operators read it like an array and never write it.
 */
export type SqlColumn = readonly SqlValue[] | Float64Array;

/** Integer types widen to LONG in arithmetic; FLOAT and DOUBLE to DOUBLE. */
export const SQL_INTEGER_TYPES: ReadonlySet<SqlType> = new Set(['BYTE', 'SHORT', 'INTEGER', 'LONG']);
export const SQL_FLOATING_TYPES: ReadonlySet<SqlType> = new Set(['FLOAT', 'DOUBLE']);
export const SQL_TIMESTAMP_TYPES: ReadonlySet<SqlType> =
  new Set(['TIMESTAMP', 'TIMESTAMP(6)', 'TIMESTAMP(9)']);

export function isSqlNumericType(type: SqlType): boolean {
  return SQL_INTEGER_TYPES.has(type) || SQL_FLOATING_TYPES.has(type);
}
