// SQL in gs_sh: `sql <statement>;`, a bare statement starting with an SQL keyword (spec/surface.md
// §6.1), and the sub-commands that act on SQL queries (showsql, killsql, sqlcount, the plans).
// SQL is not on this branch yet: every one of them says so, here and only here. When it lands,
// `sql` runs `store.sql(text, params)` of the client and keeps its result like tql's
// (shell-result.ts), `showsql`/`killsql` list and cancel the node's running SQL.

import type { SubCommand } from './shell-command-table.ts';
import { ShellError } from './shell-messages.ts';

/** Words that make a line an SQL statement (not `set password`, not a comment). */
const SQL_KEYWORDS = ['select', 'update', 'insert', 'replace', 'delete', 'create', 'drop', 'alter',
  'grant', 'revoke', 'pragma', 'explain'];

export const SQL_NOT_AVAILABLE = 'SQL is not available yet in this version of store: use tql ' +
  '<container> <query>; for queries (the SQL interface is being written).';

export function isSqlStatement(text: string): boolean {
  const first = /^\w+/.exec(text)?.[0]?.toLowerCase();
  return first !== undefined && SQL_KEYWORDS.includes(first);
}

function needsSql(name: string, usage: string, summary: string, rawText = false): SubCommand {
  return {
    name, usage, summary, rawText,
    run: () => Promise.reject(new ShellError(`${name}: ${SQL_NOT_AVAILABLE}`)),
  };
}

export const SQL_COMMANDS: SubCommand[] = [
  needsSql('sql', '<sql>;', 'run SQL and keep its result (needs SQL)', true),
  needsSql('showsql', '[<queryId>]', 'the running SQL queries (needs SQL)'),
  needsSql('killsql', '<queryId>', 'cancel a running SQL query (needs SQL)'),
  needsSql('sqlcount', '<bool>', 'count the hits of SQL queries (needs SQL)'),
  needsSql('getplantxt', '[<file>]', 'the last SQL plan as text (needs SQL)'),
  needsSql('getplanjson', '[<file>]', 'the last SQL plan as JSON (needs SQL)'),
  needsSql('gettaskplan', '<planId>', 'one node of the last SQL plan (needs SQL)'),
];
