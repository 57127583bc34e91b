// Errors the web API answers with: an HTTP status and GridDB's error body
//
//   { "version": "v2", "errorCode": <number>, "errorMessage": "<text>" }
//
// `errorCode` is 0 for what the web API finds itself (bad input, unknown cluster, missing
// container), and the database's error number when the error came from the node through the
// client library (spec/surface.md §1.3). Messages the spec gives are reproduced word for word.

export const API_VERSION = 'v2';

export type HttpErrorStatus = 400 | 401 | 404 | 405 | 408 | 409 | 413 | 415 | 417 | 500 | 503;

export interface WebApiErrorOptions extends ErrorOptions {
  /** Seconds to send as `Retry-After` (a 503 for a web API too busy to take the request). */
  retryAfterS?: number;
}

export class WebApiError extends Error {
  override readonly name = 'WebApiError';
  readonly retryAfterS: number | undefined;

  constructor(
    readonly status: HttpErrorStatus,
    message: string,
    readonly errorCode = 0,
    options?: WebApiErrorOptions,
  ) {
    super(message, options);
    this.retryAfterS = options?.retryAfterS;
  }
}

export interface ErrorBody {
  version: string;
  errorCode: number;
  errorMessage: string;
}

export function errorBody(error: WebApiError): ErrorBody {
  return { version: API_VERSION, errorCode: error.errorCode, errorMessage: error.message };
}

export const badRequest = (message: string) => new WebApiError(400, message);
export const unauthorized = (message: string) => new WebApiError(401, message);
export const notFound = (message: string) => new WebApiError(404, message);

/**
 * 404 `Container not existed`, naming the container asked for: GridDB's text first, so that a
 * client matching it still matches.
 */
export const containerNotExisted = (name: string) =>
  notFound(`${MESSAGES.containerNotExisted}: '${name}'`);

/** The spec's messages, in one place so that tests and routes agree on every word. */
export const MESSAGES = {
  containerNotExisted: 'Container not existed',
  containerExisted: 'Container already existed',
  clusterNotFound: 'Cluster not found in repository',
  invalidCharacters: 'Invalid character(s) found',
  tooManyResult: 'Too many result',
  tooManyRowsData: 'Too many rows data',
  rowsDataEmpty: 'Rows data is empty',
  rowDataInvalid: 'Row data is invalid',
  parseError: 'Parse error',
} as const;
