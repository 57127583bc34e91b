// GridDB's multicast announcement as the C client reads it (client.cpp
// NodeResolver::updateMasterInfo): 37 bytes, statement type 5000 after the 20-byte head, the
// master's IPv4 in network order and port, the partition count, hash mode CRC32; and the address
// announced for a listener on every address.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import {
  GRIDDB_ANNOUNCEMENT_BYTES, griddbAnnouncedHost, griddbAnnouncement,
} from '../../../../lib/server/griddb/griddb-announcer.ts';

describe('GridDB multicast announcement', () => {
  it('is the 37 bytes the C client reads', () => {
    const bytes = Buffer.from(griddbAnnouncement({ host: '10.1.2.3', port: 10001 }, 128));
    assert.equal(bytes.byteLength, GRIDDB_ANNOUNCEMENT_BYTES);
    assert.equal(bytes.readInt32LE(0), 0x03e02478);
    assert.equal(bytes.readInt32LE(16), 17);
    assert.equal(bytes.readInt32LE(20), 5000);
    assert.deepEqual([...bytes.subarray(24, 28)], [10, 1, 2, 3]);
    assert.equal(bytes.readInt32LE(28), 10001);
    assert.equal(bytes.readInt32LE(32), 128);
    assert.equal(bytes.readInt8(36), 0);
  });

  it('announces 127.0.0.1 for a listener on every address', () => {
    assert.equal(griddbAnnouncedHost('0.0.0.0'), '127.0.0.1');
    assert.equal(griddbAnnouncedHost('::'), '127.0.0.1');
    assert.equal(griddbAnnouncedHost('192.168.1.5'), '192.168.1.5');
  });
});
