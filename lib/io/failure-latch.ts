// After a write or a sync of a file fails, what the file holds is unknown (a failed fsync cannot
// even be retried safely: the kernel may have dropped the dirty pages). So the first failure
// latches: every later use of the writer is refused with that failure as its cause, until the owner
// recovers from what is durable. Failed assertions are bugs, not I/O: they crash and never latch.

import { AssertionError } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';

export class FailureLatch {
  private failure: StorageError | undefined;

  /**
   * `subject` names the writer in messages ("xlog writer of partition 3"); `advice` says how to go
   * on ("recover the partition to go on").
   */
  constructor(private readonly names: { subject: string; advice: string }) {}

  /** The failure that latched, if any. */
  get brokenBy(): StorageError | undefined {
    return this.failure;
  }

  /** Runs a write; a failure latches, then propagates. */
  guard<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.trip(error);
      throw error;
    }
  }

  /** Runs a sync (or any asynchronous I/O); a failure latches, then propagates. */
  async guardAsync<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      this.trip(error);
      throw error;
    }
  }

  /** Latches `error` (the first one wins). */
  trip(error: unknown): void {
    if (error instanceof AssertionError || this.failure !== undefined) return;
    const message = error instanceof Error ? error.message : String(error);
    this.failure = error instanceof StorageError
      ? error
      : new StorageError('IO', `${this.names.subject}: ${message}`, { cause: error });
  }

  throwIfBroken(): void {
    if (this.failure === undefined) return;
    throw new StorageError('IO', `${this.names.subject} is broken by an earlier failure ` +
      `(${this.failure.message}); ${this.names.advice}`, { cause: this.failure });
  }
}
