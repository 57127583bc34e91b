// Rows of a row block's columns encoded a column at a time, for a plain SELECT * of a schema
// whose every column is a fixed-width scalar held in a typed array (DOUBLE, TIMESTAMP in ms,
// FLOAT, INTEGER, SHORT, BYTE, BOOL): byte for byte what RowCodec.writeColumnRow writes row by row
// (row-codec.ts), without reading a cell through `ArrayLike<unknown>`. That read boxed every
// double into a heap number, and a full scan of the TSBS day (8.64 M doubles) spent more of the
// node's CPU in the garbage collector than in encoding. With no NULL in the rows every row has the
// same size, so a cell's place is arithmetic:
//
//   row r:   | null bitmap: ceil(columns / 8) bytes, all 0 | column 0 | column 1 | ... |
//            starts at start + r × rowBytes; column i at + bitmapBytes + the widths before it
//   DOUBLE f64, TIMESTAMP u64 (ms), FLOAT f32, INTEGER i32, SHORT i16, BYTE i8, BOOL u8; all LE
//
// Rows with a NULL, or columns in another form, are left to the row-by-row path (the writer
// answers false and writes nothing). test/unit/encoding/row-codec-column-range.test.ts.

import { assert } from '../base/assert.ts';
import { TIMESTAMP_MS_MAX, ValueKind, valueKind } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { ByteWriter } from './byte-writer.ts';
import type { RowColumn } from './row-codec.ts';

const TWO_POW_32 = 2 ** 32;

/**
 * Appends rows from .. from + count − 1 of `columns` as writeColumnRow appends each; false (and
 * nothing written) when a row of them holds a NULL or a column is not in its typed array.
 */
export type ColumnRangeWriter = (
  writer: ByteWriter, columns: readonly RowColumn[], from: number, count: number,
) => boolean;

export interface ColumnRange {
  readonly write: ColumnRangeWriter;
  /** Every row's size in bytes. */
  readonly rowBytes: number;
}

const enum Form { F64, TIMESTAMP_MS, F32, I32, I16, I8, U8 }

const FORM_BYTES: Record<Form, number> = {
  [Form.F64]: 8, [Form.TIMESTAMP_MS]: 8, [Form.F32]: 4, [Form.I32]: 4, [Form.I16]: 2, [Form.I8]: 1,
  [Form.U8]: 1,
};

const cache = new WeakMap<ContainerSchema, ColumnRange | null>();

/** The column-at-a-time encoder of `schema`, or undefined when a column is not of these kinds. */
export function columnRangeOf(schema: ContainerSchema): ColumnRange | undefined {
  let range = cache.get(schema);
  if (range === undefined) {
    range = columnRangeBuild(schema);
    cache.set(schema, range);
  }
  return range ?? undefined;
}

function formOf(kind: ValueKind): Form | undefined {
  switch (kind) {
    case ValueKind.DOUBLE: return Form.F64;
    case ValueKind.TIMESTAMP_MS: return Form.TIMESTAMP_MS;
    case ValueKind.FLOAT: return Form.F32;
    case ValueKind.INTEGER: return Form.I32;
    case ValueKind.SHORT: return Form.I16;
    case ValueKind.BYTE: return Form.I8;
    case ValueKind.BOOL: return Form.U8;
    default: return undefined;
  }
}

function columnRangeBuild(schema: ContainerSchema): ColumnRange | null {
  assert(schema.columns.length > 0);
  const forms: Form[] = [];
  for (const column of schema.columns) {
    const form = column.array ? undefined : formOf(valueKind(column.type, column.timePrecision));
    if (form === undefined) return null;
    forms.push(form);
  }
  const bitmapBytes = (forms.length + 7) >> 3;
  const offsets: number[] = [];
  let rowBytes = bitmapBytes;
  for (const form of forms) {
    offsets.push(rowBytes);
    rowBytes += FORM_BYTES[form];
  }
  const write: ColumnRangeWriter = (writer, columns, from, count) => {
    assert(columns.length === forms.length);
    assert(from >= 0 && count >= 0);
    for (let i = 0; i < forms.length; i++) {
      const column = columns[i]!;
      if (!(column.values instanceof FORM_ARRAYS[forms[i]!])) return false;
      assert(column.values.length >= from + count);
      const nulls = column.nulls;
      if (nulls !== undefined) {
        for (let r = from; r < from + count; r++) if (nulls[r] === 1) return false;
      }
    }
    const start = writer.claim(count * rowBytes);
    const view = writer.dataView;
    writer.advanceTo(start + count * rowBytes);
    for (let r = 0, at = start; r < count; r++, at += rowBytes) {
      for (let b = 0; b < bitmapBytes; b++) view.setUint8(at + b, 0);
    }
    for (let i = 0; i < forms.length; i++) {
      const values = columns[i]!.values;
      const at = start + offsets[i]!;
      switch (forms[i]!) {
        case Form.F64: writeF64(view, values as Float64Array, from, count, at, rowBytes); break;
        case Form.TIMESTAMP_MS: writeMs(view, values as Float64Array, from, count, at, rowBytes); break;
        case Form.F32: writeF32(view, values as Float32Array, from, count, at, rowBytes); break;
        case Form.I32: writeI32(view, values as Int32Array, from, count, at, rowBytes); break;
        case Form.I16: writeI16(view, values as Int16Array, from, count, at, rowBytes); break;
        case Form.I8: writeI8(view, values as Int8Array, from, count, at, rowBytes); break;
        case Form.U8: writeU8(view, values as Uint8Array, from, count, at, rowBytes); break;
      }
    }
    return true;
  };
  return { write, rowBytes };
}

/** The typed array a row block keeps each form's values in (row-block-layout.ts storage). */
const FORM_ARRAYS: Record<Form, new (length: number) => ArrayLike<number>> = {
  [Form.F64]: Float64Array, [Form.TIMESTAMP_MS]: Float64Array, [Form.F32]: Float32Array,
  [Form.I32]: Int32Array, [Form.I16]: Int16Array, [Form.I8]: Int8Array, [Form.U8]: Uint8Array,
};

// One loop per typed array type, so that each reads its array's elements unboxed.

function writeF64(view: DataView, values: Float64Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) view.setFloat64(at, values[r]!, true);
}

/** As ByteWriter.u64Number: two u32 halves of a non-negative safe integer. */
function writeMs(view: DataView, values: Float64Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) {
    const ms = values[r]!;
    assert(ms >= 0 && ms <= TIMESTAMP_MS_MAX && Math.floor(ms) === ms);
    const low = ms % TWO_POW_32;
    view.setUint32(at, low, true);
    view.setUint32(at + 4, (ms - low) / TWO_POW_32, true);
  }
}

function writeF32(view: DataView, values: Float32Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) view.setFloat32(at, values[r]!, true);
}

function writeI32(view: DataView, values: Int32Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) view.setInt32(at, values[r]!, true);
}

function writeI16(view: DataView, values: Int16Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) view.setInt16(at, values[r]!, true);
}

function writeI8(view: DataView, values: Int8Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) view.setInt8(at, values[r]!);
}

function writeU8(view: DataView, values: Uint8Array, from: number, count: number, at: number,
  strideBytes: number): void {
  for (let r = from; r < from + count; r++, at += strideBytes) {
    assert(values[r] === 0 || values[r] === 1); // a block keeps BOOL as 0 or 1
    view.setUint8(at, values[r]!);
  }
}
