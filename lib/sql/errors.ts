// Errors of SQL compilation: a StorageError that says where in the text the problem is, as
// "syntax error at line 2, column 8: expected FROM, found "FORM"". Syntax errors carry GridDB's
// code and number (240001 SQL_COMPILE_SYNTAX_ERROR); a construct that parses but that this store
// does not run yet is NOT_SUPPORTED; a text beyond a limit of lib/base/limits.ts is LIMIT_EXCEEDED.

import { StorageError, type StorageErrorCode } from '../base/errors.ts';

/** Where a token starts: offset in UTF-16 code units from 0, line and column from 1. */
export interface SqlPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

const WHAT_BY_CODE: Partial<Record<StorageErrorCode, string>> = {
  SQL_COMPILE_SYNTAX_ERROR: 'syntax error',
  NOT_SUPPORTED: 'not supported',
  LIMIT_EXCEEDED: 'limit exceeded',
};

export class SqlError extends StorageError {
  constructor(
    code: StorageErrorCode,
    /** The message without its place, for callers that print the place themselves. */
    readonly detail: string,
    readonly position: SqlPosition,
    options?: ErrorOptions,
  ) {
    const what = WHAT_BY_CODE[code] ?? code;
    super(code, `${what} at line ${position.line}, column ${position.column}: ${detail}`, options);
  }
}

export function sqlSyntaxError(detail: string, position: SqlPosition): SqlError {
  return new SqlError('SQL_COMPILE_SYNTAX_ERROR', detail, position);
}

export function sqlNotSupported(detail: string, position: SqlPosition): SqlError {
  return new SqlError('NOT_SUPPORTED', detail, position);
}

export function sqlLimitExceeded(detail: string, position: SqlPosition): SqlError {
  return new SqlError('LIMIT_EXCEEDED', detail, position);
}

export const SQL_POSITION_START: SqlPosition = { offset: 0, line: 1, column: 1 };
