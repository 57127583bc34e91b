// The engine's rxjs scheduler of background work on real timers, apart from clock.ts: a client
// imports the clock, and rxjs took a tenth of a second of every command's start (gs_export,
// gs_import) to load.

import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

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
