// A started statement as the session sends it: rows (RowDescription, DataRow pages, a row count
// in the tag) or a command's tag, whether it ran in the engine (a page source) or here (rows in
// hand). Rows are sent in each column's result format: text unless the client asked for binary.

import { PG_FETCH_ROW_COUNT } from '../base/limits.ts';
import type { Row } from '../schema/column-type.ts';
import type { PgLocalResult } from './pg-catalog.ts';
import type { PgBackendWriter } from './pg-frames.ts';
import type { PgColumn, PgRowSource, PgSqlResult } from './pg-sql-backend.ts';
import { pgDoubleCells } from './pg-double-cells.ts';
import { pgBinaryOf, pgTextOf, pgTypeOf } from './pg-types.ts';

export type PgStarted =
  | { kind: 'rows'; columns: PgColumn[]; source: PgRowSource }
  | { kind: 'command'; tag: string };

export function startedOfLocal(result: PgLocalResult): PgStarted {
  if (result.tag !== undefined) return { kind: 'command', tag: result.tag };
  let rows: Row[] | undefined = result.rows as Row[];
  return {
    kind: 'rows', columns: result.columns,
    source: {
      async next(rowCountMax) {
        const all = rows ?? [];
        const page = all.slice(0, rowCountMax);
        rows = all.slice(rowCountMax);
        return { rows: page, done: rows.length === 0 };
      },
      async close() { rows = undefined; },
    },
  };
}

/** CommandComplete's tag of a statement the engine ran, from its first words. */
export function startedOfSql(result: PgSqlResult, statementWords: string[]): PgStarted {
  if (result.kind === 'rows') return { kind: 'rows', columns: result.columns, source: result.rows };
  const [first = '', second = ''] = statementWords;
  const count = result.updateCount;
  switch (first) {
    case 'INSERT': return { kind: 'command', tag: `INSERT 0 ${count}` };
    case 'UPDATE': case 'DELETE': return { kind: 'command', tag: `${first} ${count}` };
    case 'CREATE': case 'DROP': case 'ALTER':
      return { kind: 'command', tag: second === '' ? first : `${first} ${second}` };
    default: return { kind: 'command', tag: first === '' ? 'OK' : first };
  }
}

/** Format codes of a Bind as one per column: none all text, one for all, else each its own. */
export function columnFormats(formats: readonly number[], columnCount: number): number[] {
  return Array.from({ length: columnCount }, (_v, i) =>
    formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : formats[i] ?? 0);
}

export function writeRowDescription(out: PgBackendWriter, columns: readonly PgColumn[],
  formats: readonly number[]): void {
  out.begin('T').int16(columns.length);
  columns.forEach((column, i) => {
    const type = pgTypeOf(column.type);
    out.cstring(column.name).int32(0).int16(0).int32(type.oid).int16(type.sizeBytes)
      .int32(type.typmod).int16(formats[i] ?? 0);
  });
  out.end();
}

const ASCII_TEXT_TYPES: ReadonlySet<string> = new Set(['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT',
  'DOUBLE', 'TIMESTAMP', 'TIMESTAMP(6)', 'TIMESTAMP(9)', 'BLOB']);

export function writeDataRows(out: PgBackendWriter, columns: readonly PgColumn[], formats: readonly number[],
  rows: readonly Row[]): void {
  const columnCount = columns.length;
  const types = columns.map((column) => column.type);
  /** 1: text that may be beyond ASCII (STRING and what is shown as text); numbers, times, hex are ASCII. */
  const utf8 = Uint8Array.from(types, (type) => (ASCII_TEXT_TYPES.has(type) ? 0 : 1));
  // A text DOUBLE column's cells of the whole page, formatted at once (pg-double-cells.ts).
  const doubles = types.map((type, i) => (type === 'DOUBLE' && formats[i] !== 1
    ? pgDoubleCells(rows.map((row) => row[i]), rows.length) : undefined));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    out.begin('D').int16(columnCount);
    for (let i = 0; i < columnCount; i++) {
      const value = row[i];
      const cells = doubles[i];
      if (value === null || value === undefined) {
        out.int32(-1);
      } else if (cells !== undefined) {
        out.lengthSlice(cells.bytes, cells.starts[r]!, cells.ends[r]!);
      } else if (formats[i] === 1) {
        const bytes = pgBinaryOf(types[i]!, value);
        out.int32(bytes.byteLength).bytes(bytes);
      } else if (utf8[i] === 1) {
        out.lengthText(pgTextOf(types[i]!, value));
      } else {
        out.lengthAscii(pgTextOf(types[i]!, value));
      }
    }
    out.end();
  }
}

/** Rows per engine page: what one DataRow batch sends between flushes. */
export const PG_PAGE_ROW_COUNT = PG_FETCH_ROW_COUNT;
