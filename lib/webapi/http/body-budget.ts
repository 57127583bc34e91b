// The bytes of request bodies the web API holds whole at once, across the process
// (`maxTotalRequestBodySize`). A request whose body is read whole (every JSON route but the
// streamed row PUTs, and the multipart uploads) reserves its size before a byte of it is read:
// Content-Length, or the route's limit for a chunked body, shrunk to the real size once the body
// has ended. A reservation that does not fit waits in a FIFO queue without its body being read;
// the queue has a length and a wait limit, and past either the request is answered 503 with
// `Retry-After`. A waiter at the head is never overtaken by a smaller one behind it, so a large
// body is not starved. A reservation larger than the whole budget is cut to the budget: it waits
// until it is alone.
//
// Invariants: 0 <= heldBytes <= totalBytes; a waiter is in the queue only while nothing ahead
// of it could be served; every reservation is released exactly once (release is idempotent).

import { assert } from '../../base/assert.ts';
import { WebApiError } from '../errors/webapi-error.ts';

export interface BodyBudgetOptions {
  totalBytes: number;
  queueLengthMax: number;
  waitMsMax: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfterS: number;
  /** Injected for tests; setTimeout / clearTimeout otherwise. */
  timers?: Timers;
}

export interface Timers {
  set(callback: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const TIMERS_DEFAULT: Timers = {
  set: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface Waiter {
  sizeBytes: number;
  admit(reservation: Reservation): void;
  refuse(error: Error): void;
  timer: unknown;
}

export class BodyBudget {
  private heldBytesNow = 0;
  private readonly queue: Waiter[] = [];
  private readonly timers: Timers;

  constructor(readonly options: BodyBudgetOptions) {
    assert(options.totalBytes > 0);
    assert(options.queueLengthMax >= 0);
    assert(options.waitMsMax > 0);
    this.timers = options.timers ?? TIMERS_DEFAULT;
  }

  get heldBytes(): number {
    return this.heldBytesNow;
  }

  get waitingCount(): number {
    return this.queue.length;
  }

  /** A reservation of `sizeBytes` (cut to the budget) when it fits now with none waiting. */
  tryReserve(sizeBytes: number): Reservation | undefined {
    assert(sizeBytes >= 0);
    const wantedBytes = Math.min(sizeBytes, this.options.totalBytes);
    return this.queue.length === 0 && this.fits(wantedBytes) ? this.take(wantedBytes) : undefined;
  }

  /**
   * A reservation of `sizeBytes` (cut to the budget), at once or after waiting in turn; a 503
   * when the queue is full or the wait runs out; `aborted`'s error when it fires first.
   */
  reserve(sizeBytes: number, aborted?: AbortSignal): Promise<Reservation> {
    const now = this.tryReserve(sizeBytes);
    if (now !== undefined) return Promise.resolve(now);
    const wantedBytes = Math.min(sizeBytes, this.options.totalBytes);
    if (this.queue.length >= this.options.queueLengthMax) {
      return Promise.reject(this.busy(`${this.queue.length} requests are already waiting ` +
        '(maxQueuedRequests)'));
    }
    return new Promise<Reservation>((resolve, reject) => {
      const onAbort = () => leave(new WebApiError(503, 'The client went away while waiting'));
      const leave = (error: Error) => {
        const index = this.queue.indexOf(waiter);
        assert(index >= 0);
        this.queue.splice(index, 1);
        this.timers.clear(waiter.timer);
        aborted?.removeEventListener('abort', onAbort);
        reject(error);
        // The head may have left: those behind it may fit now.
        this.admitWaiting();
      };
      const waiter: Waiter = {
        sizeBytes: wantedBytes,
        admit: (reservation) => {
          this.timers.clear(waiter.timer);
          aborted?.removeEventListener('abort', onAbort);
          resolve(reservation);
        },
        refuse: leave,
        timer: undefined,
      };
      waiter.timer = this.timers.set(() => waiter.refuse(this.busy(
        `no room for the body within ${this.options.waitMsMax} ms`)), this.options.waitMsMax);
      this.queue.push(waiter);
      if (aborted?.aborted === true) onAbort();
      else aborted?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private fits(sizeBytes: number): boolean {
    return this.heldBytesNow + sizeBytes <= this.options.totalBytes;
  }

  private take(sizeBytes: number): Reservation {
    this.heldBytesNow += sizeBytes;
    assert(this.heldBytesNow <= this.options.totalBytes);
    return new Reservation(sizeBytes, (freedBytes) => this.free(freedBytes));
  }

  private free(sizeBytes: number): void {
    assert(sizeBytes <= this.heldBytesNow);
    this.heldBytesNow -= sizeBytes;
    this.admitWaiting();
  }

  /** Admits waiters from the head while they fit (FIFO: the head is never overtaken). */
  private admitWaiting(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.sizeBytes)) {
      const waiter = this.queue.shift()!;
      waiter.admit(this.take(waiter.sizeBytes));
    }
  }

  private busy(reason: string): WebApiError {
    return new WebApiError(503, `The web API is busy: ${reason}; retry later ` +
      `(maxTotalRequestBodySize ${this.options.totalBytes} bytes)`, 0,
    { retryAfterS: this.options.retryAfterS });
  }
}

/** Bytes of the budget one request holds until `release`. */
export class Reservation {
  private released = false;

  constructor(
    private sizeBytesNow: number,
    private readonly free: (sizeBytes: number) => void,
  ) {}

  get sizeBytes(): number {
    return this.released ? 0 : this.sizeBytesNow;
  }

  /** The body has ended at `actualBytes`: what was reserved beyond it goes back. */
  shrinkTo(actualBytes: number): void {
    assert(actualBytes >= 0);
    if (this.released || actualBytes >= this.sizeBytesNow) return;
    const freedBytes = this.sizeBytesNow - actualBytes;
    this.sizeBytesNow = actualBytes;
    this.free(freedBytes);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.free(this.sizeBytesNow);
  }
}
