// Periodic sync for logWriteMode n >= 1: commits are acknowledged at append, and the log is made
// durable every n seconds, so a crash loses at most the last n seconds of acknowledged commits.
// A sync never overlaps the one before it: ticks that come while a sync runs are dropped
// (exhaustMap), so a slow disk means fewer syncs, not a growing queue of them. A failed sync is
// reported and the timer goes on; the writer it broke keeps failing, and each tick reports that.

import { catchError, defer, EMPTY, exhaustMap, interval, type ObservableInput, type SchedulerLike,
  type Subscription } from 'rxjs';
import { assert } from '../lib/base/assert.ts';

/** What the timer drives: GroupCommit fits. */
export interface PeriodicSyncTarget {
  syncAll(): ObservableInput<void>;
}

/** logWriteMode → sync period: undefined for 0 and -1 (sync per commit), n seconds otherwise. */
export function logWriteModeSyncPeriodMs(logWriteMode: number): number | undefined {
  assert(Number.isInteger(logWriteMode));
  return logWriteMode >= 1 ? logWriteMode * 1000 : undefined;
}

/**
 * Calls target.syncAll() every periodMs on `scheduler`, never two at once; `onError` receives each
 * failure. Unsubscribe to stop (a sync under way finishes on its own; its result is ignored).
 */
export function startPeriodicSync(
  target: PeriodicSyncTarget,
  periodMs: number,
  scheduler: SchedulerLike,
  onError: (error: unknown) => void,
): Subscription {
  assert(Number.isInteger(periodMs));
  assert(periodMs >= 1);
  return interval(periodMs, scheduler)
    .pipe(
      exhaustMap(() =>
        defer(() => target.syncAll()).pipe(
          catchError((error: unknown) => {
            onError(error);
            return EMPTY;
          }),
        ),
      ),
    )
    .subscribe();
}
