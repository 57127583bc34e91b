// The reply bytes the node holds for its clients, per connection and in total: the output-buffer
// limits of PostgreSQL and Redis (client-output-buffer-limit) for the transaction port.
//
// A connection's queued bytes are those written to its socket and not yet taken by the kernel
// (socket.writableLength) plus an estimate for each of its requests whose reply is still being
// produced (replyReserveBytes). Each ServerConnection reports its own; this adds them up.
//
//   queued < soft                       read and start requests (up to requestsInFlightMax)
//   queued > 0, and unsent > 0 or       a request that brings a page of rows (replyIsPage) waits,
//     queued + a page > query limit     and the socket is not read past it: by default two pages
//                                       at a time while the client keeps up, none more once it is
//                                       behind, so a client that stops reading holds two pages
//   soft <= queued                      stop reading the socket and starting requests until the
//                                       client reads
//   bytes unsent, none taken for the    close: the client does not read (slow readers are not
//     soft time                         closed, whatever they have queued)
//   a reply would take it past hard     close at once (a reply always fits an empty queue)
//   total >= totalLimit                 connections with anything queued start nothing
//   total >  totalLimit                 close the connections with the most queued, biggest first,
//                                       until the total is under the limit
//
// A connection closed for its replies is destroyed, not ended: what it had queued is dropped at
// once, and an `overflow` event names its address and bytes.

import { assert } from '../base/assert.ts';
import { FETCH_REPLY_BYTES_TARGET, PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { MessageType } from '../protocol/message-types.ts';

/** A connection as the reply buffers see it. */
export interface ReplyHolder {
  /** Its queued bytes as last reported. */
  readonly replyBytesAccounted: number;
  /** The total is over its limit and this holder has the most queued: it must close. */
  closeForTotal(totalBytes: number): void;
  /** The total went back under its limit: a holder that waited for room may start requests. */
  replyRoomFreed(): void;
}

/**
 * What a request's reply is counted as while it is produced. A page of rows stops growing at
 * FETCH_REPLY_BYTES_TARGET; a single row is usually small (a larger one is caught by the hard
 * limit once it arrives); the other replies are a few bytes.
 */
export function replyReserveBytes(messageType: number): number {
  switch (messageType) {
    case MessageType.QUERY:
    case MessageType.SQL_EXECUTE:
    case MessageType.FETCH:
    case MessageType.MULTI_GET:
      return FETCH_REPLY_BYTES_TARGET;
    case MessageType.ROW_GET:
    case MessageType.ROW_GET_FOR_UPDATE:
      return PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX;
    default:
      return 0;
  }
}

/**
 * Whether a request's reply is a page of rows (its estimate a whole page): such a request starts
 * only within the connection's query limit.
 */
export function replyIsPage(messageType: number): boolean {
  return replyReserveBytes(messageType) === FETCH_REPLY_BYTES_TARGET;
}

export class ReplyBuffers {
  private total = 0;
  private peak = 0;
  private readonly holders = new Set<ReplyHolder>();
  /** Holders that stopped for want of room in the total. */
  private readonly waiting = new Set<ReplyHolder>();
  private closedCount = 0;

  constructor(readonly totalLimitBytes: number) {}

  get totalBytes(): number {
    return this.total;
  }

  /** The most the total has been since the start (a test's and an operator's bound check). */
  get peakBytes(): number {
    return this.peak;
  }

  /** Connections closed for their replies, so far. */
  get overflowCloseCount(): number {
    return this.closedCount;
  }

  /** Whether the total leaves room for a holder that has `queuedBytes` to start a request. */
  hasRoom(queuedBytes: number): boolean {
    return queuedBytes === 0 || this.total < this.totalLimitBytes;
  }

  /** Called back by replyRoomFreed once the total is under its limit. */
  waitForRoom(holder: ReplyHolder): void {
    this.waiting.add(holder);
  }

  /** A holder's queued bytes changed by `deltaBytes` (it has already updated its own count). */
  changed(holder: ReplyHolder, deltaBytes: number): void {
    if (deltaBytes === 0) return;
    this.total += deltaBytes;
    assert(this.total >= 0);
    this.peak = Math.max(this.peak, this.total);
    if (holder.replyBytesAccounted > 0) this.holders.add(holder);
    else this.holders.delete(holder);
    if (deltaBytes > 0) {
      this.closeBiggestWhileOver();
    } else if (this.total < this.totalLimitBytes && this.waiting.size > 0) {
      const waiting = [...this.waiting];
      this.waiting.clear();
      // Not from inside the caller's write callback: each holder reads and starts on its own turn.
      queueMicrotask(() => {
        for (const waiter of waiting) waiter.replyRoomFreed();
      });
    }
  }

  /** A holder is gone: its bytes have been reported as 0 already. */
  removed(holder: ReplyHolder): void {
    assert(holder.replyBytesAccounted === 0);
    this.holders.delete(holder);
    this.waiting.delete(holder);
  }

  countClose(): void {
    this.closedCount++;
  }

  private closeBiggestWhileOver(): void {
    while (this.total > this.totalLimitBytes) {
      let biggest: ReplyHolder | undefined;
      for (const holder of this.holders) {
        if (biggest === undefined || holder.replyBytesAccounted > biggest.replyBytesAccounted) {
          biggest = holder;
        }
      }
      if (biggest === undefined) return;
      const before = this.total;
      biggest.closeForTotal(before);
      // Closing reports the holder's bytes as gone; a holder that could not give them up stops
      // the loop rather than spin.
      if (this.total >= before) return;
    }
  }
}
