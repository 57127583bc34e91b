// Any error → the status and body the web API answers with (spec/surface.md §1.3):
//   WebApiError                       its own status and errorCode 0
//   StorageError from the node or     by code: authentication and cluster name 401, missing
//   the client library                container or database 404, an existing container 409,
//                                     what the caller sent (types, names, TQL, sizes) 400,
//                                     the rest (the node failing or unreachable, time-outs)
//                                     500; never 401 for an unreachable node, which would
//                                     make the caller doubt a right password; errorCode is
//                                     the error's number, the message GridDB-shaped:
//                                     `[145001:CONTAINER_NOT_FOUND] ...`
//   fastify's own errors              by their code: a body that is not JSON 400, a media type
//                                     it cannot parse 415, a body over the limit 413, ...
//   anything else                     500 (a bug): logged with its stack, its message hidden

import { isStorageError, type StorageError, type StorageErrorCode } from '../../base/errors.ts';
import { WebApiError, type HttpErrorStatus } from './webapi-error.ts';

const STORAGE_STATUS: Partial<Record<StorageErrorCode, HttpErrorStatus>> = {
  AUTHENTICATION_FAILED: 401,
  CLUSTER_NAME_INVALID: 401,
  CONTAINER_NOT_FOUND: 404,
  DATABASE_NOT_FOUND: 404,
  CONTAINER_EXISTS: 409,
  CONFIG_INVALID: 400,
  LIMIT_EXCEEDED: 400,
  NOT_SUPPORTED: 400,
  INVALID_NAME: 400,
  INVALID_SCHEMA: 400,
  TOO_MANY_COLUMNS: 400,
  DUPLICATE_COLUMN_NAME: 400,
  COLUMN_NOT_FOUND: 400,
  TYPE_MISMATCH: 400,
  NULL_NOT_ALLOWED: 400,
  KEY_REQUIRED: 400,
  ROW_INVALID: 400,
  VALUE_OUT_OF_RANGE: 400,
  LOCK_TIMEOUT: 400,
  TRANSACTION_INVALID: 400,
  TQL_SYNTAX: 400,
  TQL_SEMANTIC: 400,
  TQL_EVALUATION: 400,
  USER_INVALID: 401,
  USER_NOT_FOUND: 401,
};

/** fastify error codes → status; the message is fastify's (it says what was wrong). */
const FASTIFY_STATUS: Record<string, HttpErrorStatus> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_TYPE: 400,
  FST_ERR_CTP_EMPTY_TYPE: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_BAD_URL: 400,
  FST_ERR_ASYNC_CONSTRAINT: 400,
  FST_ERR_VALIDATION: 400,
  FST_ERR_NOT_FOUND: 404,
};

/** The web API's error for `error`; `internal` says it is a bug to log. */
export function webApiErrorOf(error: unknown): { error: WebApiError; internal: boolean } {
  // A 503 is the web API refusing work it has no room for, not a bug.
  if (error instanceof WebApiError) return { error, internal: error.status === 500 };
  if (isStorageError(error)) {
    const status = STORAGE_STATUS[error.code] ?? 500;
    return {
      error: new WebApiError(status, storageMessage(error), error.errorNumber, { cause: error }),
      internal: false,
    };
  }
  const code = typeof error === 'object' && error !== null
    ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && code in FASTIFY_STATUS) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: new WebApiError(FASTIFY_STATUS[code]!, message), internal: false };
  }
  const statusCode = typeof error === 'object' && error !== null
    ? (error as { statusCode?: unknown }).statusCode : undefined;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // An HTTP-level complaint from the framework or Node (a malformed request): the caller's.
    const message = error instanceof Error ? error.message : 'Bad request';
    return { error: new WebApiError(400, message), internal: false };
  }
  return { error: new WebApiError(500, 'Internal error'), internal: true };
}

function storageMessage(error: StorageError): string {
  return `[${error.errorNumber}:${error.code}] ${error.message}`;
}
