// A container's row file, written and read one line at a time (memory stays bounded by a line
// and a BLOB): the header lines, then one line per row (expimp-csv-line.ts), cells printed by
// expimp-values.ts. Cells that cannot be a line's text go to external files beside it, named
// `<stem>_<row>_<column>.<kind>` (row and column 0-based) and referenced as `@<KIND>:<file>`:
// every BLOB, and a STRING or GEOMETRY with CR or LF in it or starting with `@` (so that a string
// is never read as a reference).

import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { Row, ScalarValue, Value } from '../lib/schema/column-type.ts';
import { parseLine, printLine, quoteCell } from './expimp-csv-line.ts';
import { parseArray, parseScalar, printArray, printScalar, ValueProblem } from './expimp-values.ts';

const VERSION_LINE = 'GridDB V5.8.00';
const EXTERNAL_REFERENCE = /^@(BLOB|STRING|GEOMETRY|[A-Z]+_ARRAY):(.+)$/;
const AT = 0x40;

/** The lines a row file opens with. */
export function rowFileHeader(options: {
  startIso: string; user: string; metafile: string; containerLabel: string;
}): string {
  return [
    quoteCell(`#${options.startIso}  ${VERSION_LINE}`),
    quoteCell(`#User:${options.user}`),
    `${quoteCell('%')},${quoteCell(options.metafile)}`,
    `${quoteCell('$')},${quoteCell(options.containerLabel)}`,
  ].join('\n') + '\n';
}

/** A row as its line; external cells are written to `directory` now. */
export function rowLine(
  columns: readonly ColumnSchema[],
  row: Row,
  place: { directory: string; stem: string; rowIndex: number },
): string {
  const cells: Array<string | null> = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) cells[i] = cellText(columns[i]!, i, row[i], place);
  return printLine(cells) + '\n';
}

/** A cell before quoting (null for NULL); an external cell's file is written now. */
export function cellText(
  column: ColumnSchema,
  columnIndex: number,
  value: Value | null | undefined,
  place: { directory: string; stem: string; rowIndex: number },
): string | null {
  if (value === null || value === undefined) return null;
  if (column.array) return printArray(column, value as ScalarValue[]);
  if (column.type === 'BLOB') return externalCell(place, columnIndex, 'BLOB', value as Uint8Array);
  if ((column.type === 'STRING' || column.type === 'GEOMETRY') && /^@|[\r\n]/.test(value as string)) {
    return externalCell(place, columnIndex, column.type, Buffer.from(value as string, 'utf8'));
  }
  return printScalar(column, value as ScalarValue);
}

function externalCell(
  place: { directory: string; stem: string; rowIndex: number },
  columnIndex: number,
  kind: string,
  bytes: Uint8Array,
): string {
  const file = `${place.stem}_${place.rowIndex}_${columnIndex}.${kind.toLowerCase()}`;
  writeFileSync(join(place.directory, file), bytes);
  return `@${kind}:${file}`;
}

/** A data line's problem, with the 1-based column of the cell (or character) that has it. */
export class RowProblem extends Error {
  constructor(message: string, readonly columnNumber: number) {
    super(message);
  }
}

/** A data line back to a row of the columns' values (external files read from `directory`). */
export function parseRowLine(columns: readonly ColumnSchema[], line: string, directory: string): Row {
  let cells: Array<string | null>;
  try {
    cells = parseLine(line);
  } catch (error) {
    const problem = error as Error & { columnNumber?: number };
    throw new RowProblem(problem.message, problem.columnNumber ?? 1);
  }
  if (cells.length !== columns.length) {
    throw new RowProblem(`${cells.length} cells, the container has ${columns.length} columns`,
      Math.min(cells.length, columns.length) + 1);
  }
  const row: Row = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const cell = cells[i]!;
    try {
      row[i] = cell === null ? null : cellValue(columns[i]!, cell, directory);
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      throw new RowProblem(`column ${JSON.stringify(columns[i]!.name)}: ${error.message}`, i + 1);
    }
  }
  return row;
}

function cellValue(column: ColumnSchema, cell: string, directory: string): Value {
  // Only a cell starting with `@` can be a reference: no regular expression for the others.
  const reference = cell.charCodeAt(0) === AT ? EXTERNAL_REFERENCE.exec(cell) : null;
  if (reference !== null && (column.type === 'BLOB' || column.type === 'STRING' ||
    column.type === 'GEOMETRY' || column.array)) {
    const bytes = externalRead(directory, reference[2]!);
    if (column.type === 'BLOB' && !column.array) return new Uint8Array(bytes);
    const text = bytes.toString('utf8');
    if (column.array) return parseArray(column, text.startsWith('[') ? text : `[${text}]`);
    return text;
  }
  if (column.type === 'BLOB') throw new ValueProblem('a BLOB cell is a file reference (@BLOB:<file>)');
  return column.array ? parseArray(column, cell) : parseScalar(column, cell);
}

function externalRead(directory: string, file: string): Buffer {
  if (basename(file) !== file) throw new ValueProblem(`external file ${JSON.stringify(file)} is not a plain name`);
  try {
    return readFileSync(join(directory, file));
  } catch {
    throw new ValueProblem(`external file ${JSON.stringify(file)} cannot be read`);
  }
}
