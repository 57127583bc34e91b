// GridDB's optional request (the C client's NodeConnection::OptionalRequest), which opens the body
// of most statements after the statement id:
//
//   | size i32 | entries (size bytes) |
//
// The container statements answered so far need none of its entries (timeouts, feature versions,
// the client id, the database name; LOGIN reads the database name itself: griddb-handshake.ts),
// so the block is checked for its size and passed over whole.

import type { ByteReader } from '../../encoding/byte-reader.ts';
import { GriddbFrameError } from './griddb-frame.ts';

export function griddbOptionalRequestSkip(reader: ByteReader): void {
  const sizeBytes = reader.i32();
  if (sizeBytes < 0 || sizeBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`optional request size ${sizeBytes} is outside ` +
      `0..${reader.remainingBytes} bytes`);
  }
  reader.bytes(sizeBytes);
}
