// Reads a row file (expimp-row-file.ts) line by line: the header up to and with the `"$"` line,
// then one row per line, each checked with the engine's row validator. A problem is an
// ImportProblem naming the file, the 1-based line and the 1-based column (cell), so a user can
// find it; a reader holds one chunk of the file and one line.

import { createReadStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isStorageError } from '../lib/base/errors.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import { parseRowLine, RowProblem } from './expimp-row-file.ts';

/** Bytes read from a row file at a time. */
const READ_CHUNK_BYTES = 1 << 16;
const CR = 13;

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
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch {
    throw new ImportProblem(file, 0, 0, 'the row file cannot be read');
  }
  let lineNumber = 0;
  let inHeader = true;
  try {
    for await (const lines of linesOf(stream as AsyncIterable<string>)) for (const line of lines) {
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
    stream.destroy();
  }
  if (inHeader) throw new ImportProblem(file, lineNumber, 1, 'no "$" line: the file ends in its header');
}

/**
 * The lines of a text stream, split as node:readline does with crlfDelay Infinity (at LF, CRLF or a
 * lone CR; no empty last line after a final break), a chunk's lines at a time: one indexOf per
 * line instead of readline's regular expression and an event per line.
 */
export async function* linesOf(stream: AsyncIterable<string>): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of stream) {
    const text = rest === '' ? chunk : rest + chunk;
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      pushSplitAtCr(lines, text.slice(start, end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end));
      start = end + 1;
    }
    rest = text.slice(start);
    yield lines;
  }
  if (rest === '') return;
  const lines: string[] = [];
  pushSplitAtCr(lines, rest.endsWith('\r') ? rest.slice(0, -1) : rest);
  yield lines;
}

/** A line holding a lone CR is two lines for readline: the same here (a row line never holds one). */
function pushSplitAtCr(lines: string[], line: string): void {
  if (line.includes('\r')) lines.push(...line.split('\r'));
  else lines.push(line);
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
