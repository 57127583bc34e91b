// The executor's share of its engine thread. A statement runs in the thread that commits, so its
// operators count the work they do in units (SQL_WORK_SLICE_UNIT_COUNT's) and, once a slice is
// spent, wait one event-loop turn and check the statement's deadline and cancellation. Counting is
// apart from waiting: an operator's synchronous inner loop only counts (spend), and the next point
// that may await (a batch passing runPlan, or a loop of its own that can run long without giving
// a batch: a sort's merges, a window's frames, GROUP BY RANGE's fill) waits (pause). Without this
// a page whose rows come from much work (a cross join a filter empties) ran to its end before a
// cancel, a timeout or a commit could run.

import { assert } from '../../base/assert.ts';
import { SQL_WORK_SLICE_UNIT_COUNT } from '../../base/limits.ts';

export class SqlWorkSlice {
  private spentUnits = 0;
  private pauseCount = 0;

  /** `yieldTurn` waits one event-loop turn; `check` throws once the statement must end. */
  constructor(private readonly yieldTurn: () => Promise<void>, private readonly check: () => void) {}

  /** Counts work done; true once the slice is spent, when the caller should `await pause()`. */
  spend(units: number): boolean {
    assert(units >= 0);
    this.spentUnits += units;
    return this.spentUnits >= SQL_WORK_SLICE_UNIT_COUNT;
  }

  /** Ends the slice: one event-loop turn, then the deadline and cancellation are checked. */
  async pause(): Promise<void> {
    this.spentUnits = 0;
    this.pauseCount++;
    await this.yieldTurn();
    this.check();
  }

  /** Turns waited so far (EXPLAIN ANALYZE and tests). */
  get pauses(): number {
    return this.pauseCount;
  }
}
