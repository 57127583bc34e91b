// The shared request timer of a connection (lib/client/request-timer.ts), in mocked time: each
// request expires exactly its timeout after it was sent, oldest first, answered requests never
// expire, the timer is armed again for the oldest one left, a timer that fires early (the event
// loop's clock lagging) waits on, and stop() ends it.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import fc from 'fast-check';
import type { Clock } from '../../../lib/io/clock.ts';
import { RequestTimer } from '../../../lib/client/request-timer.ts';

interface Waiting {
  deadlineMs: number;
  sentMs: number;
}

/** A connection's waiting requests and a timer over them, on a clock the test moves. */
class Fixture {
  nowMs = 0;
  /** How far the clock runs behind the timers (a timer firing "early"). */
  lagMs = 0;
  readonly waiting = new Map<number, Waiting>();
  readonly expired: Array<{ requestId: number; atMs: number; sentMs: number }> = [];
  private nextRequestId = 1;
  readonly timer: RequestTimer<Waiting>;

  constructor(timeoutMs: number) {
    const clock: Clock = { nowMs: () => this.nowMs, monotonicMs: () => this.nowMs - this.lagMs };
    this.timer = new RequestTimer(this.waiting, timeoutMs, (requestId, request) => {
      assert.equal(this.waiting.has(requestId), false, 'removed before it is expired');
      this.expired.push({ requestId, atMs: this.nowMs, sentMs: request.sentMs });
    }, clock);
  }

  send(): number {
    const requestId = this.nextRequestId++;
    const request = { deadlineMs: this.timer.deadlineMs(), sentMs: this.nowMs };
    this.waiting.set(requestId, request);
    this.timer.started(request);
    return requestId;
  }

  answer(requestId: number): void {
    assert.ok(this.waiting.delete(requestId));
  }

  /** Moves time on by whole milliseconds, firing due timers at each. */
  advance(ms: number): void {
    for (let i = 0; i < ms; i++) {
      this.nowMs += 1;
      mock.timers.tick(1);
    }
  }
}

describe('request timer', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('expires a request exactly its timeout after it was sent', () => {
    const fixture = new Fixture(100);
    fixture.send();
    fixture.advance(99);
    assert.deepEqual(fixture.expired, []);
    fixture.advance(1);
    assert.deepEqual(fixture.expired, [{ requestId: 1, atMs: 100, sentMs: 0 }]);
    assert.equal(fixture.waiting.size, 0);
  });

  it('expires requests sent at different times each at its own deadline, skipping answered ones',
    () => {
      const fixture = new Fixture(100);
      fixture.send(); // 1 at 0
      fixture.advance(30);
      fixture.send(); // 2 at 30
      fixture.advance(30);
      fixture.send(); // 3 at 60
      fixture.advance(10);
      fixture.answer(1);
      fixture.advance(200);
      assert.deepEqual(fixture.expired, [
        { requestId: 2, atMs: 130, sentMs: 30 },
        { requestId: 3, atMs: 160, sentMs: 60 },
      ]);
    });

  it('is armed again by a request after it went idle', () => {
    const fixture = new Fixture(50);
    fixture.answer(fixture.send());
    fixture.advance(500); // fires once with nothing waiting, and is not armed again
    fixture.send(); // 2 at 500
    fixture.advance(49);
    assert.deepEqual(fixture.expired, []);
    fixture.advance(1);
    assert.deepEqual(fixture.expired, [{ requestId: 2, atMs: 550, sentMs: 500 }]);
  });

  it('waits on when it fires before the clock reaches the deadline', () => {
    const fixture = new Fixture(100);
    fixture.send(); // deadline 100 on the clock
    fixture.lagMs = 2; // the clock now reads 2 ms behind the timers
    fixture.advance(101);
    assert.deepEqual(fixture.expired, []);
    fixture.advance(1);
    assert.deepEqual(fixture.expired, [{ requestId: 1, atMs: 102, sentMs: 0 }]);
  });

  it('expires nothing after stop()', () => {
    const fixture = new Fixture(100);
    fixture.send();
    fixture.timer.stop();
    fixture.advance(300);
    assert.deepEqual(fixture.expired, []);
    assert.equal(fixture.waiting.size, 1);
  });

  it('expires every unanswered request at sent + timeout, whatever the schedule', () => {
    // Steps: wait some ms, then send, or answer the oldest / a middle waiting request.
    const step = fc.record({
      waitMs: fc.nat(40),
      action: fc.constantFrom('send', 'send', 'answer-oldest', 'answer-middle'),
    });
    fc.assert(fc.property(fc.integer({ min: 1, max: 60 }), fc.array(step, { maxLength: 40 }),
      (timeoutMs, steps) => {
        mock.timers.reset();
        mock.timers.enable({ apis: ['setTimeout'] });
        const fixture = new Fixture(timeoutMs);
        const answered = new Set<number>();
        const sent: Array<{ requestId: number; sentMs: number }> = [];
        for (const { waitMs, action } of steps) {
          fixture.advance(waitMs);
          const ids = [...fixture.waiting.keys()];
          if (action === 'send') {
            sent.push({ requestId: fixture.send(), sentMs: fixture.nowMs });
          } else if (ids.length > 0) {
            const requestId = ids[action === 'answer-oldest' ? 0 : Math.floor(ids.length / 2)]!;
            fixture.answer(requestId);
            answered.add(requestId);
          }
        }
        fixture.advance(timeoutMs + 1);
        const expected = sent.filter(({ requestId }) => !answered.has(requestId))
          .map(({ requestId, sentMs }) => ({ requestId, atMs: sentMs + timeoutMs, sentMs }));
        assert.deepEqual(fixture.expired, expected);
        assert.equal(fixture.waiting.size, 0);
      }), { numRuns: 200 });
  });
});
