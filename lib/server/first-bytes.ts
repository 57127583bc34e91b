// Which protocol a new connection on the transaction port speaks, from its first four bytes:
// GridDB's check code 0x03E02478 (78 24 e0 03) is GridDB's NoSQL protocol (lib/server/griddb/),
// anything else is store's own (lib/protocol/frame.ts). Store's frames begin with their length,
// and a first frame (HELLO) is at most PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX (64 KiB) long, far
// under 0x03E02478 (65 MB), so the two never meet. The bytes read are put back (unshift) for the
// connection that takes the socket over. A peer that sends fewer than four bytes within the
// handshake time, or closes, is cut or let go like any connection that never authenticates.

import type { Socket } from 'node:net';
import { Buffer } from 'node:buffer';
import { isGriddbCheckCode } from './griddb/griddb-frame.ts';

const FIRST_BYTES = 4;

export class FirstBytesWait {
  private chunks: Buffer[] = [];
  private receivedBytes = 0;
  private readonly timer: ReturnType<typeof setTimeout>;
  private decided = false;
  private readonly onData = (chunk: Buffer): void => this.received(chunk);
  private readonly onClose = (): void => this.finish('closed');

  /**
   * `decide` gets the protocol, or 'closed' when the peer closed first, or 'timeout' when the
   * socket was cut for sending too little within `timeoutMs`.
   */
  constructor(
    private readonly socket: Socket,
    timeoutMs: number,
    private readonly decide: (protocol: 'griddb' | 'store' | 'closed' | 'timeout') => void,
  ) {
    socket.on('data', this.onData);
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', this.onClose);
    this.timer = setTimeout(() => {
      socket.destroy();
      this.finish('timeout');
    }, timeoutMs);
    this.timer.unref();
  }

  destroy(_reason: string): void {
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.receivedBytes += chunk.byteLength;
    if (this.receivedBytes < FIRST_BYTES) return;
    const bytes = Buffer.concat(this.chunks);
    this.socket.pause();
    this.socket.off('data', this.onData);
    this.socket.unshift(bytes);
    this.finish(isGriddbCheckCode(bytes) ? 'griddb' : 'store');
  }

  private finish(protocol: 'griddb' | 'store' | 'closed' | 'timeout'): void {
    if (this.decided) return;
    this.decided = true;
    clearTimeout(this.timer);
    this.socket.off('close', this.onClose);
    this.decide(protocol);
  }
}
