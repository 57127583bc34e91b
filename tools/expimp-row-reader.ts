// Reads a row file (expimp-row-file.ts) line by line: the header up to and with the `"$"` line,
// then one row per line, each checked with the engine's row validator. A problem is an
// ImportProblem naming the file, the 1-based line and the 1-based column (cell), so a user can
// find it; a reader never holds more than one line.

import { createReadStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { isStorageError } from '../lib/base/errors.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import { parseRowLine, RowProblem } from './expimp-row-file.ts';

export class ImportProblem extends Error {
  constructor(readonly file: string, readonly lineNumber: number, readonly columnNumber: number,
    problem: string) {
    super(`${file}:${lineNumber}:${columnNumber}: ${problem}`);
  }
}

export interface RowAt {
  lineNumber: number;
  row: Row;
}

/** The rows of `path`, validated; throws ImportProblem at the first bad line. */
export async function* readRowFile(
  path: string,
  columns: readonly ColumnSchema[],
  validateRow: (row: unknown) => Row,
): AsyncGenerator<RowAt> {
  const file = basename(path);
  const directory = dirname(path);
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch {
    throw new ImportProblem(file, 0, 0, 'the row file cannot be read');
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  let inHeader = true;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (inHeader) {
        if (line.startsWith('"$"')) inHeader = false;
        else if (!line.startsWith('"#') && !line.startsWith('"%"')) {
          throw new ImportProblem(file, lineNumber, 1, 'expected a header line ("#…", "%" or "$") before the rows');
        }
        continue;
      }
      yield { lineNumber, row: rowOfLine(columns, line, { directory, validateRow, file, lineNumber }) };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (inHeader) throw new ImportProblem(file, lineNumber, 1, 'no "$" line: the file ends in its header');
}

function rowOfLine(
  columns: readonly ColumnSchema[],
  line: string,
  at: { directory: string; validateRow: (row: unknown) => Row; file: string; lineNumber: number },
): Row {
  let row: Row;
  try {
    row = parseRowLine(columns, line, at.directory);
  } catch (error) {
    if (!(error instanceof RowProblem)) throw error;
    throw new ImportProblem(at.file, at.lineNumber, error.columnNumber, error.message);
  }
  try {
    return at.validateRow(row);
  } catch (error) {
    if (!isStorageError(error)) throw error;
    throw new ImportProblem(at.file, at.lineNumber, columnOfMessage(columns, error.message), error.message);
  }
}

/** The validator names a column in its message; point at that column when it does. */
function columnOfMessage(columns: readonly ColumnSchema[], message: string): number {
  const index = columns.findIndex((column) => message.includes(`"${column.name}"`));
  return index < 0 ? 1 : index + 1;
}
