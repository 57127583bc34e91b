// The connections that have not authenticated yet, counted in total and per client address, so
// that idle or slow handshakes have a small limit of their own (`unauthenticatedConnectionLimit`,
// `...PerAddress`) and cannot fill connectionLimit, which counts authenticated connections only.
// A connection over either limit is closed at once; those refusals are counted, and reported to
// the event log at most once per REFUSAL_REPORT_INTERVAL_MS, so a flood cannot flood the log.

import { assert } from '../base/assert.ts';

/** How often refusals at the unauthenticated limits are reported (the first one at once). */
const REFUSAL_REPORT_INTERVAL_MS = 10_000;

export class UnauthenticatedConnections {
  private total = 0;
  private readonly byAddress = new Map<string, number>();
  private refusedTotal = 0;
  /** Refused since the last report; undefined when no report interval is running. */
  private refusedUnreported: number | undefined;
  private reportTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly limit: number,
    private readonly perAddressLimit: number,
    /** Reports refusals: the reason, and how many were refused since the last report. */
    private readonly report: (reason: string, refusedCount: number) => void,
  ) {}

  get count(): number {
    return this.total;
  }

  /** Connections refused at these limits since the server started. */
  get refusedCount(): number {
    return this.refusedTotal;
  }

  /** Counts a new connection from `address` in, or says why it is refused. */
  admit(address: string): string | undefined {
    const fromAddress = this.byAddress.get(address) ?? 0;
    let reason: string | undefined;
    if (this.total >= this.limit) {
      reason = `the node accepts at most ${this.limit} connections that have not authenticated ` +
        '(unauthenticatedConnectionLimit)';
    } else if (fromAddress >= this.perAddressLimit) {
      reason = `the node accepts at most ${this.perAddressLimit} connections that have not ` +
        `authenticated from one address (unauthenticatedConnectionLimitPerAddress), from ${address}`;
    }
    if (reason !== undefined) {
      this.refused(reason);
      return reason;
    }
    this.total++;
    this.byAddress.set(address, fromAddress + 1);
    return undefined;
  }

  /** A connection counted in by admit() authenticated or closed. */
  left(address: string): void {
    const fromAddress = this.byAddress.get(address);
    assert(fromAddress !== undefined && fromAddress > 0 && this.total > 0);
    this.total--;
    if (fromAddress === 1) this.byAddress.delete(address);
    else this.byAddress.set(address, fromAddress - 1);
  }

  close(): void {
    clearTimeout(this.reportTimer);
  }

  private refused(reason: string): void {
    this.refusedTotal++;
    if (this.refusedUnreported !== undefined) {
      this.refusedUnreported++;
      return;
    }
    this.report(reason, 1);
    this.refusedUnreported = 0;
    this.reportTimer = setTimeout(() => {
      const count = this.refusedUnreported ?? 0;
      this.refusedUnreported = undefined;
      if (count > 0) {
        this.report(`${count} more connections refused at the unauthenticated limits in ` +
          `${REFUSAL_REPORT_INTERVAL_MS} ms (${this.refusedTotal} since the start)`, count);
      }
    }, REFUSAL_REPORT_INTERVAL_MS);
    this.reportTimer.unref();
  }
}
