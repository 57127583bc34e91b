// ErrorResponse fields of a StorageError: the SQLSTATE of its stable code (PostgreSQL's
// Appendix A), its message, and the place in the statement when the message names one
// ("... at line 2, column 8: ..." from lib/sql/errors.ts) as the 1-based character position.

import { isStorageError, type StorageErrorCode } from '../base/errors.ts';

export interface PgErrorFields {
  severity: 'ERROR' | 'FATAL';
  sqlState: string;
  message: string;
  /** 1-based character index into the statement. */
  position?: number;
  detail?: string;
  hint?: string;
  /** The CONTEXT line (W): where in a COPY's input, for instance. */
  where?: string;
}

const SQLSTATE_BY_CODE: Partial<Record<StorageErrorCode, string>> = {
  SQL_COMPILE_SYNTAX_ERROR: '42601',
  TQL_SYNTAX: '42601',
  CONTAINER_NOT_FOUND: '42P01',
  DATABASE_NOT_FOUND: '3D000',
  COLUMN_NOT_FOUND: '42703',
  TYPE_MISMATCH: '42804',
  CONTAINER_EXISTS: '42P07',
  DUPLICATE_COLUMN_NAME: '42701',
  INVALID_NAME: '42602',
  INVALID_SCHEMA: '42P16',
  TOO_MANY_COLUMNS: '54011',
  LIMIT_EXCEEDED: '54000',
  NOT_SUPPORTED: '0A000',
  NULL_NOT_ALLOWED: '23502',
  KEY_REQUIRED: '23502',
  ROW_INVALID: '22023',
  VALUE_OUT_OF_RANGE: '22003',
  SQL_PROC_VALUE_OVERFLOW: '22003',
  SQL_PROC_VALUE_SYNTAX_ERROR: '22P02',
  SQL_PROC_INVALID_EXPRESSION_INPUT: '22023',
  TQL_SEMANTIC: '42000',
  TQL_EVALUATION: '22000',
  LOCK_TIMEOUT: '55P03',
  REQUEST_TIMEOUT: '57014',
  SQL_CANCELLED: '57014',
  TRANSACTION_INVALID: '25000',
  ILLEGAL_COMMIT_MODE: '25000',
  SCHEMA_CHANGED: '40001',
  AUTHENTICATION_FAILED: '28P01',
  USER_NOT_FOUND: '42704',
  PROTOCOL_ERROR: '08P01',
  CLOSED: '57P01',
  IO: '58030',
  CORRUPTION: 'XX001',
  PARTITION_NOT_OWNED: '42501',
};

const PLACE = /^.*? at line (\d+), column (\d+): /;

/** The ErrorResponse of an error that ended a statement; `text` is the statement, for the position. */
export function pgErrorOf(error: unknown, text?: string): PgErrorFields {
  if (!isStorageError(error)) {
    return { severity: 'ERROR', sqlState: 'XX000', message: error instanceof Error ? error.message : String(error) };
  }
  const fields: PgErrorFields = {
    severity: 'ERROR', sqlState: SQLSTATE_BY_CODE[error.code] ?? 'XX000', message: error.message,
    detail: `store error ${error.code}`,
  };
  const place = PLACE.exec(error.message);
  if (place !== null && text !== undefined) {
    const position = characterPosition(text, Number(place[1]), Number(place[2]));
    if (position !== undefined) fields.position = position;
  }
  return fields;
}

/** PostgreSQL's positions count characters from 1; lib/sql's columns count UTF-16 units from 1. */
function characterPosition(text: string, line: number, column: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const end = text.indexOf('\n', offset);
    if (end < 0) return undefined;
    offset = end + 1;
  }
  const units = offset + column - 1;
  if (units > text.length) return undefined;
  return [...text.slice(0, units)].length + 1;
}

/** An error of the protocol layer itself, with its SQLSTATE. */
export function pgError(sqlState: string, message: string, severity: 'ERROR' | 'FATAL' = 'ERROR'): PgErrorFields {
  return { severity, sqlState, message };
}

/** An error the protocol layer raises with its own SQLSTATE (not a store error). */
export class PgError extends Error {
  constructor(readonly fields: PgErrorFields) {
    super(fields.message);
  }
}

export function pgErrorFieldsOf(error: unknown, text?: string): PgErrorFields {
  return error instanceof PgError ? error.fields : pgErrorOf(error, text);
}
