// The work memory of one statement (GridDB's /sql/workMemoryLimit, 32 MiB by default): the
// operators that hold rows (hash aggregate, GROUP BY RANGE, sort, DISTINCT) charge what they keep,
// roughly, and past the limit the statement ends with LIMIT_EXCEEDED instead of growing the heap
// until the node dies. Bytes are estimates (valueSizeBytes), not heap measurements.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';

export class SqlWorkMemory {
  private usedBytes = 0;

  constructor(readonly limitBytes: number) {
    assert(Number.isSafeInteger(limitBytes));
    assert(limitBytes > 0);
  }

  get used(): number {
    return this.usedBytes;
  }

  charge(bytes: number, operator: string): void {
    assert(bytes >= 0);
    this.usedBytes += bytes;
    if (this.usedBytes > this.limitBytes) {
      throw new StorageError('LIMIT_EXCEEDED', `the statement needs more than the SQL work memory ` +
        `limit of ${this.limitBytes} bytes (/sql/workMemoryLimit) in its ${operator}: ` +
        'narrow the WHERE, group by fewer values, or add a LIMIT');
    }
  }

  release(bytes: number): void {
    assert(bytes >= 0 && bytes <= this.usedBytes);
    this.usedBytes -= bytes;
  }
}
