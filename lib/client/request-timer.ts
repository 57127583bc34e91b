// The request timeouts of one connection, on one timer. Every request of a connection has the same
// timeout, so deadlines fall in the order requests are sent, which is the order of the
// connection's map of waiting requests (a Map iterates in insertion order). The timer is armed for
// the oldest waiting request's deadline only; an answered request leaves the map without touching
// the timer. When the timer fires it expires, oldest first, every request whose deadline has
// passed and re-arms for the oldest one left, so a request still times out exactly its timeout
// after it was sent (to the timer's millisecond).
//
// Per request this is a clock read, where a timer of its own was a setTimeout and a clearTimeout
// (an object, a timer-list insertion and removal). A timer that fires with nothing waiting is not
// re-armed: an idle connection has none.

import { assert } from '../base/assert.ts';
import { systemClock, type Clock } from '../io/clock.ts';

/** What the timer needs of a waiting request. */
export interface TimedRequest {
  /** On the clock's monotonic scale. */
  readonly deadlineMs: number;
}

export class RequestTimer<Request extends TimedRequest> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer is armed for. */
  private armedDeadlineMs = 0;

  /**
   * `requests` is the connection's map of waiting requests, oldest first; `expire` is called for
   * each one whose deadline passed, after it has been removed from the map.
   */
  constructor(
    private readonly requests: Map<number, Request>,
    readonly timeoutMs: number,
    private readonly expire: (requestId: number, request: Request) => void,
    private readonly clock: Clock = systemClock,
  ) {
    assert(Number.isFinite(timeoutMs));
    assert(timeoutMs >= 0);
  }

  /** The deadline of a request sent now. */
  deadlineMs(): number {
    return this.clock.monotonicMs() + this.timeoutMs;
  }

  /** Call once a request is in the map (as its newest entry). */
  started(request: Request): void {
    if (this.timer === undefined) this.arm(request.deadlineMs);
    else assert(request.deadlineMs >= this.armedDeadlineMs);
  }

  /** Stops the timer (the connection is gone; its requests are failed by the caller). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    const nowMs = this.clock.monotonicMs();
    for (const [requestId, request] of this.requests) {
      if (request.deadlineMs > nowMs) {
        this.arm(request.deadlineMs);
        return;
      }
      this.requests.delete(requestId);
      this.expire(requestId, request);
    }
  }

  private arm(deadlineMs: number): void {
    assert(this.timer === undefined);
    this.armedDeadlineMs = deadlineMs;
    // Timers count whole milliseconds from the event loop's cached time, which may lag the clock:
    // one that fires a little early finds the deadline not reached, and arms again.
    const delayMs = Math.max(1, Math.ceil(deadlineMs - this.clock.monotonicMs()));
    this.timer = setTimeout(() => this.fire(), delayMs);
  }
}
