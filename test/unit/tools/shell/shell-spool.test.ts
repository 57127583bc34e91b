// gs_sh's result spool (tools/shell/shell-spool.ts): pages of rows of every column type, edge
// values included, read back in order exactly as appended; the file goes with close.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Row } from '../../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../../lib/schema/container-schema.ts';
import { ResultSpool } from '../../../../tools/shell/shell-spool.ts';

const COLUMNS: ColumnSchema[] = [
  { name: 'l', type: 'LONG', array: false, notNull: false },
  { name: 'd', type: 'DOUBLE', array: false, notNull: false },
  { name: 's', type: 'STRING', array: false, notNull: false },
  { name: 'b', type: 'BLOB', array: false, notNull: false },
  { name: 'ia', type: 'INTEGER', array: true, notNull: false },
];

const ROW = fc.tuple(
  fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
  fc.option(fc.oneof(fc.double(), fc.constantFrom(NaN, -0, Infinity)), { nil: null }),
  fc.option(fc.string(), { nil: null }),
  fc.option(fc.uint8Array({ maxLength: 16 }), { nil: null }),
  fc.option(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 3 }), { nil: null }),
).map((values) => values as unknown as Row);

describe('ResultSpool', () => {
  it('gives back the pages appended, in order, value for value', () => {
    fc.assert(fc.property(fc.array(fc.array(ROW, { maxLength: 5 }), { maxLength: 6 }), (pages) => {
      const spool = new ResultSpool(COLUMNS);
      try {
        for (const page of pages) spool.append(page);
        const read: Row[] = [];
        for (let page = spool.readPage(); page.length > 0; page = spool.readPage()) read.push(...page);
        assert.deepStrictEqual(read, pages.flat());
      } finally {
        spool.close();
      }
    }), { numRuns: 50 });
  });

  it('removes its file on close', () => {
    const spool = new ResultSpool(COLUMNS);
    spool.append([[1n, 1.5, 'a', new Uint8Array([1]), [1, 2]]]);
    const directory = (spool as unknown as { directory: string }).directory;
    assert.ok(existsSync(directory));
    spool.close();
    assert.ok(!existsSync(directory));
  });
});
