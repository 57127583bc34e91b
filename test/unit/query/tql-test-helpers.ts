// Helpers of the TQL unit tests: evaluate one expression against a row of a small schema, run a
// query over rows held in memory (no engine), and check the code and position of a TqlError.

import assert from 'node:assert/strict';
import { StorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import { Binder } from '../../../lib/query/tql/bind.ts';
import { compileExpression } from '../../../lib/query/tql/compile.ts';
import { TqlError } from '../../../lib/query/tql/error.ts';
import {
  executeTql,
  type TqlExecuteOptions,
  type TqlResult,
  type TqlRowSource,
} from '../../../lib/query/tql/execute.ts';
import { parseTql } from '../../../lib/query/tql/parser.ts';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import type { TqlValue } from '../../../lib/query/tql/types.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowKeyOps } from '../../../lib/schema/row-key.ts';

/** 2026-01-01T00:00:00Z in ms. */
export const NOW_MS = 1_767_225_600_000;

/** A collection keyed by INTEGER id, with one column of most types. */
export const SAMPLE: ContainerSchema = {
  name: 'sample',
  type: 'COLLECTION',
  rowKeyColumnCount: 1,
  indexes: [],
  schemaVersion: 1,
  columns: [
    { name: 'id', type: 'INTEGER', array: false, notNull: true },
    { name: 'b', type: 'BOOL', array: false, notNull: false },
    { name: 's', type: 'STRING', array: false, notNull: false },
    { name: 'i', type: 'INTEGER', array: false, notNull: false },
    { name: 'l', type: 'LONG', array: false, notNull: false },
    { name: 'f', type: 'FLOAT', array: false, notNull: false },
    { name: 'd', type: 'DOUBLE', array: false, notNull: false },
    { name: 't', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'MILLISECOND' },
    { name: 'tn', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'NANOSECOND' },
    { name: 'la', type: 'LONG', array: true, notNull: false },
    { name: 'blob', type: 'BLOB', array: false, notNull: false },
  ],
};

/** A SAMPLE row: every column NULL unless given. */
export function sampleRow(values: Partial<Record<string, TqlValue>>, id = 1): Row {
  return SAMPLE.columns.map((column) =>
    column.name === 'id' ? id : (values[column.name] ?? null),
  );
}

/** Evaluates `expression` (TQL) on `row` of `schema`. */
export function evaluate(expression: string, row: Row = sampleRow({}), schema = SAMPLE): TqlValue {
  const statement = parseTql(`SELECT * WHERE ${expression}`);
  const binder = new Binder({ schema, nowMs: NOW_MS });
  return compileExpression(binder.expression(statement.where!))(row);
}

/** The value of any expression (not only a condition) on `row`. */
export function valueOf(expression: string, row: Row = sampleRow({}), schema = SAMPLE): TqlValue {
  const where = parseTql(`SELECT * WHERE (${expression}) IS NULL`).where!;
  assert.ok(where.kind === 'isNull');
  const binder = new Binder({ schema, nowMs: NOW_MS });
  return compileExpression(binder.expression(where.operand))(row);
}

/** Rows of a schema in memory, in row-key order, as the engine's source would hand them out. */
export function memorySource(schema: ContainerSchema, input: readonly Row[]): TqlRowSource {
  const keys = rowKeyOps(schema);
  const keyed = schema.rowKeyColumnCount > 0;
  const ordered = keyed ? [...input].sort((a, b) => keys.compareRows(a, b)) : [...input];
  const keyOf = (row: Row, index: number) => (keyed ? keys.keyOf(row) : index);
  return {
    *pages(scan) {
      let entries = ordered.map((row, index) => ({ row, key: keyOf(row, index) }));
      entries = entries.filter(
        ({ key }) =>
          (scan.from === undefined || keys.compare(key, scan.from) >= 0) &&
          (scan.to === undefined || keys.compare(key, scan.to) <= 0),
      );
      if (scan.direction === 'desc') entries.reverse();
      if (scan.after !== undefined) {
        const after = scan.after;
        const sign = scan.direction === 'asc' ? 1 : -1;
        entries = entries.filter(({ key }) => sign * keys.compare(key, after) > 0);
      }
      // Pages of 3 rows: page edges get exercised.
      for (let i = 0; i < entries.length; i += 3) {
        const page = entries.slice(i, i + 3);
        yield { rows: page.map((entry) => entry.row), positionAt: (index) => page[index]!.key };
      }
    },
  };
}

export function runTql(
  schema: ContainerSchema,
  rows: readonly Row[],
  tql: string,
  options: TqlExecuteOptions = {},
): TqlResult {
  return executeTql(
    prepareTql(tql, schema, { nowMs: NOW_MS }),
    memorySource(schema, rows),
    options,
  );
}

/** The rows of a rows result. */
export function resultRows(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

/** For assert.throws: a StorageError with `code`, and when given a TqlError at line:column. */
export function tqlError(
  code: StorageErrorCode,
  where?: { line?: number; column: number },
  message?: RegExp,
) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, `expected ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    if (where !== undefined) {
      assert.ok(
        error instanceof TqlError && error.position !== undefined,
        `no position: ${error.message}`,
      );
      assert.equal(error.position.column, where.column, error.message);
      assert.equal(error.position.line, where.line ?? 1, error.message);
    }
    return true;
  };
}
