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
import { GriddbFrameError, griddbStringRead } from './griddb-frame.ts';

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

/** The later types, their value sizes (client.h OptionalRequest; DB_NAME is a string). */
const OPTION_VALUE_BYTES = new Map([[0, 1], [1, 4], [2, 1], [3, 1], [4, 1], [6, 4], [7, 4],
  [10001, 4], [10002, 8], [10003, 8], [11001, 8 + 16], [11002, 4], [11004, 4]]);
const OPTION_DB_NAME = 5;
const OPTION_ACCEPTABLE_FEATURE_VERSION = 11005;
/** Types above this come in ranges: | rangeType i16 (a multiple of 1000) | size i32 | entries |. */
const OPTION_RANGE_BYTES = 1000;
const OPTION_RANGE_START = 11 * OPTION_RANGE_BYTES;
/** GridDB's server takes an absent ACCEPTABLE_FEATURE_VERSION as 0 (before 4.3). */
const FEATURE_VERSION_ABSENT = 0;

/**
 * Reads the block and gives its ACCEPTABLE_FEATURE_VERSION (11005: what the client can read of
 * a reply; the C client 5.8 sends 5), 0 when absent. An entry of a type not known here ends the
 * walk (its size is unknown) and counts as absent.
 */
export function griddbOptionalRequestFeatureVersion(reader: ByteReader): number {
  const sizeBytes = reader.i32();
  if (sizeBytes < 0 || sizeBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`optional request size ${sizeBytes} is outside ` +
      `0..${reader.remainingBytes} bytes`);
  }
  const entries = new ByteReader(reader.bytes(sizeBytes));
  while (entries.remainingBytes > 0) {
    const type = entries.i16();
    if (type >= OPTION_RANGE_START && type % OPTION_RANGE_BYTES === 0) {
      entries.i32(); // the range's size: its entries are read on in the same walk
    } else if (type === OPTION_ACCEPTABLE_FEATURE_VERSION) {
      return entries.i32();
    } else if (type === OPTION_DB_NAME) {
      griddbStringRead(entries, 'database name option');
    } else {
      const valueBytes = OPTION_VALUE_BYTES.get(type);
      if (valueBytes === undefined) break;
      entries.bytes(valueBytes);
    }
  }
  return FEATURE_VERSION_ABSENT;
}
