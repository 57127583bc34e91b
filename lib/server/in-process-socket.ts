// Two connected in-process sockets: what one writes, the other reads, with no kernel socket
// between them. The node's own web API (lib/node/node-webapi.ts) reaches the node's transaction
// server through a pair, so a request crosses no loopback hop and wakes no other process, while
// both ends run the very code of a TCP connection: the client's ClientConnection and the
// server's ServerConnection (handshake, authentication, access checks, limits, error replies).
//
// A pair is a pair of Duplex streams that look like net.Socket to those two classes (setNoDelay,
// the addresses, writableLength). Each write is copied once into the peer's read queue, because
// both writers reuse their memory once a write returns (client-connection.ts keeps one request
// writer). Backpressure is the kernel's, modelled: a write is done only when the peer's read
// queue is under its high-water mark, so writableLength grows while the peer is paused, and the
// server's reply bounds (reply-buffers.ts) see an in-process client as they see a slow TCP one.
// Closing either end closes both (allowHalfOpen false, as net's default).

import { Buffer } from 'node:buffer';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { assert } from '../base/assert.ts';

/** The address an in-process connection reports, for the node's log and its per-address limits. */
export const IN_PROCESS_ADDRESS = 'in-process';
/** What a peer's read queue holds before the writer waits (net's own default high-water mark). */
const IN_PROCESS_QUEUE_BYTES_MAX = 64 * 1024;

class InProcessSocket extends Duplex {
  readonly remoteAddress = IN_PROCESS_ADDRESS;
  readonly remotePort = 0;
  readonly localAddress = IN_PROCESS_ADDRESS;
  readonly localPort = 0;
  peer: InProcessSocket | undefined;
  /** The write waiting for the peer's read queue to drain. */
  private writeDone: ((error?: Error | null) => void) | undefined;

  constructor() {
    super({ allowHalfOpen: false, readableHighWaterMark: IN_PROCESS_QUEUE_BYTES_MAX,
      writableHighWaterMark: IN_PROCESS_QUEUE_BYTES_MAX });
  }

  setNoDelay(): this {
    return this;
  }

  override _read(): void {
    // The peer's write that filled this queue is done once this end reads again.
    const done = this.peer?.writeDone;
    if (done === undefined) return;
    this.peer!.writeDone = undefined;
    done();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void):
    void {
    const peer = this.peer!;
    assert(this.writeDone === undefined);
    if (peer.destroyed) {
      done();
      return;
    }
    if (peer.push(Buffer.from(chunk))) done();
    else this.writeDone = done;
  }

  override _final(done: (error?: Error | null) => void): void {
    if (this.peer?.destroyed === false) this.peer.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const { peer } = this;
    const writeDone = this.writeDone;
    this.writeDone = undefined;
    writeDone?.();
    // The peer sees a close, as a TCP peer sees a reset or a FIN: without an error of its own.
    if (peer !== undefined && !peer.destroyed) process.nextTick(() => peer.destroy());
    done(error);
  }
}

/**
 * A connected pair; `client` emits 'connect' on the next tick, as a TCP socket does once the
 * server has taken the connection.
 */
export function inProcessSocketPair(): { client: Socket; server: Socket } {
  const client = new InProcessSocket();
  const server = new InProcessSocket();
  client.peer = server;
  server.peer = client;
  process.nextTick(() => {
    if (!client.destroyed) client.emit('connect');
  });
  return { client: client as unknown as Socket, server: server as unknown as Socket };
}
