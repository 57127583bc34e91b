// Vectorised evaluation: a bound expression over a whole batch at once, one column of values per
// node, each node one tight loop over the batch (no per-row tree walk). A value error (overflow,
// division by zero, a function's bad input) names the expression's place in the text.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { SqlError } from '../errors.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import type { SqlBoundExpression, SqlCompareOperator } from '../plan/bound-expression.ts';
import type { SqlColumn, SqlType, SqlValue } from '../value.ts';
import {
  arithmeticDouble, arithmeticLong, compareSqlValues, concatText, negateLong, widenValue,
} from './value-ops.ts';

/** What a subquery's evaluation adds to the context (execute-subquery.ts fills it). */
export interface SqlSubqueryEvalContext extends SqlEvalContext {
  /** The enclosing query's values of the current row, read by `outer` expressions. */
  readonly outerValues?: readonly SqlValue[];
  /** Each subquery expression's values over the batch being evaluated. */
  readonly subqueryValues?: ReadonlyMap<SqlBoundExpression, readonly SqlValue[]>;
}

export type { SqlColumn };

/** Rows in column form: columns[c][r]. */
export interface SqlBatch {
  readonly rowCount: number;
  readonly columns: readonly SqlColumn[];
}

export function evaluate(
  expression: SqlBoundExpression,
  batch: SqlBatch,
  context: SqlEvalContext,
): SqlColumn {
  const n = batch.rowCount;
  switch (expression.kind) {
    case 'column': return batch.columns[expression.index]!;
    case 'outer': {
      const values = (context as SqlSubqueryEvalContext).outerValues;
      assert(values !== undefined && expression.index < values.length);
      return new Array<SqlValue>(n).fill(values[expression.index]!);
    }
    case 'subquery': {
      // Computed before, for this batch (execute-subquery.ts): evaluation here stays synchronous.
      const values = (context as SqlSubqueryEvalContext).subqueryValues?.get(expression);
      if (values === undefined) {
        throw new SqlError('NOT_SUPPORTED', 'a subquery is not supported in this place yet', expression.position);
      }
      assert(values.length === n);
      return values;
    }
    case 'constant': return new Array<SqlValue>(n).fill(expression.value);
    case 'widen': {
      const values = evaluate(expression.operand, batch, context);
      const from = expression.operand.type;
      const out = new Array<SqlValue>(n);
      for (let i = 0; i < n; i++) out[i] = widenValue(values[i]!, from, expression.type);
      return out;
    }
    case 'unary': {
      const values = evaluate(expression.operand, batch, context);
      const out = new Array<SqlValue>(n);
      return atPosition(expression.position, () => {
        for (let i = 0; i < n; i++) {
          const v = values[i]!;
          if (v === null) out[i] = null;
          else if (expression.operator === 'NOT') out[i] = !(v as boolean);
          else if (expression.operator === '~') out[i] = BigInt.asIntN(64, ~BigInt(v as number | bigint));
          else if (expression.type === 'DOUBLE') out[i] = -(v as number);
          else out[i] = negateLong(v as number | bigint);
        }
        return out;
      });
    }
    case 'arithmetic': {
      const left = evaluate(expression.left, batch, context);
      const right = evaluate(expression.right, batch, context);
      const out = new Array<SqlValue>(n);
      const { operator } = expression;
      return atPosition(expression.position, () => {
        if (expression.type === 'DOUBLE') {
          for (let i = 0; i < n; i++) {
            const a = left[i]!;
            const b = right[i]!;
            out[i] = a === null || b === null ? null : arithmeticDouble(operator, Number(a), Number(b));
          }
        } else {
          for (let i = 0; i < n; i++) {
            const a = left[i]!;
            const b = right[i]!;
            out[i] = a === null || b === null ? null
              : arithmeticLong(operator, a as number | bigint, b as number | bigint);
          }
        }
        return out;
      });
    }
    case 'compare': {
      const test = COMPARE_TESTS[expression.operator];
      const out = new Array<SqlValue>(n);
      if (expression.right.kind === 'constant') {
        // `column op constant`, the common WHERE: no column of copies of the constant.
        const left = evaluate(expression.left, batch, context);
        const b = expression.right.value;
        if (b === null) return out.fill(null);
        if (left instanceof Float64Array && typeof b === 'number' && b === b) {
          // Numbers without NULLs against a number: compareSqlValues's order (NaN above all)
          // without its type tests.
          for (let i = 0; i < n; i++) {
            const a = left[i]!;
            out[i] = test(a < b ? -1 : a > b ? 1 : a === b ? 0 : 1);
          }
          return out;
        }
        for (let i = 0; i < n; i++) {
          const a = left[i]!;
          out[i] = a === null ? null : test(compareSqlValues(a, b));
        }
        return out;
      }
      const left = evaluate(expression.left, batch, context);
      const right = evaluate(expression.right, batch, context);
      for (let i = 0; i < n; i++) {
        const a = left[i]!;
        const b = right[i]!;
        out[i] = a === null || b === null ? null : test(compareSqlValues(a, b));
      }
      return out;
    }
    case 'logic': {
      const left = evaluate(expression.left, batch, context);
      const right = evaluate(expression.right, batch, context);
      const out = new Array<SqlValue>(n);
      const and = expression.operator === 'AND';
      for (let i = 0; i < n; i++) out[i] = and ? and3(left[i]!, right[i]!) : or3(left[i]!, right[i]!);
      return out;
    }
    case 'concat': {
      const left = evaluate(expression.left, batch, context);
      const right = evaluate(expression.right, batch, context);
      const lt = expression.left.type;
      const rt = expression.right.type;
      const out = new Array<SqlValue>(n);
      for (let i = 0; i < n; i++) {
        const a = left[i]!;
        const b = right[i]!;
        out[i] = a === null || b === null ? null : concatText(a, lt) + concatText(b, rt);
      }
      return out;
    }
    case 'is': {
      const left = evaluate(expression.left, batch, context);
      const right = evaluate(expression.right, batch, context);
      const out = new Array<SqlValue>(n);
      for (let i = 0; i < n; i++) {
        const a = left[i]!;
        const b = right[i]!;
        const same = a === null || b === null ? a === b : compareSqlValues(a, b) === 0;
        out[i] = same !== expression.negated;
      }
      return out;
    }
    case 'isNull': {
      const values = evaluate(expression.operand, batch, context);
      const out = new Array<SqlValue>(n);
      for (let i = 0; i < n; i++) out[i] = (values[i] === null) !== expression.negated;
      return out;
    }
    case 'in': {
      const operand = evaluate(expression.operand, batch, context);
      const out = new Array<SqlValue>(n);
      if (expression.list.every((item) => item.kind === 'constant')) {
        // A list of constants (the usual IN): compared as values, not as columns of copies.
        const items = expression.list.map((item) => (item as { value: SqlValue }).value);
        const hasNull = items.includes(null);
        for (let i = 0; i < n; i++) {
          const v = operand[i]!;
          let result: boolean | null = v === null && items.length > 0 ? null : false;
          if (v !== null) {
            for (const item of items) {
              if (item !== null && compareSqlValues(v, item) === 0) { result = true; break; }
            }
            if (result === false && hasNull) result = null;
          }
          out[i] = result === null ? null : result !== expression.negated;
        }
        return out;
      }
      const lists = expression.list.map((item) => evaluate(item, batch, context));
      for (let i = 0; i < n; i++) {
        const v = operand[i]!;
        // x IN (...) is TRUE on a match, NULL when x or an unmatched item is NULL, else FALSE.
        let result: boolean | null = v === null && lists.length > 0 ? null : false;
        if (v !== null) {
          for (const list of lists) {
            const item = list[i]!;
            if (item === null) result = null;
            else if (compareSqlValues(v, item) === 0) { result = true; break; }
          }
        }
        out[i] = result === null ? null : result !== expression.negated;
      }
      return out;
    }
    case 'case': {
      // Each condition sees only the rows no branch took yet, each result only the rows its
      // condition took: a branch no row reaches is never evaluated (`ELSE 1/0` fails only if taken).
      const out = new Array<SqlValue>(n).fill(null);
      let rows: number[] = Array.from({ length: n }, (_v, i) => i);
      for (const { when, then } of expression.whens) {
        if (rows.length === 0) return out;
        const conditions = evaluate(when, rowsOf(batch, rows), context);
        const taken: number[] = [];
        const left: number[] = [];
        for (let i = 0; i < rows.length; i++) (conditions[i] === true ? taken : left).push(rows[i]!);
        if (taken.length > 0) {
          const results = evaluate(then, rowsOf(batch, taken), context);
          for (let i = 0; i < taken.length; i++) out[taken[i]!] = results[i]!;
        }
        rows = left;
      }
      if (expression.otherwise !== undefined && rows.length > 0) {
        const results = evaluate(expression.otherwise, rowsOf(batch, rows), context);
        for (let i = 0; i < rows.length; i++) out[rows[i]!] = results[i]!;
      }
      return out;
    }
    case 'call': {
      const args = expression.args.map((arg) => evaluate(arg, batch, context));
      const types: SqlType[] = expression.args.map((arg) => arg.type);
      const definition = expression.function;
      const column = definition.evaluateColumns?.(args, types, context, n);
      if (column !== undefined) return column;
      const out = new Array<SqlValue>(n);
      const row = new Array<SqlValue>(args.length);
      return atPosition(expression.position, () => {
        for (let i = 0; i < n; i++) {
          for (let a = 0; a < args.length; a++) row[a] = args[a]![i]!;
          out[i] = definition.evaluate(row, types, context);
        }
        return out;
      });
    }
  }
}

const COMPARE_TESTS = {
  '=': (c: number) => c === 0,
  '!=': (c: number) => c !== 0,
  '<': (c: number) => c < 0,
  '<=': (c: number) => c <= 0,
  '>': (c: number) => c > 0,
  '>=': (c: number) => c >= 0,
} as const;

function and3(a: SqlValue, b: SqlValue): SqlValue {
  if (a === false || b === false) return false;
  if (a === null || b === null) return null;
  return true;
}

function or3(a: SqlValue, b: SqlValue): SqlValue {
  if (a === true || b === true) return true;
  if (a === null || b === null) return null;
  return false;
}

/** Adds the place in the text to a value error of one expression. */
function atPosition<T>(position: SqlExpressionPosition, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof StorageError && !(error instanceof SqlError)) {
      throw new SqlError(error.code, error.message, position, { cause: error });
    }
    throw error;
  }
}

type SqlExpressionPosition = Extract<SqlBoundExpression, { kind: 'call' }>['position'];

/** Rows whose predicate value is TRUE (not FALSE, not NULL). */
/** The batch's rows at `rows` (ascending), the batch itself when that is all of them. */
function rowsOf(batch: SqlBatch, rows: readonly number[]): SqlBatch {
  if (rows.length === batch.rowCount) return batch;
  return {
    rowCount: rows.length,
    columns: batch.columns.map((column) => (column.length === 0 ? column : gather(column, rows))),
  };
}

/** column's values at `rows`, a typed column staying typed. */
export function gather(column: SqlColumn, rows: readonly number[]): SqlColumn {
  const out = column instanceof Float64Array ? new Float64Array(rows.length) : new Array<SqlValue>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = column[rows[i]!]!;
  return out;
}

/**
 * The rows where `predicate` is TRUE, as selectRows(batch, evaluate(predicate)) gives them. An
 * AND's conjuncts are taken one after the other into one mask (a row stays when each is TRUE,
 * which is when the AND is TRUE; each is evaluated over the whole batch, left to right, as the AND
 * evaluates its sides, so the same errors surface); a `typed column op number` conjunct is one loop
 * over the Float64Array, with no column of booleans.
 */
export function filterRows(batch: SqlBatch, predicate: SqlBoundExpression, context: SqlEvalContext): SqlBatch {
  const conjuncts: SqlBoundExpression[] = [];
  const flatten = (e: SqlBoundExpression): void => {
    if (e.kind === 'logic' && e.operator === 'AND') {
      flatten(e.left);
      flatten(e.right);
    } else conjuncts.push(e);
  };
  flatten(predicate);
  if (conjuncts.length === 1 && typedComparison(conjuncts[0]!, batch) === undefined) {
    return selectRows(batch, evaluate(predicate, batch, context));
  }
  const n = batch.rowCount;
  const keep = new Uint8Array(n).fill(1);
  for (const conjunct of conjuncts) {
    const typed = typedComparison(conjunct, batch);
    if (typed !== undefined) {
      maskTypedComparison(typed.values, typed.operator, typed.b, keep, n);
    } else {
      const values = evaluate(conjunct, batch, context);
      for (let i = 0; i < n; i++) if (values[i] !== true) keep[i] = 0;
    }
  }
  let keptCount = 0;
  for (let i = 0; i < n; i++) keptCount += keep[i]!;
  if (keptCount === n) return batch;
  const run = keptRun(keep, keptCount);
  if (run !== undefined) return sliceRows(batch, run, run + keptCount);
  const rows = new Array<number>(keptCount);
  for (let i = 0, k = 0; i < n; i++) if (keep[i] === 1) rows[k++] = i;
  return rowsOf(batch, rows);
}

/**
 * Where the kept rows start when they are one run (a time bound cuts a host's rows at one place),
 * else undefined (none kept, or more than one run).
 */
function keptRun(keep: Uint8Array, keptCount: number): number | undefined {
  if (keptCount === 0) return undefined;
  const first = keep.indexOf(1);
  for (let i = first + 1; i < first + keptCount; i++) if (keep[i] !== 1) return undefined;
  return first;
}

/** Rows start..end of the batch: typed columns as views (subarray), the rest sliced. */
function sliceRows(batch: SqlBatch, start: number, end: number): SqlBatch {
  assert(start >= 0 && start < end);
  assert(end <= batch.rowCount);
  return {
    rowCount: end - start,
    // An empty column is one the scan did not read: it stays empty.
    columns: batch.columns.map((column) => (column.length === 0 ? column
      : column instanceof Float64Array ? column.subarray(start, end) : column.slice(start, end))),
  };
}

/**
 * Clears keep[i] where `values[i] op b` is not TRUE, one loop per operator (no call per row), in
 * compareSqlValues's order: NaN above every number (b is never NaN here), -0 equal to 0. Written
 * so a NaN value fails =, <, <= and passes !=, >, >=.
 */
function maskTypedComparison(values: Float64Array, operator: SqlCompareOperator, b: number, keep: Uint8Array,
  n: number): void {
  switch (operator) {
    case '=': for (let i = 0; i < n; i++) if (!(values[i]! === b)) keep[i] = 0; return;
    case '!=': for (let i = 0; i < n; i++) if (values[i]! === b) keep[i] = 0; return;
    case '<': for (let i = 0; i < n; i++) if (!(values[i]! < b)) keep[i] = 0; return;
    case '<=': for (let i = 0; i < n; i++) if (!(values[i]! <= b)) keep[i] = 0; return;
    case '>': for (let i = 0; i < n; i++) if (values[i]! <= b) keep[i] = 0; return;
    case '>=': for (let i = 0; i < n; i++) if (values[i]! < b) keep[i] = 0; return;
  }
}

/** `column op number` over a typed column of the batch: its values, the number and the test. */
function typedComparison(expression: SqlBoundExpression, batch: SqlBatch):
  { values: Float64Array; b: number; operator: SqlCompareOperator } | undefined {
  if (expression.kind !== 'compare' || expression.left.kind !== 'column' || expression.right.kind !== 'constant') {
    return undefined;
  }
  const values = batch.columns[expression.left.index];
  const b = expression.right.value;
  // NaN is above every number in compareSqlValues's order: a NaN bound takes the general path.
  if (!(values instanceof Float64Array) || typeof b !== 'number' || b !== b) return undefined;
  return { values, b, operator: expression.operator };
}

export function selectRows(batch: SqlBatch, predicate: SqlColumn): SqlBatch {
  const keep: number[] = [];
  for (let i = 0; i < batch.rowCount; i++) if (predicate[i] === true) keep.push(i);
  if (keep.length === batch.rowCount) return batch;
  return {
    rowCount: keep.length,
    // An empty column is one the scan did not read: it stays empty.
    columns: batch.columns.map((column) => (column.length === 0 ? column : gather(column, keep))),
  };
}
