// The 400 for a value of a request that does not convert to its column's type. It keeps GridDB's
// message as its beginning, so a client that matches that text still matches, and then says where
// and what (docs/webapi.md, "Errors"):
//
//   The specified data cannot be converted to DOUBLE type: row 20000, column "usage": "abc" is
//   not a DOUBLE.
//
// Rows count from 0, as the index into the body's array of rows (GridDB names no row). The value
// converter does not know the row it works on (one decoder serves a whole body), so it throws the
// error without a row and decodeRow adds it: building the text costs only on the error path.

import type { ColumnSchema } from '../../schema/container-schema.ts';
import { WebApiError } from '../errors/webapi-error.ts';
import { gsTypeName } from './column-json.ts';

/** Characters of a refused value quoted in the message, at most. */
const VALUE_QUOTED_LENGTH_MAX = 60;

/** Where a bad value sits: its row (0-based), and its container in a multi-container PUT. */
export interface ValueLocation {
  rowIndex: number;
  containerName?: string;
}

export class ValueConversionError extends WebApiError {
  /**
   * `detail`: GridDB's ` (upper limit over)` / ` (lower limit over)`; `elementIndex`: the element
   * of an array column that failed.
   */
  constructor(
    readonly column: ColumnSchema,
    readonly raw: unknown,
    readonly detail: string,
    readonly elementIndex: number | undefined,
    readonly location?: ValueLocation,
  ) {
    super(400, conversionMessage(column, raw, detail, elementIndex, location));
  }

  /** The same error, naming the row (and the container) it was found in. */
  locatedAt(location: ValueLocation): ValueConversionError {
    return new ValueConversionError(this.column, this.raw, this.detail, this.elementIndex,
      location);
  }
}

function conversionMessage(column: ColumnSchema, raw: unknown, detail: string,
  elementIndex: number | undefined, location: ValueLocation | undefined): string {
  const where: string[] = [];
  if (location?.containerName !== undefined) where.push(`container "${location.containerName}"`);
  if (location !== undefined) where.push(`row ${location.rowIndex}`);
  where.push(`column "${column.name}"` +
    (elementIndex === undefined ? '' : ` element ${elementIndex}`));
  const expected = elementIndex === undefined ? expectedOf(column)
    : expectedOf({ ...column, array: false });
  return `The specified data cannot be converted to ${gsTypeName(column)} type${detail}: ` +
    `${where.join(', ')}: ${quoted(raw)} is not ${article(expected)} ${expected}.`;
}

/** The type expected, with its accepted form where the type name alone does not say it. */
function expectedOf(column: ColumnSchema): string {
  const name = gsTypeName(column);
  if (column.array) return `${name} (a JSON array)`;
  switch (column.type) {
    case 'TIMESTAMP': {
      const digits = column.timePrecision === 'MICROSECOND' ? 6
        : column.timePrecision === 'NANOSECOND' ? 9 : 3;
      return `TIMESTAMP (yyyy-MM-ddTHH:mm:ss.${'S'.repeat(digits)}Z)`;
    }
    case 'BYTE': return 'BYTE (-128 to 127)';
    case 'SHORT': return 'SHORT (-32768 to 32767)';
    case 'INTEGER': return 'INTEGER (-2147483648 to 2147483647)';
    case 'LONG': return 'LONG (-9223372036854775808 to 9223372036854775807)';
    case 'BOOL': return 'BOOL (true or false)';
    case 'GEOMETRY': return 'GEOMETRY (WKT text such as POINT(1 2))';
    case 'BLOB': return 'BLOB (base64 text)';
    default: return name;
  }
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? 'an' : 'a';
}

function quoted(raw: unknown): string {
  const text = typeof raw === 'bigint' ? String(raw) : JSON.stringify(raw) ?? String(raw);
  return text.length <= VALUE_QUOTED_LENGTH_MAX ? text
    : `${text.slice(0, VALUE_QUOTED_LENGTH_MAX)}...`;
}
