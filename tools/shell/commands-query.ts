// The query sub-commands (spec/surface.md §6.2): tql runs a query and counts its rows; get prints
// rows of the result (a TABLE or CSV, see setresultformat; a screen page at a time on a terminal),
// getcsv writes them to a CSV file, getnoprint only takes them, getval puts one row into variables;
// tqlclose/queryclose let the result go; tqlexplain/tqlanalyze print a plan.

import { appendFileSync, writeFileSync } from 'node:fs';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { csvLine, NULL_TEXT, tableText, valueText } from './shell-output.ts';
import { openRowSet, QueryResult, type ResultPage } from './shell-result.ts';
import type { CommandInput, Shell } from './shell.ts';

/** Rows of an EXPLAIN plan printed at most. */
const PLAN_ROWS_MAX = 10_000;

/** `<container> <query>;` of tql and the explain commands. */
function containerAndQuery(input: CommandInput): { container: string; tql: string } {
  const match = /^(\S+)\s+([\s\S]*?);?\s*$/.exec(input.rest);
  const container = match?.[1];
  const tql = match?.[2]?.trim();
  if (container === undefined || tql === undefined || tql === '') {
    throw new ShellError(MESSAGES.usage(input.name, '<container> <query>;'));
  }
  return { container, tql };
}

function countOf(word: string | undefined, name: string): number | undefined {
  if (word === undefined) return undefined;
  if (!/^\d{1,15}$/.test(word)) throw new ShellError(`${name} takes a number of rows, not "${word}".`);
  return Number(word);
}

export function requireResult(shell: Shell): QueryResult {
  if (shell.result === undefined) throw new ShellError(MESSAGES.notExecuted);
  return shell.result;
}

function cellsOf(shell: Shell, columns: readonly ColumnSchema[], row: Row): Array<string | undefined> {
  return row.map((value, i) => valueText(columns[i]!, value, shell.settings.timeZone));
}

/** Takes up to `limit` rows of the last result a page at a time, handing each page to `sink`. */
async function takeRows(shell: Shell, limit: number | undefined,
  sink: (page: ResultPage, first: boolean) => void, paged: boolean): Promise<number> {
  const result = requireResult(shell);
  let left = Math.min(limit ?? result.remaining, result.remaining);
  let taken = 0;
  const pager = paged ? shell.io.pager : undefined;
  while (left > 0) {
    const page = await result.page(shell, Math.min(left, pager?.pageRows() ?? shell.settings.fetchSize));
    if (page.rows.length === 0) break;
    sink(page, taken === 0);
    taken += page.rows.length;
    left -= page.rows.length;
    if (pager !== undefined && left > 0 && !(await pager.more())) break;
  }
  return taken;
}

function printPage(shell: Shell, page: ResultPage, first: boolean): void {
  const names = page.columns.map((column) => column.name);
  const rows = page.rows.map((row) => cellsOf(shell, page.columns, row));
  if (shell.settings.resultFormat === 'TABLE' && shell.result?.alwaysCsv !== true) {
    shell.io.out(tableText(names, rows, shell.settings.resultWidthMax));
    return;
  }
  const lines = rows.map((row) => csvLine(row.map((cell) => cell ?? NULL_TEXT)));
  shell.io.out((first ? [names.join(','), ...lines] : lines).join('\n'));
}

export const QUERY_COMMANDS: SubCommand[] = [
  {
    name: 'tql', usage: '<container> <query>;', summary: 'run a TQL query and keep its result', rawText: true,
    async run(shell, input) {
      const { container, tql } = containerAndQuery(input);
      await shell.result?.close();
      shell.result = undefined;
      const startMs = Date.now();
      const result = await QueryResult.run(shell, await openRowSet(shell, container, tql));
      shell.result = result;
      shell.io.out(MESSAGES.queryExecuted(result.count!, Date.now() - startMs));
    },
  },
  {
    name: 'get', usage: '[<n>]', summary: 'print n rows of the result (default: all the rest)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const taken = await takeRows(shell, countOf(input.words[0]?.text, 'get'),
        (page, first) => printPage(shell, page, first), true);
      shell.io.out(MESSAGES.acquired(taken));
    },
  },
  {
    name: 'getcsv', usage: '<file> [<n>]', summary: 'write n rows of the result to a CSV file',
    async run(shell, input) {
      expectWords(input, 1, 2);
      const path = input.words[0]!.text;
      const limit = countOf(input.words[1]?.text, 'getcsv');
      requireResult(shell);
      const write = (text: string, first: boolean) => {
        try {
          if (first) writeFileSync(path, text);
          else appendFileSync(path, text);
        } catch (error) {
          throw new ShellError(`The file ${path} cannot be written: ${(error as Error).message}`);
        }
      };
      let headerWritten = false;
      const taken = await takeRows(shell, limit, (page) => {
        const lines = page.rows.map((row) => `${csvLine(cellsOf(shell, page.columns, row))}\n`);
        const header = headerWritten ? '' : `${csvLine(page.columns.map((column) => column.name))}\n`;
        write(header + lines.join(''), !headerWritten);
        headerWritten = true;
      }, false);
      if (!headerWritten) write('', true);
      shell.io.out(MESSAGES.acquired(taken));
    },
  },
  {
    name: 'getnoprint', usage: '[<n>]', summary: 'take n rows of the result without printing them',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const taken = await takeRows(shell, countOf(input.words[0]?.text, 'getnoprint'), () => undefined, false);
      shell.io.out(MESSAGES.acquired(taken));
    },
  },
  {
    name: 'getval', usage: '<var> [<var>...]', summary: 'put the next row\'s values into variables',
    async run(shell, input) {
      expectWords(input, 1, Number.MAX_SAFE_INTEGER);
      const page = await requireResult(shell).page(shell, 1);
      const row = page.rows[0];
      if (row === undefined) throw new ShellError('getval: the result has no more rows.');
      input.words.forEach((word, i) => {
        if (i >= row.length) throw new ShellError(`getval: the result has ${row.length} columns.`);
        shell.variables.set(word.text, valueText(page.columns[i]!, row[i]!, shell.settings.timeZone) ?? '');
      });
      shell.io.out(MESSAGES.acquired(1));
    },
  },
  ...['tqlclose', 'queryclose'].map((name): SubCommand => ({
    name, usage: '', summary: 'let the result of the last query go',
    async run(shell, input) {
      expectWords(input, 0);
      await shell.result?.close();
      shell.result = undefined;
    },
  })),
  ...([['tqlexplain', 'EXPLAIN', 'the plan of a TQL query (not run)'],
    ['tqlanalyze', 'EXPLAIN ANALYZE', 'the plan of a TQL query, run, with its figures']] as const)
    .map(([name, prefix, summary]): SubCommand => ({
      name, usage: '<container> <query>;', summary, rawText: true,
      async run(shell, input) {
        const { container, tql } = containerAndQuery(input);
        const rowSet = await openRowSet(shell, container, `${prefix} ${tql}`);
        const lines: string[] = [];
        try {
          while (rowSet.hasNext() && lines.length < PLAN_ROWS_MAX) {
            const row = await shell.guard(rowSet.next());
            lines.push(csvLine(row.map((value, i) => valueText(rowSet.columns[i]!, value, shell.settings.timeZone))));
          }
        } finally {
          await rowSet.close().catch(() => undefined);
        }
        // A plan prints as CSV whatever the result format (GridDB's rule).
        shell.io.out([rowSet.columns.map((column) => column.name).join(','), ...lines].join('\n'));
      },
    })),
];
