// Issue 12, point 6: the bytes of bodies held whole across the web API (http/body-budget.ts),
// with timers in the test's hands; and the same budget in a web API server (queue full and wait
// over: 503 with Retry-After and the body unread; a client gone mid-body gives its share back),
// and `maxConnections`. The memory of a separate web API process under concurrent large bodies
// is measured in webapi-process.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BodyBudget, type Reservation, type Timers } from '../../../lib/webapi/http/body-budget.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';
import {
  ADMIN, basicAuthorization, rawHttpClient, startWebApiFixture, type RawHttpClient,
  type WebApiFixture,
} from './webapi-test-helpers.ts';

/** Timers that fire only when the test says so. */
class ManualTimers implements Timers {
  private readonly pending = new Map<number, () => void>();
  private nextId = 0;

  set(callback: () => void): unknown {
    const id = this.nextId++;
    this.pending.set(id, callback);
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get count(): number {
    return this.pending.size;
  }

  /** Fires every timer set so far, except those cleared by an earlier one meanwhile. */
  fireAll(): void {
    for (const id of [...this.pending.keys()]) {
      const callback = this.pending.get(id);
      this.pending.delete(id);
      callback?.();
    }
  }
}

function budgetOf(totalBytes: number, queueLengthMax: number) {
  const timers = new ManualTimers();
  const budget = new BodyBudget({ totalBytes, queueLengthMax, waitMsMax: 1000, retryAfterS: 2,
    timers });
  return { budget, timers };
}

/** Settles pending promise callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function refusal(promise: Promise<unknown>): Promise<WebApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof WebApiError, `expected a WebApiError, got ${String(error)}`);
  return error;
}

describe('body budget', () => {
  it('admits what fits at once, queues the rest in order, and admits them on release', async () => {
    const { budget } = budgetOf(100, 4);
    const a = await budget.reserve(60);
    const b = await budget.reserve(40);
    assert.equal(budget.heldBytes, 100);
    const admitted: string[] = [];
    const c = budget.reserve(50).then((r) => (admitted.push('c'), r));
    // d would fit after a's release alone, but never overtakes c.
    const d = budget.reserve(10).then((r) => (admitted.push('d'), r));
    await settle();
    assert.deepEqual(admitted, []);
    assert.equal(budget.waitingCount, 2);
    b.release();
    b.release();
    await settle();
    assert.deepEqual(admitted, []);
    a.shrinkTo(10);
    await settle();
    assert.deepEqual(admitted, ['c', 'd']);
    assert.equal(budget.heldBytes, 70);
    for (const r of [a, await c, await d]) r.release();
    assert.equal(budget.heldBytes, 0);
  });

  it('admits at once without waiting only what fits with nobody waiting', async () => {
    const { budget } = budgetOf(100, 4);
    const first = budget.tryReserve(60)!;
    assert.equal(budget.heldBytes, 60);
    assert.equal(budget.tryReserve(50), undefined, 'does not fit');
    const waiting = budget.reserve(50);
    assert.equal(budget.tryReserve(10), undefined, 'would overtake the one waiting');
    first.release();
    await waiting;
    assert.equal(budget.tryReserve(500), undefined, 'cut to the whole budget: not beside 50');
    assert.equal(budget.heldBytes, 50);
    assert.equal(budget.tryReserve(50)?.sizeBytes, 50);
  });

  it('answers 503 with Retry-After when the queue is full, and when the wait runs out',
    async () => {
      const { budget, timers } = budgetOf(100, 1);
      const held = await budget.reserve(100);
      const waiting = budget.reserve(1);
      const full = await refusal(budget.reserve(1));
      assert.equal(full.status, 503);
      assert.equal(full.retryAfterS, 2);
      assert.match(full.message, /1 requests are already waiting \(maxQueuedRequests\)/);
      assert.equal(timers.count, 1);
      timers.fireAll();
      const late = await refusal(waiting);
      assert.equal(late.status, 503);
      assert.match(late.message, /no room for the body within 1000 ms/);
      assert.equal(budget.waitingCount, 0);
      held.release();
      assert.equal(budget.heldBytes, 0);
    });

  it('drops a waiter whose client goes away, and admits those behind it', async () => {
    const { budget, timers } = budgetOf(100, 4);
    const held = await budget.reserve(80);
    const gone = new AbortController();
    const first = budget.reserve(50, gone.signal);
    const second = budget.reserve(20);
    await settle();
    assert.equal(budget.waitingCount, 2);
    gone.abort();
    assert.equal((await refusal(first)).status, 503);
    const admitted = await second;
    assert.equal(budget.heldBytes, 100);
    assert.equal(timers.count, 0);
    admitted.release();
    held.release();
    assert.equal(budget.heldBytes, 0);
  });

  it('cuts a reservation larger than the budget to the budget: it waits until alone', async () => {
    const { budget } = budgetOf(100, 4);
    const small = await budget.reserve(1);
    let big: Reservation | undefined;
    const pending = budget.reserve(500).then((r) => (big = r));
    await settle();
    assert.equal(big, undefined);
    small.release();
    await pending;
    assert.equal(budget.heldBytes, 100);
    big!.release();
    assert.equal(budget.heldBytes, 0);
  });

  it('never holds more than its total, and gives every byte back (random operations)',
    async () => {
      const operation = fc.oneof(
        fc.record({ kind: fc.constant('reserve' as const), sizeBytes: fc.integer({ min: 0,
          max: 150 }) }, { noNullPrototype: true }),
        fc.record({ kind: fc.constantFrom('release' as const, 'shrink' as const, 'abort' as const,
          'timeout' as const), index: fc.nat() }, { noNullPrototype: true }),
      );
      await fc.assert(fc.asyncProperty(fc.array(operation, { maxLength: 40 }), async (ops) => {
        const { budget, timers } = budgetOf(100, 3);
        const held: Reservation[] = [];
        const aborts: AbortController[] = [];
        for (const op of ops) {
          if (op.kind === 'reserve') {
            const gone = new AbortController();
            aborts.push(gone);
            budget.reserve(op.sizeBytes, gone.signal).then((r) => held.push(r), () => undefined);
          } else if (op.kind === 'abort') {
            aborts[op.index % Math.max(1, aborts.length)]?.abort();
          } else if (op.kind === 'timeout') {
            timers.fireAll();
          } else {
            const r = held[op.index % Math.max(1, held.length)];
            if (op.kind === 'release') r?.release();
            else r?.shrinkTo(Math.floor(r.sizeBytes / 2));
          }
          await settle();
          const sum = held.reduce((total, r) => total + r.sizeBytes, 0);
          assert.equal(budget.heldBytes, sum);
          assert.ok(budget.heldBytes <= 100);
          assert.ok(budget.waitingCount <= 3);
        }
        timers.fireAll();
        await settle();
        for (const r of held) r.release();
        assert.equal(budget.heldBytes, 0);
        assert.equal(budget.waitingCount, 0);
      }), { numRuns: 200 });
    });
});

const RAW_TIMEOUT_MS = 15_000;
const basicAdmin = basicAuthorization(ADMIN.user, ADMIN.password);


async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < RAW_TIMEOUT_MS / 10; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`not within ${RAW_TIMEOUT_MS} ms: ${what}`);
}

describe('body budget in the web API', { timeout: 120_000 }, () => {
  let fixture: WebApiFixture;
  const BODY_BYTES = 60_000;
  before(async () => {
    fixture = await startWebApiFixture({ requestJsonBodySizeBytesMax: 64 * 1024,
      totalRequestBodySizeBytesMax: 64 * 1024, queuedRequestCountMax: 1, requestBodyTimeoutS: 2 });
  });
  after(async () => {
    await fixture.stop();
  });
  const head = (sizeBytes: number) => `POST ${fixture.base}/tql HTTP/1.1\r\nHost: x\r\n` +
    `Authorization: ${basicAdmin}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${sizeBytes}\r\n\r\n`;

  it('answers 503 with Retry-After, unread, when the queue is full and when the wait runs out',
    async () => {
      const holder = rawHttpClient(fixture.http.port, `${head(BODY_BYTES)}[`);
      await until('the holder reserves', () => fixture.server.bodyBytesHeld === BODY_BYTES);
      const waiter = rawHttpClient(fixture.http.port, `${head(BODY_BYTES)}[`);
      await until('the waiter queues', () => fixture.server.requestsWaiting === 1);
      const full = await rawHttpClient(fixture.http.port, `${head(BODY_BYTES)}[`).closed;
      assert.match(full, /^HTTP\/1\.1 503 /);
      assert.match(full, /\r\nretry-after: 2\r\n/i);
      assert.match(full, /\r\nconnection: close\r\n/i);
      assert.match(full, /\{"version":"v2","errorCode":0,"errorMessage":"The web API is busy: 1 requests are already waiting \(maxQueuedRequests\); retry later \(maxTotalRequestBodySize 65536 bytes\)"\}$/);
      // The waiter's turn does not come within half of requestBodyTimeout (2 s).
      assert.match(await waiter.closed, /^HTTP\/1\.1 503 .*no room for the body within 1000 ms/s);
      assert.match(await holder.closed, /^HTTP\/1\.1 408 /);
      await until('the holder releases', () => fixture.server.bodyBytesHeld === 0);
    });

  it('takes back the share of a client that goes away mid-body, and of every answer',
    async () => {
      const leaving = rawHttpClient(fixture.http.port, `${head(BODY_BYTES)}[${' '.repeat(1000)}`);
      await until('the client reserves', () => fixture.server.bodyBytesHeld === BODY_BYTES);
      leaving.socket.destroy();
      await until('the share comes back', () => fixture.server.bodyBytesHeld === 0);
      const statement = JSON.stringify([{ name: 'absent', stmt: 'select *' }]);
      const body = statement + ' '.repeat(BODY_BYTES - statement.length);
      for (let i = 0; i < 3; i++) {
        const answer = await fixture.http.call('POST', `${fixture.base}/tql`, { body });
        assert.equal(answer.status, 404, answer.text);
      }
      assert.equal(fixture.server.bodyBytesHeld, 0);
    });
});

describe('maxConnections', { timeout: 60_000 }, () => {
  let fixture: WebApiFixture;
  before(async () => {
    fixture = await startWebApiFixture({ connectionCountMax: 2 });
  });
  after(async () => {
    await fixture.stop();
  });
  const check = (close: boolean) => `GET ${fixture.base}/checkConnection HTTP/1.1\r\nHost: x\r\n` +
    `Authorization: ${basicAdmin}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

  it('closes connections past the limit as they are accepted, with no answer', async () => {
    const open: RawHttpClient[] = [];
    for (let i = 0; i < 2; i++) {
      const client = rawHttpClient(fixture.http.port, check(false));
      open.push(client);
      let answered = false;
      client.socket.once('data', () => (answered = true));
      await until('kept-alive answer', () => answered);
    }
    assert.equal(await rawHttpClient(fixture.http.port, check(true)).closed, '');
    open[0]!.socket.destroy();
    await open[0]!.closed;
    // The server sees the close a moment later; then a new connection is served.
    let served = '';
    for (let attempt = 0; attempt < 100 && !served.startsWith('HTTP/1.1 200'); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      served = await rawHttpClient(fixture.http.port, check(true)).closed;
    }
    assert.match(served, /^HTTP\/1\.1 200 /);
    open[1]!.socket.destroy();
  });
});
