// The body of an error reply (frame status ERROR):
//
//   | errorNumber u32 | code string | message string |
//
// errorNumber and code are the StorageError's (lib/base/errors.ts); a reader that does not know the
// code (a newer node) still gets the number and the message, as an INTERNAL_ERROR that names them.

import { messageWithoutContainerKeys } from '../schema/database-names.ts';
import {
  STORAGE_ERROR_NUMBERS, StorageError, type StorageErrorCode,
} from '../base/errors.ts';
import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { decodeBody } from './message-codec.ts';

/** What a message may say about an error: long enough for any of ours, short enough to bound. */
const ERROR_MESSAGE_LENGTH_MAX = 4096;

export interface WireError {
  errorNumber: number;
  code: string;
  message: string;
}

export function errorWrite(writer: ByteWriter, error: StorageError): void {
  writer.u32(error.errorNumber);
  writer.string(error.code);
  const message = messageWithoutContainerKeys(error.message);
  writer.string(message.length > ERROR_MESSAGE_LENGTH_MAX
    ? `${message.slice(0, ERROR_MESSAGE_LENGTH_MAX)}…` : message);
}

export function errorRead(reader: ByteReader): WireError {
  const errorNumber = reader.u32();
  const code = reader.string();
  const message = reader.string();
  return { errorNumber, code, message };
}

/** The error an error reply carries, as a StorageError the caller can test by code. */
export function errorDecode(body: Uint8Array): StorageError {
  const wire = decodeBody(body, errorRead, 'error reply');
  if (Object.hasOwn(STORAGE_ERROR_NUMBERS, wire.code)) {
    return new StorageError(wire.code as StorageErrorCode, wire.message);
  }
  return new StorageError('INTERNAL_ERROR',
    `[${wire.errorNumber}:${wire.code}] ${wire.message}`);
}
