// GridDB's optional request (the C client's NodeConnection::OptionalRequest), which opens the body
// of most statements after the statement id:
//
//   | size i32 | entries (size bytes) |
//
// Entries are | type i16 | value |, in the order of their types (the client's Formatter), the
// first ones LEGACY_VERSION_BLOCK 0 (i8), TRANSACTION_TIMEOUT 1 (i32), FOR_UPDATE 2 (i8),
// CONTAINER_LOCK_REQUIRED 3 (i8). The statements answered so far need only FOR_UPDATE (GET_ROW of
// gsGetRowForUpdate), so the block is read up to it and passed over whole; LOGIN reads its own
// entries (griddb-handshake.ts).

import { ByteReader } from '../../encoding/byte-reader.ts';
import { GriddbFrameError } from './griddb-frame.ts';

const OPTION_LEGACY_VERSION_BLOCK = 0;
const OPTION_TRANSACTION_TIMEOUT = 1;
const OPTION_FOR_UPDATE = 2;

export function griddbOptionalRequestSkip(reader: ByteReader): void {
  griddbOptionalRequestRead(reader);
}

/** Reads the block; `forUpdate` is its FOR_UPDATE entry (false when absent). */
export function griddbOptionalRequestRead(reader: ByteReader): { forUpdate: boolean } {
  const sizeBytes = reader.i32();
  if (sizeBytes < 0 || sizeBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`optional request size ${sizeBytes} is outside ` +
      `0..${reader.remainingBytes} bytes`);
  }
  const entries = new ByteReader(reader.bytes(sizeBytes));
  let forUpdate = false;
  while (entries.remainingBytes > 0) {
    const type = entries.i16();
    if (type === OPTION_LEGACY_VERSION_BLOCK) {
      entries.i8();
    } else if (type === OPTION_TRANSACTION_TIMEOUT) {
      entries.i32();
    } else if (type === OPTION_FOR_UPDATE) {
      forUpdate = entries.i8() !== 0;
    } else {
      break; // later types: none of them is read here
    }
  }
  return { forUpdate };
}
