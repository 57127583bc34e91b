// The export's fast printer of row lines: the same bytes as rowLine (expimp-row-file.ts), without
// its generic paths. A line is built as one string by a cell printer chosen per column once:
// numbers, booleans and timestamps are quoted without scanning for `\` and `"` (they never hold
// them), a millisecond TIMESTAMP reuses the `yyyy-MM-ddT` text of the last day it printed
// and adds the time of day by arithmetic (rows of a file mostly share their day: one Date per
// day, not per value), a STRING without `\` or `"` is quoted by concatenation, and everything else
// (arrays, BLOBs, external cells, TIMESTAMP(6|9)) goes through the generic cellText.
// test/unit/tools/expimp-row-printer.test.ts compares both on random rows of every type.

import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { Row, ScalarValue, Value } from '../lib/schema/column-type.ts';
import { quoteCell } from './expimp-csv-line.ts';
import { cellText } from './expimp-row-file.ts';
import { printScalar } from './expimp-values.ts';

const MS_PER_S = 1000;
const MS_PER_DAY = 86_400_000;
/** '00' … '99'. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

export interface LinePlace {
  directory: string;
  stem: string;
  rowIndex: number;
}

/** The quoted cell of a non-null value, or '' for NULL. */
export type CellPrinter = (value: Value | null | undefined, place: LinePlace) => string;

/** A printer of the columns' row lines (each ending with LF), byte for byte rowLine's. */
export function rowPrinterOf(columns: readonly ColumnSchema[]): (row: Row, place: LinePlace) => string {
  const printers = columns.map((column, i) => cellPrinterOf(column, i));
  const count = printers.length;
  return (row, place) => {
    let line = printers[0]!(row[0], place);
    for (let i = 1; i < count; i++) line += ',' + printers[i]!(row[i], place);
    return line + '\n';
  };
}

/** The printer of one column's cells (the page printer's, expimp-page-printer.ts, for STRINGs to escape). */
export function cellPrinterOf(column: ColumnSchema, columnIndex: number): CellPrinter {
  const generic: CellPrinter = (value, place) => {
    const text = cellText(column, columnIndex, value, place);
    return text === null ? '' : quoteCell(text);
  };
  if (column.array) return generic;
  switch (column.type) {
    case 'BOOL':
    case 'BYTE':
    case 'SHORT':
    case 'INTEGER':
    case 'LONG':
      return (value) => (value === null || value === undefined ? '' : `"${value as number | bigint | boolean}"`);
    case 'FLOAT':
    case 'DOUBLE':
      return (value) => {
        if (value === null || value === undefined) return '';
        const number = value as number;
        return number === 0 && 1 / number < 0 ? '"-0.0"' : `"${number}"`;
      };
    case 'TIMESTAMP':
      return (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND'
        ? timestampMsPrinter(column, generic) : generic;
    case 'STRING':
    case 'GEOMETRY':
      return (value, place) => {
        if (typeof value !== 'string') return generic(value, place);
        // External cells start with `@` or hold CR/LF: the generic path writes their file.
        if (value.charCodeAt(0) === 64 || value.includes('\n') || value.includes('\r') ||
          value.includes('"') || value.includes('\\')) return generic(value, place);
        return `"${value}"`;
      };
    default:
      return generic;
  }
}

/** Milliseconds since the epoch; the `yyyy-MM-ddT` text of the last day printed is kept. */
function timestampMsPrinter(column: ColumnSchema, generic: CellPrinter): CellPrinter {
  let dayLast = -1;
  let dayTextLast = '';
  return (value, place) => {
    if (typeof value !== 'number' || !(value >= 0) || !Number.isSafeInteger(value)) {
      return generic(value, place);
    }
    const day = Math.floor(value / MS_PER_DAY);
    if (day !== dayLast) {
      // printScalar's own text of the day's first instant, so the prefix is exactly what it prints.
      dayTextLast = printScalar(column, day * MS_PER_DAY as ScalarValue).slice(0, -'00:00:00.000+0000'.length);
      dayLast = day;
    }
    let rest = value - day * MS_PER_DAY;
    const ms = rest % MS_PER_S;
    rest = (rest - ms) / MS_PER_S;
    const second = rest % 60;
    rest = (rest - second) / 60;
    const minute = rest % 60;
    const hour = (rest - minute) / 60;
    return `"${dayTextLast}${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}.` +
      `${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}+0000"`;
  };
}
