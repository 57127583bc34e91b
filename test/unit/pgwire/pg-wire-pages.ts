// Pages as the engine hands them to the PostgreSQL port (rows in the wire row encoding), and the
// DataRows the general path writes for them (decoded, then writeDataRows): the reference both page
// writers' property tests compare against (pg-data-rows-wire, pg-data-rows-binary).

import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { PgBackendWriter } from '../../../lib/pgwire/pg-frames.ts';
import { writeDataRows } from '../../../lib/pgwire/pg-results.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import type { SqlType } from '../../../lib/sql/value.ts';

/** `rows` of `columns` in the wire row encoding, as a page's bytes. */
export function wireBytes(columns: ColumnSchema[], rows: Row[]): Uint8Array {
  const writer = new ByteWriter(1024);
  rowCodec(resultSchemaOf(columns), 'wire').writeRows(writer, rows);
  return writer.finish();
}

/** The DataRows writeDataRows writes for the page's `count` rows decoded, every column in `format`. */
export function generalDataRows(types: readonly SqlType[], columns: ColumnSchema[], bytes: Uint8Array,
  count: number, format: 0 | 1): Buffer {
  const decoded = rowCodec(resultSchemaOf(columns), 'wire').readRows(new ByteReader(bytes), count);
  const general = new PgBackendWriter();
  writeDataRows(general, types.map((type, i) => ({ name: `c${i}`, type })), types.map(() => format), decoded);
  return general.take();
}
