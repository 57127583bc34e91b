// APPEND_TIME_SERIES_ROW's row (griddb-row-statements.ts appendedRow): the client's row with its
// placeholder key replaced by the node's clock, in the key column's precision; refused for a
// collection with GridDB's TXN_CONTAINER_TYPE_INVALID. (Store's time series keys are
// TIMESTAMP(3): the µs and ns schemas here are the precision rule alone.)

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import type { Row, TimePrecision } from '../../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../../lib/schema/container-schema.ts';
import { GriddbError } from '../../../../lib/server/griddb/griddb-error.ts';
import { appendedRow } from '../../../../lib/server/griddb/griddb-row-statements.ts';
import { griddbRowsWrite } from '../../../../lib/server/griddb/griddb-rows.ts';

const NOW_MS = 1_764_000_000_123;

function schemaOf(type: 'TIME_SERIES' | 'COLLECTION', timePrecision: TimePrecision): ContainerSchema {
  const columns: ColumnSchema[] = [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
  ];
  return { name: 'c', type, columns, rowKeyColumnCount: 1, indexes: [], schemaVersion: 1 };
}

function encoded(schema: ContainerSchema, row: Row): Uint8Array {
  const writer = new ByteWriter(64);
  griddbRowsWrite(writer, schema.columns, [row]);
  return writer.finish();
}

describe('GridDB APPEND_TIME_SERIES_ROW: the row', () => {
  it('keys the row by the node\'s clock in the key\'s precision', () => {
    const cases: Array<[TimePrecision, Row, unknown]> = [
      ['MILLISECOND', [0, 2.5], NOW_MS],
      ['MICROSECOND', [0n, 2.5], BigInt(NOW_MS) * 1000n],
      ['NANOSECOND', [0n, 2.5], BigInt(NOW_MS) * 1_000_000n],
    ];
    for (const [precision, row, key] of cases) {
      const schema = schemaOf('TIME_SERIES', precision);
      assert.deepEqual(appendedRow(schema, encoded(schema, row), () => NOW_MS), [key, 2.5],
        precision);
    }
  });

  it('refuses a collection with TXN_CONTAINER_TYPE_INVALID', () => {
    const schema = schemaOf('COLLECTION', 'MILLISECOND');
    assert.throws(() => appendedRow(schema, encoded(schema, [0, 1]), () => NOW_MS),
      (error) => error instanceof GriddbError && error.error.code === 10018);
  });
});
