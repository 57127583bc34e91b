// Runs one SQL statement against a SqlDatabase: parses it, plans it, and answers rows (SELECT,
// EXPLAIN) that the caller pulls page by page, or an update count (DML; 0 for DDL). The statement
// has a work memory limit, a deadline and a cancellation check; the executor yields to the event
// loop after each slice of work (exec/work-slice.ts) and checks both there, so a long SELECT
// leaves the engine's commits running and can be stopped before its first row.

import { AssertionError } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { SQL_STATEMENT_KINDS_NOT_SUPPORTED } from './ast-statements.ts';
import type { SqlName, SqlStatement } from './ast.ts';
import { SqlError, sqlNotSupported } from './errors.ts';
import type { SqlBatch } from './exec/evaluate.ts';
import { runPlan, type SqlRunControl, type SqlRunEnvironment } from './exec/execute-plan.ts';
import { SqlWorkMemory } from './exec/work-memory.ts';
import { SqlWorkSlice } from './exec/work-slice.ts';
import type { SqlEvalContext, SqlScalarFunction } from './functions/scalar-function.ts';
import { postgresScalarFunction } from './functions/postgres-compat.ts';
import { sqlScalarFunction } from './functions/registry.ts';
import { sqlMetatableOf } from './meta/metatables.ts';
import { explainPlan } from './plan/explain-plan.ts';
import type { SqlDialect, SqlTypedValue } from './plan/bind-expression.ts';
import type { SqlPlanColumn, SqlPlanNode } from './plan/logical-plan.ts';
import { planQuery, type SqlPlanContext } from './plan/plan-select.ts';
import { parseSqlStatementCached } from './parse-cache.ts';
import { runDdl } from './run-ddl.ts';
import { refuseViewTarget, runCreateView, runDropView, sqlExpandViews } from './run-view.ts';
import { constantForColumn, runDml } from './run-dml.ts';
import type { SqlDatabase } from './sql-database.ts';
import type { SqlValue } from './value.ts';

export interface SqlRunOptions {
  readonly database: SqlDatabase;
  readonly parameters?: readonly SqlTypedValue[];
  /** GridDB's /sql/workMemoryLimit. */
  readonly workMemoryLimitBytes: number;
  /** GridDB's /sql/partitioningRowkeyConstraint (true when absent). */
  readonly partitioningRowkeyConstraint?: boolean;
  /** GridDB's /sql/costBasedJoin (true when absent): false orders joins as FROM names them. */
  readonly costBasedJoin?: boolean;
  /** The statement ends with REQUEST_TIMEOUT this long after it began, fetches included. */
  readonly timeoutMs: number;
  readonly monotonicMs: () => number;
  /** NOW(): when the statement began, ms since the epoch. */
  readonly nowMs: number;
  readonly timeZoneOffsetMinutes?: number;
  readonly randomBytes: (count: number) => Uint8Array;
  /** True once the statement is cancelled: it ends with SQL_CANCELLED after its slice of work. */
  readonly cancelled?: () => boolean;
  /** Scalar functions by name; the §5.8 registry by default (with `dialect` postgres, its own too). */
  readonly functions?: (name: string) => SqlScalarFunction | undefined;
  /** `postgres` for a statement of the PostgreSQL protocol (bind-expression.ts); GridDB's otherwise. */
  readonly dialect?: SqlDialect;
}

export interface SqlRowPage {
  readonly rows: SqlValue[][];
  readonly done: boolean;
}

export type SqlResult =
  | {
    readonly kind: 'rows';
    readonly columns: readonly SqlPlanColumn[];
    /** The next rows, rowCountMax at most. */
    next(rowCountMax: number): Promise<SqlRowPage>;
    close(): Promise<void>;
  }
  | { readonly kind: 'update'; readonly updateCount: number };

export async function runSql(text: string, options: SqlRunOptions): Promise<SqlResult> {
  return guarded(async () => {
    const result = await runParsed(text, options);
    if (result.kind === 'update') return result;
    return { ...result, next: (rowCountMax: number) => guarded(() => result.next(rowCountMax)) };
  });
}

/**
 * A JavaScript error out of evaluating one statement (a TypeError or RangeError a value provoked
 * in a function) fails that statement as INTERNAL_ERROR, not the node: SQL changes nothing
 * before its transaction commits. A failed assertion stays fatal.
 */
async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StorageError || error instanceof AssertionError || !(error instanceof Error)) throw error;
    throw new StorageError('INTERNAL_ERROR', `the SQL statement failed: ${error.name}: ${error.message}`,
      { cause: error });
  }
}

async function runParsed(text: string, options: SqlRunOptions): Promise<SqlResult> {
  const parsed = parseSqlStatementCached(text);
  const parameters = options.parameters ?? [];
  if (parameters.length !== parsed.parameterCount) {
    throw new StorageError('ROW_INVALID', `the statement has ${parsed.parameterCount} parameters, ` +
      `${parameters.length} given`);
  }
  return runStatement(parsed.statement, options);
}

export async function runStatement(statement: SqlStatement, options: SqlRunOptions): Promise<SqlResult> {
  const evalContext: SqlEvalContext = {
    timeZoneOffsetMinutes: options.timeZoneOffsetMinutes ?? 0,
    statementStartMs: options.nowMs,
    randomBytes: options.randomBytes,
  };
  const hints = 'hints' in statement ? statement.hints : [];
  const plan: SqlPlanContext = {
    parameters: options.parameters ?? [],
    functions: options.functions ?? (options.dialect === 'postgres' ? postgresScalarFunction : sqlScalarFunction),
    ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
    tableSchema: (name) => options.database.tableSchema(name),
    tableRowCount: (name) => options.database.tableRowCount?.(name),
    ...(options.costBasedJoin === undefined ? {} : { costBasedJoin: options.costBasedJoin }),
    evalContext,
    hints,
  };
  const control = runControl(options);
  const env: SqlRunEnvironment = {
    table: (name) => options.database.table(name),
    metatableRows: (name) => options.database.metatableRows(name),
    context: evalContext,
    memory: new SqlWorkMemory(options.workMemoryLimitBytes),
    control,
    work: new SqlWorkSlice(() => options.database.yieldTurn(), () => control.check()),
  };
  if (SQL_STATEMENT_KINDS_NOT_SUPPORTED.has(statement.kind)) {
    throw sqlNotSupported(`${statement.kind} is not supported yet (SQL part 2)`, statement.position);
  }
  refuseMetatableWrite(statement);
  refuseViewWrite(statement, options.database);
  // CREATE VIEW keeps its SELECT as written: it expands it itself (run-view.ts).
  if (statement.kind !== 'createView') statement = sqlExpandViews(statement, options.database);
  switch (statement.kind) {
    case 'select': {
      const query = planQuery(statement.query, plan);
      return rowsResult(query.columns, runPlan(query.root, env), env.control);
    }
    case 'explain': {
      const inner = statement.statement;
      if (inner.kind !== 'select') {
        throw sqlNotSupported('EXPLAIN takes a SELECT', statement.position);
      }
      // The hints come with the SELECT, after EXPLAIN's keywords.
      const query = planQuery(inner.query, { ...plan, hints: inner.hints });
      const rowCounts = statement.analyze ? new Map<SqlPlanNode, number>() : undefined;
      if (rowCounts !== undefined) {
        for await (const _batch of runPlan(query.root, { ...env, rowCounts })) { /* counted */ }
      }
      const scanDetail = (node: Extract<SqlPlanNode, { kind: 'scan' }>) =>
        options.database.table(node.table).explain?.({ from: node.keyRange.from, to: node.keyRange.to }) ?? {};
      const rows = explainPlan(query.root, rowCounts, scanDetail).map((entry) => [JSON.stringify(entry)]);
      return rowsResult([{ name: 'plan', type: 'STRING' }], (async function* () {
        yield { rowCount: rows.length, columns: [rows.map((row) => row[0]!)] };
      })(), env.control);
    }
    case 'insert': case 'update': case 'delete':
      return { kind: 'update', updateCount: await runDml(statement, options.database, plan, env) };
    case 'createTable': case 'dropTable': case 'createIndex': case 'dropIndex':
    case 'alterTableAddColumns': case 'alterTableRenameColumn': case 'alterTableDropPartition':
      await runDdl(statement, options.database, {
        partitioningRowkeyConstraint: options.partitioningRowkeyConstraint ?? true,
        valueForColumn: (expression, schema, index) => constantForColumn(expression, schema, index, plan, env),
      });
      return { kind: 'update', updateCount: 0 };
    case 'createView':
      await runCreateView(statement, options.database, (query) => { planQuery(query, plan); });
      return { kind: 'update', updateCount: 0 };
    case 'dropView':
      await runDropView(statement, options.database);
      return { kind: 'update', updateCount: 0 };
    default:
      throw sqlNotSupported(`${statement.kind} is not supported yet (SQL part 2)`, statement.position);
  }
}

/** Metatables are read-only (§5.11): a statement that would change one is refused before it runs. */
function refuseMetatableWrite(statement: SqlStatement): void {
  let target: SqlName | undefined;
  switch (statement.kind) {
    case 'insert': case 'update': case 'delete': case 'createIndex': case 'dropIndex':
    case 'alterTableAddColumns': case 'alterTableRenameColumn':
      target = statement.table;
      break;
    case 'createTable': case 'dropTable':
      target = statement.name;
      break;
    default:
      return;
  }
  const metatable = sqlMetatableOf(target);
  if (metatable !== undefined) {
    throw sqlNotSupported(`the metatable "${metatable}" is read-only: ${statement.kind} is refused`,
      target.position);
  }
}

/** Views are read-only (GridDB refuses DML and DDL on them as on a container of the wrong kind). */
function refuseViewWrite(statement: SqlStatement, database: SqlDatabase): void {
  switch (statement.kind) {
    case 'insert': case 'update': case 'delete': case 'createIndex': case 'dropIndex':
    case 'alterTableAddColumns': case 'alterTableRenameColumn': case 'alterTableDropPartition':
      refuseViewTarget(statement.table, statement.kind, database);
      return;
    case 'dropTable':
      refuseViewTarget(statement.name, statement.kind, database);
      return;
    case 'createTable':
      if (database.view(statement.name.text) !== undefined && !statement.ifNotExists) {
        throw new SqlError('SQL_DDL_TABLE_ALREADY_EXISTS', `a view named ${statement.name.text} exists already`,
          statement.name.position);
      }
      return; // IF NOT EXISTS over a view does nothing (run-ddl.ts), as over a table
    default:
  }
}

function runControl(options: SqlRunOptions): SqlRunControl {
  const deadlineMs = options.monotonicMs() + options.timeoutMs;
  return {
    check() {
      if (options.cancelled?.() === true) {
        throw sqlCancelledError();
      }
      if (options.monotonicMs() > deadlineMs) {
        throw new StorageError('REQUEST_TIMEOUT', `the statement ran longer than its timeout of ` +
          `${options.timeoutMs} ms`);
      }
    },
  };
}

/** GridDB's error for a statement cancelled while it ran (killsql, SQL_CANCEL, its connection closed). */
export function sqlCancelledError(): StorageError {
  return new StorageError('SQL_CANCELLED', 'the statement was cancelled (killsql, or its connection closed)');
}

function rowsResult(columns: readonly SqlPlanColumn[], batches: AsyncGenerator<SqlBatch>,
  control: SqlRunControl): SqlResult {
  let pending: SqlBatch | undefined;
  let at = 0;
  let done = false;
  return {
    kind: 'rows',
    columns,
    async next(rowCountMax) {
      // Fetching is part of the statement: its deadline and cancellation hold here too.
      if (!done) control.check();
      const rows: SqlValue[][] = [];
      const wanted = Math.max(1, Math.min(rowCountMax, Number.MAX_SAFE_INTEGER));
      while (rows.length < wanted && !done) {
        if (pending === undefined || at >= pending.rowCount) {
          const step = await batches.next();
          if (step.done === true) {
            done = true;
            break;
          }
          pending = step.value;
          at = 0;
          continue;
        }
        const take = Math.min(wanted - rows.length, pending.rowCount - at);
        for (let r = at; r < at + take; r++) rows.push(pending.columns.map((column) => column[r]!));
        at += take;
      }
      // Done only when nothing remains: peek so the last page says so.
      if (!done && (pending === undefined || at >= pending.rowCount)) {
        const step = await batches.next();
        if (step.done === true) done = true;
        else { pending = step.value; at = 0; }
      }
      return { rows, done };
    },
    async close() {
      done = true;
      await batches.return(undefined);
    },
  };
}

