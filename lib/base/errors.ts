// Operating errors: things a user, a client or the disk can cause. Each has a stable string code and a
// stable number (the number is what the wire protocol and the web API send). Codes and numbers never
// change; messages may. Programmer errors are assertions (assert.ts), not StorageErrors.

export const STORAGE_ERROR_NUMBERS = {
  // configuration and environment
  CONFIG_INVALID: 100001,
  IO: 100002,
  CORRUPTION: 100003,
  CLOSED: 100004,
  LIMIT_EXCEEDED: 100005,
  NOT_SUPPORTED: 100006,
  // catalog
  CONTAINER_NOT_FOUND: 145001,
  CONTAINER_EXISTS: 145002,
  INVALID_NAME: 145003,
  INVALID_SCHEMA: 145004,
  TOO_MANY_COLUMNS: 145005,
  DUPLICATE_COLUMN_NAME: 145006,
  COLUMN_NOT_FOUND: 145007,
  // rows
  TYPE_MISMATCH: 150001,
  NULL_NOT_ALLOWED: 150002,
  KEY_REQUIRED: 150003,
  ROW_INVALID: 150004,
  VALUE_OUT_OF_RANGE: 150005,
  /** The container's schema changed while the request waited for a lock; retry with the new schema. */
  SCHEMA_CHANGED: 150006,
  // transactions
  LOCK_TIMEOUT: 10030,
  TRANSACTION_INVALID: 10031,
} as const;

export type StorageErrorCode = keyof typeof STORAGE_ERROR_NUMBERS;

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly errorNumber: number;

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.errorNumber = STORAGE_ERROR_NUMBERS[code];
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
