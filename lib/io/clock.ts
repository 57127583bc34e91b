// Time is injected: the engine asks a Clock, never Date.now(), so tests can run it in virtual time.
// The engine's scheduler of background work is in background-scheduler.ts, so that a client (and
// every command that only connects) does not load rxjs.

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
