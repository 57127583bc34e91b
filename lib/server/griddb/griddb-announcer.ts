// GridDB's multicast announcement, by which a GridDB client given `notificationAddress` /
// `notificationPort` (and no member list) finds the cluster's master: in MULTICAST notification
// mode (gs_cluster.json /cluster/notificationAddress), the node sends it to the transaction
// service's group (/transaction/notificationAddress, 239.0.0.1 by default, and
// /transaction/notificationPort, 31999) at start and every /transaction/notificationInterval (5 s).
// The client (client.cpp NodeResolver::updateMasterInfo) joins the group, takes the first datagram
// of exactly 37 bytes, skips its 20-byte head and reads (little-endian, as frames):
//
//   | checkCode i32 | address 4 | port i32 | headerType i32 | bodyLength i32 = 17 |   the head
//   0               4           8          12               16                    20
//   | statementType i32 = 5000 | master IPv4, network order | master port i32 |
//   20                         24                           28
//   | partitionCount i32 | hashMode i8 = 0 (CRC32) |
//   32                   36                        37
//
// then connects to the master at that address (GET_PARTITION_ADDRESS and on, as with a member
// list). This node is the master of its one-node cluster; the address it announces is that of its
// transaction listener, or 127.0.0.1 when that listens on every address (0.0.0.0), where a
// client on this host reaches it. The datagrams leave by the listener's interface when it is a
// single IPv4 address, else as the routing table says, with a TTL of 1 (GridDB's default: the
// local network only). A send that fails (no multicast route) is reported once, not retried
// faster, and never stops the node.

import { Buffer } from 'node:buffer';
import { createSocket, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import { assert } from '../../base/assert.ts';
import { GRIDDB_CHECK_CODE, GRIDDB_HEAD_BYTES } from './griddb-frame.ts';

export const GRIDDB_ANNOUNCEMENT_BYTES = 37;
/** NodeResolver::NOTIFICATION_STATEMENT_TYPE (the server's RECV_NOTIFY_MASTER). */
const NOTIFY_MASTER_STATEMENT_TYPE = 5000;
const HEADER_TYPE_SERVER = 0;
const HASH_MODE_CRC32 = 0;
const MULTICAST_TTL = 1;
const ANY_ADDRESS = '0.0.0.0';
const LOOPBACK_ADDRESS = '127.0.0.1';

export interface GriddbAnnouncerOptions {
  group: { address: string; port: number; intervalMs: number };
  /** The transaction listener's address and port. */
  master: { host: string; port: number };
  partitionNum: number;
  /** A send failed (once per failing spell: after a success it may be reported again). */
  onSendFailed(error: Error): void;
}

/** The address a client is told to connect to: see the top of this file. */
export function griddbAnnouncedHost(listenHost: string): string {
  return isIPv4(listenHost) && listenHost !== ANY_ADDRESS ? listenHost : LOOPBACK_ADDRESS;
}

/** The 37 bytes drawn at the top of this file. */
export function griddbAnnouncement(master: { host: string; port: number },
  partitionNum: number): Uint8Array {
  assert(isIPv4(master.host));
  assert(partitionNum > 0);
  const bytes = Buffer.alloc(GRIDDB_ANNOUNCEMENT_BYTES);
  const octets = master.host.split('.').map(Number);
  bytes.writeInt32LE(GRIDDB_CHECK_CODE, 0);
  for (let i = 0; i < 4; i++) bytes[4 + i] = octets[i]!;
  bytes.writeInt32LE(master.port, 8);
  bytes.writeInt32LE(HEADER_TYPE_SERVER, 12);
  bytes.writeInt32LE(GRIDDB_ANNOUNCEMENT_BYTES - GRIDDB_HEAD_BYTES, 16);
  bytes.writeInt32LE(NOTIFY_MASTER_STATEMENT_TYPE, 20);
  for (let i = 0; i < 4; i++) bytes[24 + i] = octets[i]!;
  bytes.writeInt32LE(master.port, 28);
  bytes.writeInt32LE(partitionNum, 32);
  bytes.writeInt8(HASH_MODE_CRC32, 36);
  return bytes;
}

export class GriddbAnnouncer {
  private timer: ReturnType<typeof setInterval> | undefined;
  private failing = false;

  private constructor(
    private readonly socket: Socket,
    private readonly options: GriddbAnnouncerOptions,
    private readonly packet: Uint8Array,
  ) {}

  static async start(options: GriddbAnnouncerOptions): Promise<GriddbAnnouncer> {
    const host = griddbAnnouncedHost(options.master.host);
    const socket = createSocket({ type: 'udp4' });
    socket.on('error', (error) => options.onSendFailed(error));
    await new Promise<void>((resolve) => socket.bind(0, () => resolve()));
    socket.setMulticastTTL(MULTICAST_TTL);
    socket.setMulticastLoopback(true);
    if (isIPv4(options.master.host) && options.master.host !== ANY_ADDRESS) {
      try {
        socket.setMulticastInterface(options.master.host);
      } catch (error) {
        // The routing table then chooses; the node serves on either way.
        options.onSendFailed(error as Error);
      }
    }
    const announcer = new GriddbAnnouncer(socket, options,
      griddbAnnouncement({ host, port: options.master.port }, options.partitionNum));
    announcer.send();
    announcer.timer = setInterval(() => announcer.send(), options.group.intervalMs);
    announcer.timer.unref();
    return announcer;
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private send(): void {
    const { address, port } = this.options.group;
    this.socket.send(this.packet, port, address, (error) => {
      if (error === null || error === undefined) {
        this.failing = false;
        return;
      }
      if (!this.failing) this.options.onSendFailed(error);
      this.failing = true;
    });
  }
}
