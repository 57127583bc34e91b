// Plain CSV for `--csv` (users coming from other databases): RFC 4180, a header row of column
// names, a field quoted only when it holds a comma, a quote, CR or LF, a quote doubled inside. As
// PostgreSQL's CSV: an empty unquoted field is NULL, `""` the empty string. Values print as in
// the export format (expimp-values.ts), except BLOB, which is base64 here (no side files).
//
// The reader is a state machine over the file's chunks, so a record may span lines (a quoted LF)
// and memory holds one record; it yields each record with the line it starts on.

import { createReadStream } from 'node:fs';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { Row, ScalarValue, Value } from '../lib/schema/column-type.ts';
import { parseArray, parseScalar, printArray, printScalar } from './expimp-values.ts';

/** Characters one field may hold: a record beyond this is refused, not buffered. */
export const CSV_FIELD_LENGTH_MAX = 64 * 1024 * 1024;

export function csvField(text: string | null): string {
  if (text === null) return '';
  if (text === '' || /[",\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

export function csvRecord(columns: readonly ColumnSchema[], row: Row): string {
  return row.map((value, i) => csvField(csvText(columns[i]!, value))).join(',') + '\n';
}

function csvText(column: ColumnSchema, value: Value | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (column.array) return printArray(column, value as ScalarValue[]);
  if (column.type === 'BLOB') return Buffer.from(value as Uint8Array).toString('base64');
  return printScalar(column, value as ScalarValue);
}

/** A field's text (null for NULL) back to a value of the column. */
export function csvValue(column: ColumnSchema, text: string | null): Value {
  if (text === null) return null;
  if (column.array) return parseArray(column, text);
  if (column.type === 'BLOB') return new Uint8Array(Buffer.from(text, 'base64'));
  return parseScalar(column, text);
}

export class CsvProblem extends Error {
  constructor(message: string, readonly lineNumber: number) {
    super(message);
  }
}

/** The records of a CSV file, each with the 1-based line it starts on. */
export async function* readCsvRecords(path: string): AsyncGenerator<{
  lineNumber: number; fields: Array<string | null>;
}> {
  let fields: Array<string | null> = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let afterQuote = false;
  let lineNumber = 1;
  let recordLine = 1;
  let pendingCr = false;
  for await (const chunk of createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>) {
    for (let i = 0; i < chunk.length; i++) {
      const character = chunk[i]!;
      if (pendingCr) {
        pendingCr = false;
        if (character === '\n') continue;
      }
      if (inQuotes) {
        if (character === '"') {
          inQuotes = false;
          afterQuote = true;
        } else {
          if (character === '\n') lineNumber++;
          field += character;
        }
        if (field.length > CSV_FIELD_LENGTH_MAX) throw new CsvProblem('a field is too long', recordLine);
        continue;
      }
      if (character === '"') {
        if (afterQuote) {
          field += '"';
          inQuotes = true;
          afterQuote = false;
        } else if (field === '' && !quoted) {
          quoted = true;
          inQuotes = true;
        } else {
          throw new CsvProblem(`a quote inside an unquoted field (field ${fields.length + 1})`, lineNumber);
        }
        continue;
      }
      if (character === ',' || character === '\n' || character === '\r') {
        fields.push(quoted || field !== '' ? field : null);
        field = '';
        quoted = false;
        afterQuote = false;
        if (character === ',') continue;
        if (character === '\r') pendingCr = true;
        yield { lineNumber: recordLine, fields };
        fields = [];
        lineNumber++;
        recordLine = lineNumber;
        continue;
      }
      if (afterQuote) {
        throw new CsvProblem(`text after a closing quote (field ${fields.length + 1})`, lineNumber);
      }
      field += character;
      if (field.length > CSV_FIELD_LENGTH_MAX) throw new CsvProblem('a field is too long', recordLine);
    }
  }
  if (inQuotes) throw new CsvProblem('a quoted field is not closed at the end of the file', recordLine);
  if (fields.length > 0 || field !== '' || quoted) {
    fields.push(quoted || field !== '' ? field : null);
    yield { lineNumber: recordLine, fields };
  }
}
