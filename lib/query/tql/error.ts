// Errors of TQL: a StorageError that also says where in the query text the problem is. Syntax
// errors (TQL_SYNTAX), meaning errors found before any row is read (TQL_SEMANTIC, NOT_SUPPORTED,
// LIMIT_EXCEEDED) and errors on a value while the query runs (TQL_EVALUATION) all carry the
// position of the token or expression at fault, also inside the message.

import { StorageError, type StorageErrorCode } from '../../base/errors.ts';

/** Where a token or expression starts: offset in UTF-16 code units, line and column from 1. */
export interface TqlPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

export class TqlError extends StorageError {
  constructor(
    code: StorageErrorCode,
    message: string,
    readonly position: TqlPosition | undefined,
    options?: ErrorOptions,
  ) {
    super(code, position === undefined
      ? message
      : `${message} (line ${position.line}, column ${position.column})`, options);
  }
}

export function tqlSyntaxError(message: string, position: TqlPosition): TqlError {
  return new TqlError('TQL_SYNTAX', message, position);
}

export function tqlSemanticError(message: string, position: TqlPosition | undefined): TqlError {
  return new TqlError('TQL_SEMANTIC', message, position);
}

export function tqlEvaluationError(message: string, position: TqlPosition | undefined): TqlError {
  return new TqlError('TQL_EVALUATION', message, position);
}
