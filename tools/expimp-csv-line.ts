// One line of a GridDB export row file (spec/surface.md §7.6): cells separated by commas, each
// double-quoted, `\` and `"` escaped with a backslash. NULL is a cell with nothing in it, not even
// quotes ("" is the empty string), so the two stay apart. A line never holds CR or LF: a string
// with them goes to an external file (expimp-row-file.ts), so a record is exactly one line and a
// reader can stream a file line by line.
//
//   "#2026-01-01T00:00:00.000+0000  GridDB V5.8.00"     header lines start with "#
//   "%","public.c001_properties.json"                    the metadata file
//   "$","public.c001"                                    the container
//   "1","Tokyo",,"2016-12-25T00:22:30.000+0900"          rows (the third cell is NULL)

export class LineProblem extends Error {
  constructor(message: string, readonly columnNumber: number) {
    super(message);
  }
}

export function quoteCell(text: string): string {
  return `"${text.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/** A row's cells (null for NULL) as one line, without its end. */
export function printLine(cells: ReadonlyArray<string | null>): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    const cell = cells[i]!;
    if (cell !== null) line += quoteCell(cell);
  }
  return line;
}

/** The cells of a line; LineProblem with the 1-based column (character) where it went wrong. */
export function parseLine(line: string): Array<string | null> {
  const cells: Array<string | null> = [];
  let i = 0;
  // Most lines have no escape: then each cell is one indexOf, and the line is scanned once.
  let backslashNext = line.indexOf('\\');
  for (;;) {
    if (i === line.length || line[i] === ',') {
      cells.push(null);
    } else if (line[i] === '"') {
      // Copy the runs between escapes whole: a cell is scanned once, not rebuilt a character at a time.
      let text = '';
      let start = i + 1;
      for (;;) {
        const quote = line.indexOf('"', start);
        if (quote < 0) throw new LineProblem('a quoted cell is not closed', line.length + 1);
        if (backslashNext >= 0 && backslashNext < start) backslashNext = line.indexOf('\\', start);
        const backslash = backslashNext;
        if (backslash < 0 || backslash > quote) {
          text += line.slice(start, quote);
          i = quote;
          break;
        }
        const next = line[backslash + 1];
        if (next !== '\\' && next !== '"') {
          throw new LineProblem('a backslash escapes only \\ and "', backslash + 1);
        }
        text += line.slice(start, backslash) + next;
        start = backslash + 2;
      }
      i++;
      cells.push(text);
    } else {
      throw new LineProblem('a cell is double-quoted or empty (NULL)', i + 1);
    }
    if (i === line.length) return cells;
    if (line[i] !== ',') throw new LineProblem('expected a comma after a cell', i + 1);
    i++;
  }
}
