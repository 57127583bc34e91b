// The connection log's bound on a virtual clock: at most linesPerWindowMax lines a window, one
// summary a window for the rest, every event a line or counted; and what its lines say.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { EventLogFields } from '../../../lib/io/event-log.ts';
import {
  ConnectionLog, type ConnectionEventLog, type WindowTimers,
} from '../../../lib/node/connection-log.ts';

interface Line {
  message: string;
  atMs: number;
  fields: EventLogFields;
}

/** A virtual clock and timers, and the lines written, with their time. */
function harness(linesPerWindowMax: number, windowMs: number) {
  let nowMs = 0;
  const lines: Line[] = [];
  const timers = new Map<number, { atMs: number; run: () => void }>();
  let nextTimer = 1;
  const write = (message: string) => (fields: EventLogFields) =>
    lines.push({ message, atMs: nowMs, fields });
  const log: ConnectionEventLog = {
    connectionAccepted: write('connection accepted'),
    clientConnected: write('client connected'),
    clientDisconnected: write('client disconnected'),
    connectionLinesSuppressed: write('connection log lines suppressed'),
  };
  const windowTimers: WindowTimers = {
    set: (run, delayMs) => {
      timers.set(nextTimer, { atMs: nowMs + delayMs, run });
      return nextTimer++;
    },
    clear: (handle) => timers.delete(handle as number),
  };
  const connectionLog = new ConnectionLog({
    log, clock: { nowMs: () => nowMs, monotonicMs: () => nowMs }, timers: windowTimers,
    linesPerWindowMax, windowMs,
  });
  /** Moves the clock on, running the timers that come due on the way. */
  const advance = (ms: number) => {
    const endMs = nowMs + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.atMs <= endMs)
        .sort((a, b) => a[1].atMs - b[1].atMs)[0];
      if (due === undefined) break;
      timers.delete(due[0]);
      nowMs = due[1].atMs;
      due[1].run();
    }
    nowMs = endMs;
  };
  return { connectionLog, lines, advance, timerCount: () => timers.size };
}

describe('connection log', () => {
  it('says who connected, with applicationName, and how long it stayed', () => {
    const { connectionLog, lines, advance } = harness(20, 1000);
    connectionLog.event({ kind: 'accepted', connectionId: 7, remoteAddress: '10.0.0.5:40000' });
    connectionLog.event({ kind: 'connected', connectionId: 7, remoteAddress: '10.0.0.5:40000',
      user: 'admin', applicationName: 'meter-gateway' });
    advance(1500);
    connectionLog.event({ kind: 'closed', connectionId: 7, remoteAddress: '10.0.0.5:40000',
      reason: 'the client closed the connection' });
    assert.deepEqual(lines.map((l) => [l.message, l.fields]), [
      ['connection accepted', { address: '10.0.0.5:40000', connectionId: 7 }],
      ['client connected', { address: '10.0.0.5:40000', user: 'admin',
        applicationName: 'meter-gateway', connectionId: 7 }],
      ['client disconnected', { address: '10.0.0.5:40000',
        reason: 'the client closed the connection', durationMs: 1500, user: 'admin',
        applicationName: 'meter-gateway', connectionId: 7 }],
    ]);
  });

  it('writes at most the bound a window and one summary of the rest; loses no count', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 10, max: 1000 }),
      fc.array(fc.record({
        kind: fc.constantFrom('accepted', 'connected', 'closed'),
        gapMs: fc.integer({ min: 0, max: 400 }),
      }, { noNullPrototype: true }), { maxLength: 200 }),
      (linesPerWindowMax, windowMs, events) => {
        const { connectionLog, lines, advance, timerCount } = harness(linesPerWindowMax, windowMs);
        const counts = { accepted: 0, connected: 0, closed: 0 };
        for (const [i, { kind, gapMs }] of events.entries()) {
          advance(gapMs);
          counts[kind]++;
          connectionLog.event(kind === 'connected'
            ? { kind, connectionId: i, remoteAddress: 'a:1', user: 'u', applicationName: 'x' }
            : kind === 'accepted' ? { kind, connectionId: i, remoteAddress: 'a:1' }
              : { kind, connectionId: i, remoteAddress: 'a:1', reason: 'r' });
        }
        advance(windowMs);
        assert.equal(timerCount(), 0);
        const summaries = lines.filter((l) => l.message === 'connection log lines suppressed');
        const written = lines.filter((l) => l.message !== 'connection log lines suppressed');
        const total = (message: string, field: string) =>
          written.filter((l) => l.message === message).length +
          summaries.reduce((sum, l) => sum + Number(l.fields[field]), 0);
        assert.equal(total('connection accepted', 'acceptedCount'), counts.accepted);
        assert.equal(total('client connected', 'connectedCount'), counts.connected);
        assert.equal(total('client disconnected', 'disconnectedCount'), counts.closed);
        // A window begins with the first event after the last one ended, and that event is
        // always written (the count starts again): so the windows can be told from the lines.
        let windowStartMs = -Infinity;
        let windowLineCount = 0;
        for (const line of written) {
          if (line.atMs - windowStartMs >= windowMs) {
            windowStartMs = line.atMs;
            windowLineCount = 0;
          }
          windowLineCount++;
          assert.ok(windowLineCount <= linesPerWindowMax);
        }
        for (const [i, summary] of summaries.entries()) {
          assert.ok(Number(summary.fields['suppressedCount']) > 0);
          if (i > 0) assert.ok(summary.atMs - summaries[i - 1]!.atMs >= windowMs);
        }
      }));
  });

  it('turns 3000 events at once into the bound of lines and one summary', () => {
    const { connectionLog, lines, advance } = harness(20, 1000);
    for (let id = 0; id < 1000; id++) {
      connectionLog.event({ kind: 'accepted', connectionId: id, remoteAddress: 'a:1' });
      connectionLog.event({ kind: 'connected', connectionId: id, remoteAddress: 'a:1',
        user: 'u', applicationName: 'storm' });
      connectionLog.event({ kind: 'closed', connectionId: id, remoteAddress: 'a:1', reason: 'r' });
    }
    assert.equal(lines.length, 20);
    advance(1000);
    assert.equal(lines.length, 21);
    assert.deepEqual(lines[20]!.fields, {
      suppressedCount: 2980, windowMs: 1000, linesPerWindowMax: 20,
      acceptedCount: 993, connectedCount: 993, disconnectedCount: 994,
    });
    connectionLog.close();
    connectionLog.event({ kind: 'accepted', connectionId: 5000, remoteAddress: 'a:1' });
    assert.equal(lines.length, 21);
  });
});
