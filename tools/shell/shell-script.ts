// Scripts (spec/surface.md §6.1): `gs_sh script.gsh`, `load file.gsh`, and a script piped to gs_sh's
// stdin. A line is a statement, except that TQL and SQL (tql, tqlexplain, tqlanalyze, sql, and a
// line starting with an SQL keyword) run until a line ending with `;` and may span lines. Blank
// lines and lines starting with `#` are skipped. A failing statement prints its message with the
// file and line; with errexit on (a script's default, `--continue` or `errexit false` turns it off)
// the script stops there, otherwise it goes on and the run counts as failed.

import { readFileSync } from 'node:fs';
import { ShellError } from './shell-messages.ts';
import { isSqlStatement } from './shell-sql.ts';
import { messageOf, type Shell } from './shell.ts';

/** Scripts loaded one inside another at most (a script loading itself stops here). */
export const LOAD_DEPTH_MAX = 8;
/** Bytes of a script file at most. */
export const SCRIPT_BYTES_MAX = 16 * 1024 * 1024;
/** Lines a statement ended by `;` may span at most. */
export const STATEMENT_LINES_MAX = 10_000;

const UNTIL_SEMICOLON = new Set(['tql', 'tqlexplain', 'tqlanalyze', 'sql']);

/** Joins the lines of a statement: tql and SQL last until a line ending with `;`. */
export class StatementSplitter {
  private lines: string[] = [];

  get pending(): boolean {
    return this.lines.length > 0;
  }

  /** The statement this line completes, or undefined while a TQL/SQL statement goes on. */
  push(line: string): string | undefined {
    if (this.lines.length === 0) {
      const text = line.trim();
      if (text === '' || text.startsWith('#')) return undefined;
      const first = /^\S+/.exec(text)![0].toLowerCase();
      if (!UNTIL_SEMICOLON.has(first) && !isSqlStatement(text)) return text;
    }
    this.lines.push(line);
    if (this.lines.length > STATEMENT_LINES_MAX) {
      this.lines = [];
      throw new ShellError(`A statement may span ${STATEMENT_LINES_MAX} lines at most: end it with ;`);
    }
    if (!line.trimEnd().endsWith(';')) return undefined;
    const statement = this.lines.join('\n').trim();
    this.lines = [];
    return statement;
  }

  /** Drops a statement begun (Ctrl-C at the continuation prompt). */
  reset(): void {
    this.lines = [];
  }
}

/** Reads a script file (UTF-8), or a ShellError naming it. */
export function readScript(path: string): string {
  let text: Buffer;
  try {
    text = readFileSync(path);
  } catch (error) {
    throw new ShellError(`The script ${path} cannot be read: ${(error as Error).message}`);
  }
  if (text.length > SCRIPT_BYTES_MAX) {
    throw new ShellError(`The script ${path} has ${text.length} bytes; at most ${SCRIPT_BYTES_MAX}.`);
  }
  return text.toString('utf8');
}

/**
 * Runs a script's statements; true when every one succeeded. With errexit on it stops at the
 * first failure. `where` names the script in messages.
 */
export async function runScript(shell: Shell, text: string, where: string, signal: AbortSignal): Promise<boolean> {
  const splitter = new StatementSplitter();
  const lines = text.split(/\r?\n/);
  let ok = true;
  let startLine = 0;
  for (let i = 0; i < lines.length && !shell.exitRequested; i++) {
    if (!splitter.pending) startLine = i + 1;
    let statement: string | undefined;
    try {
      statement = splitter.push(lines[i]!);
      if (statement === undefined) continue;
      shell.signal = signal;
      await shell.execute(statement);
    } catch (error) {
      shell.io.err(`${messageOf(error)} (${where}:${startLine})`);
      ok = false;
      if (shell.settings.errexit || signal.aborted) return false;
    }
  }
  if (splitter.pending) {
    shell.io.err(`The statement is not ended by ; (${where}:${startLine})`);
    return false;
  }
  return ok;
}
