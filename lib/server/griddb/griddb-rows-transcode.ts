// The fast way from GridDB's rows (griddb-rows.ts draws them) to store's wire rows
// (lib/encoding/row-codec.ts draws them) for PUT_ROW and PUT_MULTIPLE_ROWS: byte to byte, with no
// Row object, no value and no garbage per row. A profile of the node under GridDB's C client
// loading the TSBS day spent most of the GridDB path's extra CPU on the other way: decoding every
// row into JavaScript values (a bigint per timestamp), validating them, encoding them again, and
// collecting that garbage (3.4–4.1 µs of node CPU per row, against 1.8 for store's own client).
//
// It only takes the common case and says no (undefined) to anything else, which then goes the
// decode-and-validate way (griddbRowsRead, validateRow) that gives every refusal its exact error:
//   - every column fixed-size, not an array, and one of BOOL, BYTE, SHORT, INTEGER, LONG, FLOAT,
//     DOUBLE, TIMESTAMP(ms) (no var area, so no var offsets);
//   - the bytes are exactly count rows;
//   - no NULL in a key or NOT NULL column;
//   - every TIMESTAMP within (0, TIMESTAMP_MS_MAX] and every FLOAT not NaN, the ranges
//     validateRow passes as they are (0 and NaN it turns canonical: left to it).
// Within that, what validateRow would give is what the bytes say, so the engine (which decodes
// and validates the rows again, as it does a store client's) gets the same rows either way; the
// test compares the two ways on random rows (griddb-rows-transcode.test.ts).
//
// Per row, GridDB's | nulls | every field, zeros for a NULL | becomes store's
// | nulls (bits past the last column 0) | every non-NULL field |; BOOL becomes 0 or 1, a
// TIMESTAMP a u64 of its ms (the same bytes for the range taken), DOUBLE and FLOAT go through
// the float view, as the other way does (a NaN comes out as that way writes it).
//
// The output goes into a GriddbRowsScratch a connection keeps (no 445 KB buffer a TSBS batch):
// the rows are valid until its next use, and the caller hands them to GriddbEngine.call, which
// copies them into its request before it first waits.

import { TIMESTAMP_MS_MAX as TIMESTAMP_MS_MAX_IMPORTED } from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { assert } from '../../base/assert.ts';

const TIMESTAMP_MS_MAX = TIMESTAMP_MS_MAX_IMPORTED;
const TWO_POW_32 = 2 ** 32;

const K_BOOL = 1;
const K_BYTE = 2;
const K_SHORT = 3;
const K_INTEGER = 4;
const K_LONG = 5;
const K_FLOAT = 6;
const K_DOUBLE = 7;
const K_TIMESTAMP_MS = 8;

const KINDS: Readonly<Record<string, number>> = {
  BOOL: K_BOOL, BYTE: K_BYTE, SHORT: K_SHORT, INTEGER: K_INTEGER, LONG: K_LONG, FLOAT: K_FLOAT,
  DOUBLE: K_DOUBLE,
};
const FIXED_BYTES = [0, 1, 1, 2, 4, 8, 4, 8, 8];

interface Layout {
  kinds: Uint8Array;
  /** 1 where a NULL is refused (a key or NOT NULL column). */
  nullRefused: Uint8Array;
  nullsBytes: number;
  /** GridDB's fixed row: nulls and every field. */
  rowBytes: number;
  /** The last nulls byte's bits that name columns. */
  lastNullsMask: number;
}

/** A scratch larger than this is not kept past the statement that needed it. */
export const GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX = 1024 * 1024;

/** One connection's room for transcoded rows, reused statement after statement. */
export class GriddbRowsScratch {
  private kept = new Uint8Array(0);

  /** At least `sizeBytes` bytes, valid until the next take. */
  take(sizeBytes: number): Uint8Array {
    assert(Number.isSafeInteger(sizeBytes) && sizeBytes >= 0);
    if (sizeBytes <= this.kept.byteLength) return this.kept;
    if (sizeBytes > GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX) return new Uint8Array(sizeBytes);
    this.kept = new Uint8Array(Math.min(GRIDDB_ROWS_SCRATCH_BYTES_KEPT_MAX,
      Math.max(sizeBytes, this.kept.byteLength * 2)));
    return this.kept;
  }
}

const layouts = new WeakMap<ContainerSchema, Layout | null>();

/** The schema's layout, or null when the fast way does not take it. */
function layoutOf(schema: ContainerSchema): Layout | null {
  let layout = layouts.get(schema);
  if (layout !== undefined) return layout;
  const kinds = new Uint8Array(schema.columns.length);
  let rowBytes = Math.ceil(schema.columns.length / 8);
  layout = null;
  let taken = true;
  schema.columns.forEach((column, c) => {
    const kind = column.array ? undefined : column.type === 'TIMESTAMP'
      ? (column.timePrecision === undefined || column.timePrecision === 'MILLISECOND'
        ? K_TIMESTAMP_MS : undefined)
      : KINDS[column.type];
    if (kind === undefined) taken = false;
    else {
      kinds[c] = kind;
      rowBytes += FIXED_BYTES[kind]!;
    }
  });
  if (taken) {
    const nullsBytes = Math.ceil(schema.columns.length / 8);
    const bitsInLast = schema.columns.length - (nullsBytes - 1) * 8;
    layout = {
      kinds, nullsBytes, rowBytes,
      nullRefused: Uint8Array.from(schema.columns,
        (column, c) => (c < schema.rowKeyColumnCount || column.notNull ? 1 : 0)),
      lastNullsMask: (1 << bitsInLast) - 1,
    };
  }
  layouts.set(schema, layout);
  return layout;
}

/**
 * `count` GridDB rows of `schema` (exactly `bytes`) as store's wire rows, or undefined when the
 * fast way does not take them (see the top of this file).
 */
export function griddbRowsTranscode(bytes: Uint8Array, schema: ContainerSchema,
  count: number, scratch?: GriddbRowsScratch): Uint8Array | undefined {
  const layout = layoutOf(schema);
  if (layout === null || count < 1 || bytes.byteLength !== count * layout.rowBytes) {
    return undefined;
  }
  const { kinds, nullRefused, nullsBytes, lastNullsMask } = layout;
  const columnCount = kinds.length;
  const input = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Store's row is never longer than GridDB's: the same fields, less those that are NULL.
  const out = scratch === undefined ? new Uint8Array(bytes.byteLength)
    : scratch.take(bytes.byteLength);
  const output = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let from = 0;
  let to = 0;
  for (let r = 0; r < count; r++) {
    const nullsAt = from;
    for (let b = 0; b < nullsBytes; b++) {
      out[to + b] = b === nullsBytes - 1 ? bytes[from + b]! & lastNullsMask : bytes[from + b]!;
    }
    from += nullsBytes;
    to += nullsBytes;
    for (let c = 0; c < columnCount; c++) {
      const kind = kinds[c]!;
      if ((bytes[nullsAt + (c >>> 3)]! & (1 << (c & 7))) !== 0) {
        if (nullRefused[c] === 1) return undefined;
        from += FIXED_BYTES[kind]!;
        continue;
      }
      switch (kind) {
        case K_DOUBLE:
          output.setFloat64(to, input.getFloat64(from, true), true);
          break;
        case K_TIMESTAMP_MS: {
          const high = input.getInt32(from + 4, true);
          const low = input.getUint32(from, true);
          const ms = high * TWO_POW_32 + low;
          if (high < 0 || ms === 0 || ms > TIMESTAMP_MS_MAX) return undefined;
          output.setUint32(to, low, true);
          output.setUint32(to + 4, high, true);
          break;
        }
        case K_LONG:
          output.setUint32(to, input.getUint32(from, true), true);
          output.setUint32(to + 4, input.getUint32(from + 4, true), true);
          break;
        case K_INTEGER:
          output.setInt32(to, input.getInt32(from, true), true);
          break;
        case K_FLOAT: {
          const value = input.getFloat32(from, true);
          if (Number.isNaN(value)) return undefined;
          output.setFloat32(to, value, true);
          break;
        }
        case K_SHORT:
          output.setInt16(to, input.getInt16(from, true), true);
          break;
        case K_BYTE:
          out[to] = bytes[from]!;
          break;
        case K_BOOL:
          out[to] = bytes[from] === 0 ? 0 : 1;
          break;
        default:
          return undefined;
      }
      from += FIXED_BYTES[kind]!;
      to += FIXED_BYTES[kind]!;
    }
  }
  return out.subarray(0, to);
}
