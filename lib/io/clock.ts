// Time is injected: the engine asks a Clock, never Date.now(), so tests can run it in virtual time.

import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  nowMs(): number;
  /** Monotonic milliseconds for measuring durations. */
  monotonicMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/** The system clock's wall time moved `offsetMs` ahead (a testing aid: expiry on a real node). */
export function offsetClock(offsetMs: number): Clock {
  return { nowMs: () => Date.now() + offsetMs, monotonicMs: () => performance.now() };
}

/**
 * An rxjs scheduler on real timers that do not keep the process alive: for periodic background work
 * (xlog sync, checkpoints), so a program that forgets to close a store can still exit. Lock and
 * transaction timeouts keep using a normal scheduler: a caller waits on those.
 */
export const backgroundScheduler: SchedulerLike = {
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T) {
    return new BackgroundAction(work).schedule(state, delay);
  },
};

class BackgroundAction<T> extends Subscription implements SchedulerAction<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly work: (this: SchedulerAction<T>, state?: T) => void) {
    super(() => clearTimeout(this.timer));
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.work.call(this, state);
    }, delay);
    this.timer.unref();
    return this;
  }
}
