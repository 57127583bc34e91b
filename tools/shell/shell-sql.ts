// SQL in gs_sh (spec/surface.md §6.1, §6.2): `sql <statement>;` and a bare statement starting with
// an SQL keyword run through the client's store.sql (docs/sql.md) at the node the shell is
// connected to. A query's rows are kept as tql's are (shell-result.ts: counted, then taken by get,
// getcsv, getnoprint, getval); DML prints GridDB's `The {n} records had been inserted.` (updated,
// deleted), DDL prints nothing (GridDB's rule). An EXPLAIN's plan (one JSON object per plan node,
// lib/sql/plan/explain-plan.ts) is kept for getplantxt, getplanjson and gettaskplan, and its rows
// are the result, printed as CSV. showsql prints the node's running statements from the metatable
// "#sqls" (docs/sql.md); killsql cancels one by its query id, as GridDB's does: it looks the id up
// in "#sqls" (D20367 when no statement has it), then asks the node to cancel it (store.cancelSql,
// the SQL_CANCEL message); the statement ends with SQL_CANCELLED for the client that ran it.

import { writeFileSync } from 'node:fs';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { QueryResult, type ResultRows } from './shell-result.ts';
import type { CommandInput, Shell } from './shell.ts';
import { parseBoolean } from './shell-variables.ts';

/** Words that make a line an SQL statement (not `set password`, not a comment). */
const SQL_KEYWORDS = ['select', 'update', 'insert', 'replace', 'delete', 'create', 'drop', 'alter',
  'grant', 'revoke', 'pragma', 'explain'];
/** Plan nodes an EXPLAIN may give the shell; a plan has one per operator, so this is never reached. */
const PLAN_NODES_MAX = 10_000;
/** What DML's update count is called, by the statement's first word. */
const UPDATE_VERBS: Record<string, string> = { insert: 'inserted', replace: 'inserted', update: 'updated',
  delete: 'deleted' };
/** showsql's own query: left out of what it prints. */
const SHOWSQL_QUERY = 'SELECT QUERY_ID, START_TIME, DATABASE_NAME, APPLICATION_NAME, NODE_ADDRESS, NODE_PORT, SQL ' +
  'FROM "#sqls" ORDER BY START_TIME, QUERY_ID';
/** Statements showsql prints at most (the node lists 1,024: SQL_RUNNING_STATEMENT_COUNT_MAX). */
const SHOWSQL_ROWS_MAX = 1024;

/** One node of the last EXPLAIN's plan, as the node gave it. */
export interface SqlPlanNode {
  id: number;
  type: string;
  inputList: number[];
  detail?: Record<string, unknown>;
  profile?: { rows: number };
}

export function isSqlStatement(text: string): boolean {
  const first = /^\w+/.exec(text)?.[0]?.toLowerCase();
  return first !== undefined && SQL_KEYWORDS.includes(first);
}

/** The statement's first word, after comments and hints. */
function firstWord(sql: string): string {
  const text = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, '');
  return /^\w+/.exec(text)?.[0]?.toLowerCase() ?? '';
}

/** Rows held in memory (an EXPLAIN's plan) as a result for get. */
function rowsInMemory(columns: readonly ColumnSchema[], rows: readonly Row[]): ResultRows {
  let next = 0;
  return {
    columns,
    hasNext: () => next < rows.length,
    next: () => Promise.resolve(rows[next++]!),
    close: () => Promise.resolve(),
  };
}

async function openSql(shell: Shell, sql: string) {
  const store = await shell.guard(shell.connection.require());
  return shell.guard(store.sql(sql, [], { fetchSize: shell.settings.fetchSize }));
}

/** An EXPLAIN's rows: kept as the plan when each is a plan node's JSON. */
async function explain(shell: Shell, sql: string, startMs: number): Promise<void> {
  const rowSet = await openSql(shell, sql);
  const rows: Row[] = [];
  try {
    while (rowSet.hasNext()) {
      if (rows.length >= PLAN_NODES_MAX) throw new ShellError(`sql: a plan has ${PLAN_NODES_MAX} nodes at most.`);
      shell.checkCancel();
      rows.push(await shell.guard(rowSet.next()));
    }
  } finally {
    await rowSet.close().catch(() => undefined);
  }
  shell.sqlPlan = planOf(rows);
  const result = await QueryResult.run(shell, rowsInMemory(rowSet.columns, rows));
  result.alwaysCsv = true;
  shell.result = result;
  shell.io.out(MESSAGES.queryExecuted(rows.length, Date.now() - startMs));
}

function planOf(rows: readonly Row[]): SqlPlanNode[] | undefined {
  const plan: SqlPlanNode[] = [];
  for (const row of rows) {
    if (typeof row[0] !== 'string') return undefined;
    try {
      const node = JSON.parse(row[0]) as Partial<SqlPlanNode>;
      if (typeof node.id !== 'number' || typeof node.type !== 'string' || !Array.isArray(node.inputList)) return undefined;
      plan.push(node as SqlPlanNode);
    } catch {
      return undefined;
    }
  }
  return plan;
}

async function runSql(shell: Shell, input: CommandInput): Promise<void> {
  const sql = input.rest.replace(/;\s*$/, '').trim();
  if (sql === '') throw new ShellError(MESSAGES.usage('sql', '<sql>;'));
  await shell.result?.close();
  shell.result = undefined;
  const startMs = Date.now();
  const first = firstWord(sql);
  if (first === 'explain') {
    await explain(shell, sql, startMs);
    return;
  }
  const rowSet = await openSql(shell, sql);
  if (rowSet.updateCount !== undefined) {
    const verb = UPDATE_VERBS[first];
    if (verb !== undefined) shell.io.out(MESSAGES.recordsChanged(rowSet.updateCount, verb));
    return;
  }
  if (!shell.settings.sqlCount) {
    shell.result = QueryResult.uncounted(rowSet);
    shell.io.out(MESSAGES.queryRan(Date.now() - startMs));
    return;
  }
  const result = await QueryResult.run(shell, rowSet);
  shell.result = result;
  shell.io.out(MESSAGES.queryExecuted(result.count!, Date.now() - startMs));
}

/** GridDB's showsql layout: one block per running statement (all, or the one of `queryId`). */
async function showSql(shell: Shell, input: CommandInput): Promise<void> {
  expectWords(input, 0, 1);
  const queryId = input.words[0]?.text;
  const rowSet = await openSql(shell, SHOWSQL_QUERY);
  const rows: Row[] = [];
  try {
    while (rowSet.hasNext() && rows.length < SHOWSQL_ROWS_MAX) rows.push(await shell.guard(rowSet.next()));
  } finally {
    await rowSet.close().catch(() => undefined);
  }
  const nowMs = Date.now();
  for (const [id, start, database, application, address, port, sql] of rows) {
    if (sql === SHOWSQL_QUERY || (queryId !== undefined && id !== queryId)) continue;
    const startMs = start instanceof Date ? start.getTime() : Number(start);
    shell.io.out([
      '='.repeat(71), `query id: ${String(id)}`, `start time: ${new Date(startMs).toISOString()}`,
      `elapsed time: ${Math.max(0, nowMs - startMs)}`, `database name: ${String(database)}`,
      `application name: ${String(application)}`, `node: ${String(address)}:${String(port)}`,
      `sql: ${String(sql)}`, '#'.repeat(1) + '-'.repeat(27),
    ].join('\n'));
  }
}

/** GridDB's killsql: the id must be one of "#sqls", then the node cancels it. */
async function killSql(shell: Shell, input: CommandInput): Promise<void> {
  expectWords(input, 1);
  const queryId = input.words[0]!.text;
  const store = await shell.guard(shell.connection.require());
  const listed = await shell.guard((async () => {
    const rowSet = await store.sql('SELECT QUERY_ID FROM "#sqls" WHERE QUERY_ID = ?', [queryId]);
    return (await rowSet.toArray()).length > 0;
  })());
  // Gone between the look-up and the cancel: it ended by itself, as GridDB reports it.
  if (!listed || !await shell.guard(store.cancelSql(queryId))) {
    throw new ShellError(MESSAGES.killsqlQueryMissing(queryId));
  }
}

function requirePlan(shell: Shell): SqlPlanNode[] {
  if (shell.sqlPlan === undefined) {
    throw new ShellError('There is no SQL plan: run EXPLAIN or EXPLAIN ANALYZE with sql first.');
  }
  return shell.sqlPlan;
}

/** Prints `text`, or writes it to the file given. */
function outOrFile(shell: Shell, input: CommandInput, text: string): void {
  expectWords(input, 0, 1);
  const path = input.words[0]?.text;
  if (path === undefined) {
    shell.io.out(text);
    return;
  }
  try {
    writeFileSync(path, `${text}\n`);
  } catch (error) {
    throw new ShellError(`The file ${path} cannot be written: ${(error as Error).message}`);
  }
}

/** The plan as a table: one line per node, its inputs, its rows (EXPLAIN ANALYZE) and its detail. */
function planText(plan: readonly SqlPlanNode[]): string {
  const lines = plan.map((node) => [
    String(node.id).padStart(2),
    node.type.padEnd(6),
    (node.inputList.length === 0 ? '-' : node.inputList.join(',')).padEnd(5),
    (node.profile === undefined ? '-' : String(node.profile.rows)).padStart(9),
    node.detail === undefined || Object.keys(node.detail).length === 0 ? '' : JSON.stringify(node.detail),
  ].join(' ').trimEnd());
  return ['Id Type   Input      Rows And more..', '-'.repeat(60), ...lines].join('\n');
}

export const SQL_COMMANDS: SubCommand[] = [
  { name: 'sql', usage: '<sql>;', summary: 'run SQL and keep its result', rawText: true, run: runSql },
  {
    name: 'sqlcount', usage: '<bool>', summary: 'count the rows of an SQL query (default TRUE)',
    async run(shell, input) {
      expectWords(input, 1);
      shell.settings.sqlCount = parseBoolean(input.words[0]!.text, 'sqlcount');
    },
  },
  { name: 'showsql', usage: '[<queryId>]', summary: 'the SQL statements running on the node ("#sqls")', run: showSql },
  { name: 'killsql', usage: '<queryId>', summary: 'cancel a running SQL statement (showsql lists them)', run: killSql },
  {
    name: 'getplantxt', usage: '[<file>]', summary: 'the last SQL EXPLAIN plan as text',
    async run(shell, input) {
      outOrFile(shell, input, planText(requirePlan(shell)));
    },
  },
  {
    name: 'getplanjson', usage: '[<file>]', summary: 'the last SQL EXPLAIN plan as JSON',
    async run(shell, input) {
      outOrFile(shell, input, JSON.stringify({ nodeList: requirePlan(shell) }, null, 2));
    },
  },
  {
    name: 'gettaskplan', usage: '<planId>', summary: 'one node of the last SQL EXPLAIN plan as JSON',
    async run(shell, input) {
      expectWords(input, 1);
      const plan = requirePlan(shell);
      const text = input.words[0]!.text;
      const node = /^\d{1,9}$/.test(text) ? plan.find((entry) => entry.id === Number(text)) : undefined;
      if (node === undefined) {
        throw new ShellError(`gettaskplan: the last plan has no node "${text}" (its ids are 0 to ${plan.length - 1}).`);
      }
      shell.io.out(JSON.stringify(node, null, 2));
    },
  },
];
