// GET_PARTITION_ADDRESS (104) as a one-node cluster answers it: this node is the master and the
// owner of every partition, with no backups (the C client's NodeResolver reads it). Body after the
// statement id:
//
//   request: | optional request (size i32, entries) | masterResolvable i8 (present or not) |
//   reply, masterResolvable:  | partitionNum i32 | ownerCount i8 = 0 | backupCount i8 = 0 |
//                             | masterMatched i8 = 1 | hashMode i8 = 0 (CRC32) | master address |
//   reply, for one partition: | partitionNum i32 | ownerCount i8 = 1 | owner address |
//                             | backupCount i8 = 0 |
//   address (IPv4):           | 4 address bytes, network order | port i32 |
//
// Hash mode 0 (COMPATIBLE1, CRC-32) is the one GridDB announces: the client then computes a
// container's partition as lib/schema/partition-hash.ts does, and sends it with each statement.

import { isIPv4 } from 'node:net';
import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';

const HASH_MODE_CRC32 = 0;

export function partitionAddressDecode(body: Uint8Array): { masterResolvable: boolean } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const optionBytes = reader.i32();
    if (optionBytes < 0 || optionBytes > reader.remainingBytes) {
      throw new GriddbFrameError(`optional request size ${optionBytes} is outside ` +
        `0..${reader.remainingBytes} bytes`);
    }
    reader.bytes(optionBytes); // only a connection route, which a one-node cluster ignores
    const masterResolvable = reader.remainingBytes > 0 && reader.i8() !== 0;
    reader.expectEnd();
    return { masterResolvable };
  });
}

export function partitionAddressReplyWrite(writer: ByteWriter, answer: {
  partitionNum: number; masterResolvable: boolean; address: { host: string; port: number };
}): void {
  writer.i32(answer.partitionNum);
  if (answer.masterResolvable) {
    writer.i8(0);
    writer.i8(0);
    writer.i8(1);
    writer.i8(HASH_MODE_CRC32);
    addressWrite(writer, answer.address);
  } else {
    writer.i8(1);
    addressWrite(writer, answer.address);
    writer.i8(0);
  }
}

function addressWrite(writer: ByteWriter, address: { host: string; port: number }): void {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is its IPv4 address. A client in IPv4 mode
  // reached the node over IPv4, so anything else cannot occur but on a loopback it names.
  const host = address.host.startsWith('::ffff:') ? address.host.slice(7) : address.host;
  const parts = isIPv4(host) ? host.split('.').map(Number) : [127, 0, 0, 1];
  for (const part of parts) writer.u8(part);
  writer.i32(address.port);
}
