// The event log's lines about client connections (category `connection`, LEVEL_INFO, on by
// default): accepted (address and port), connected (authenticated: user and applicationName),
// disconnected (reason, duration, and who it was). A connection storm must not flood the log, so
// at most `linesPerWindowMax` lines are written per window of `windowMs`; the rest are counted,
// and once the window is over one summary line (`connection log lines suppressed`, WARNING) says
// how many of each were left out. Every event is either a line or counted in a summary.
//
// Windows begin with the first event after the previous one ended (monotonic clock); the summary
// is written by a timer at the end of the window, or by the next event if that comes first, or
// by close(), after which it writes nothing. Connections are remembered from accepted to closed
// (for the duration and the name on disconnect), CONNECTION_LOG_TRACKED_COUNT_MAX at most.

import { assert } from '../base/assert.ts';
import {
  CONNECTION_LOG_LINES_PER_WINDOW_MAX, CONNECTION_LOG_TRACKED_COUNT_MAX, CONNECTION_LOG_WINDOW_MS,
} from '../base/limits.ts';
import type { Clock } from '../io/clock.ts';
import type { EventLog } from '../io/event-log.ts';
import type { ServerEvent } from '../server/server-options.ts';

/** The event log's connection records (EventLog has them). */
export type ConnectionEventLog = Pick<EventLog,
  'connectionAccepted' | 'clientConnected' | 'clientDisconnected' | 'connectionLinesSuppressed'>;

/** Timers, injected so that a test can end a window when it wants. */
export interface WindowTimers {
  set(run: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: WindowTimers = {
  set: (run, delayMs) => setTimeout(run, delayMs).unref(),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ConnectionLogOptions {
  log: ConnectionEventLog;
  clock: Clock;
  timers?: WindowTimers;
  linesPerWindowMax?: number;
  windowMs?: number;
}

interface Tracked {
  address: string;
  acceptedMs: number;
  user?: string;
  applicationName?: string;
}

type Kind = 'accepted' | 'connected' | 'disconnected';

export class ConnectionLog {
  private readonly tracked = new Map<number, Tracked>();
  private readonly linesPerWindowMax: number;
  private readonly windowMs: number;
  private readonly timers: WindowTimers;
  private windowStartMs = -Infinity;
  private windowLineCount = 0;
  private readonly suppressed: Record<Kind, number> =
    { accepted: 0, connected: 0, disconnected: 0 };
  private timer: unknown;
  /** After close() nothing more is written: the event log may be closed too. */
  private isClosed = false;

  constructor(private readonly options: ConnectionLogOptions) {
    this.linesPerWindowMax = options.linesPerWindowMax ?? CONNECTION_LOG_LINES_PER_WINDOW_MAX;
    this.windowMs = options.windowMs ?? CONNECTION_LOG_WINDOW_MS;
    this.timers = options.timers ?? realTimers;
    assert(this.linesPerWindowMax >= 1);
    assert(this.windowMs >= 1);
  }

  /** The transaction server's events that concern connections; the others are not its. */
  event(event: ServerEvent): void {
    if (this.isClosed) return;
    switch (event.kind) {
      case 'accepted': return this.accepted(event.connectionId, event.remoteAddress);
      case 'connected': return this.connected(event);
      case 'closed': return this.closed(event.connectionId, event.remoteAddress, event.reason);
      default: return;
    }
  }

  /** Writes the summary of the window now, if anything was left out (the node stops). */
  close(): void {
    if (this.isClosed) return;
    this.summarize();
    this.isClosed = true;
    this.tracked.clear();
  }

  private accepted(connectionId: number, address: string): void {
    if (this.tracked.size < CONNECTION_LOG_TRACKED_COUNT_MAX) {
      this.tracked.set(connectionId, { address, acceptedMs: this.options.clock.monotonicMs() });
    }
    if (this.admit('accepted')) this.options.log.connectionAccepted({ address, connectionId });
  }

  private connected(event: Extract<ServerEvent, { kind: 'connected' }>): void {
    const entry = this.tracked.get(event.connectionId);
    if (entry !== undefined) {
      entry.user = event.user;
      entry.applicationName = event.applicationName;
    }
    if (!this.admit('connected')) return;
    this.options.log.clientConnected({
      address: event.remoteAddress, user: event.user, applicationName: event.applicationName,
      connectionId: event.connectionId,
    });
  }

  private closed(connectionId: number, address: string, reason: string): void {
    const entry = this.tracked.get(connectionId);
    this.tracked.delete(connectionId);
    if (!this.admit('disconnected')) return;
    const durationMs = entry === undefined ? -1
      : Math.round(this.options.clock.monotonicMs() - entry.acceptedMs);
    this.options.log.clientDisconnected({
      address, reason, durationMs, user: entry?.user, applicationName: entry?.applicationName,
      connectionId,
    });
  }

  /** Whether a line of `kind` may be written now; counts it as left out otherwise. */
  private admit(kind: Kind): boolean {
    const nowMs = this.options.clock.monotonicMs();
    if (nowMs - this.windowStartMs >= this.windowMs) {
      this.summarize();
      this.windowStartMs = nowMs;
      this.windowLineCount = 0;
    }
    if (this.windowLineCount < this.linesPerWindowMax) {
      this.windowLineCount++;
      return true;
    }
    if (this.suppressedCount() === 0) {
      const leftMs = Math.max(1, Math.ceil(this.windowStartMs + this.windowMs - nowMs));
      this.timer = this.timers.set(() => {
        this.timer = undefined;
        this.summarize();
      }, leftMs);
    }
    this.suppressed[kind]++;
    return false;
  }

  private summarize(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
    const suppressedCount = this.suppressedCount();
    if (suppressedCount === 0) return;
    this.options.log.connectionLinesSuppressed({
      suppressedCount, windowMs: this.windowMs, linesPerWindowMax: this.linesPerWindowMax,
      acceptedCount: this.suppressed.accepted, connectedCount: this.suppressed.connected,
      disconnectedCount: this.suppressed.disconnected,
    });
    this.suppressed.accepted = 0;
    this.suppressed.connected = 0;
    this.suppressed.disconnected = 0;
  }

  private suppressedCount(): number {
    return this.suppressed.accepted + this.suppressed.connected + this.suppressed.disconnected;
  }
}
