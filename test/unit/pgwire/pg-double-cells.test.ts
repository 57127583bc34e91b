// A page's DOUBLE cells formatted in one native call give each cell String(x)'s text, as the
// per-cell path (pgTextOf) does: -0, NaN, ±Infinity, exponents, 17-digit doubles and NULLs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { doubleTextSupport } from '../../../lib/io/double-text.ts';
import { PG_DOUBLE_CELLS_NATIVE_MIN, pgDoubleCells } from '../../../lib/pgwire/pg-double-cells.ts';
import { PgBackendWriter } from '../../../lib/pgwire/pg-frames.ts';
import { writeDataRows } from '../../../lib/pgwire/pg-results.ts';
import { pgTextOf } from '../../../lib/pgwire/pg-types.ts';

describe('pg-double-cells', { skip: doubleTextSupport.available ? undefined : doubleTextSupport.reason }, () => {
  it('gives each cell the text String(x) gives, NULLs none', () => {
    const edge = [0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 5e-324, -1.7976931348623157e308, 0.1 + 0.2, 123456789012345680];
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.double(), fc.constantFrom(...edge), fc.constant(null)),
        { minLength: PG_DOUBLE_CELLS_NATIVE_MIN, maxLength: 300 }),
      (values) => {
        const cells = pgDoubleCells(values, values.length);
        assert.ok(cells !== undefined);
        values.forEach((value, k) => {
          if (value === null) return;
          assert.equal(Buffer.from(cells.bytes.subarray(cells.starts[k], cells.ends[k])).toString('latin1'),
            pgTextOf('DOUBLE', value), String(value));
        });
      }));
  });

  it('DataRows of a page: DOUBLE cells in text among other columns and NULLs, binary ones as before', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.option(fc.double(), { nil: null }), fc.string(),
      fc.option(fc.double(), { nil: null })), { minLength: PG_DOUBLE_CELLS_NATIVE_MIN, maxLength: 200 }), (rows) => {
      const out = new PgBackendWriter();
      const columns = [{ name: 'a', type: 'DOUBLE' as const }, { name: 's', type: 'STRING' as const },
        { name: 'b', type: 'DOUBLE' as const }];
      writeDataRows(out, columns, [0, 0, 1], rows);
      const bytes = out.take();
      let at = 0;
      for (const row of rows) {
        assert.equal(bytes[at], 0x44);
        at += 5;
        assert.equal(bytes.readInt16BE(at), 3);
        at += 2;
        const cells: (Buffer | null)[] = [];
        for (let i = 0; i < 3; i++) {
          const length = bytes.readInt32BE(at);
          at += 4;
          cells.push(length < 0 ? null : bytes.subarray(at, at + length));
          at += Math.max(length, 0);
        }
        assert.equal(cells[0]?.toString('utf8') ?? null, row[0] === null ? null : pgTextOf('DOUBLE', row[0]));
        assert.equal(cells[1]!.toString('utf8'), row[1]);
        assert.equal(cells[2]?.readDoubleBE(0) ?? null, row[2]);
      }
      assert.equal(at, bytes.byteLength);
    }), { numRuns: 50 });
  });

  it('leaves small pages to String(x)', () => {
    assert.equal(pgDoubleCells([1.5], 1), undefined);
  });
});
