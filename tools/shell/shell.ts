// One gs_sh session: its variables, its connection, the result of the last query, its settings
// and history, and `execute`, which runs one statement: `$name` expanded, `!N`/`!!` taken from the
// history, then the sub-command of the command table (shell-command-table.ts) run; a statement
// starting with an SQL keyword goes to `sql` (spec/surface.md §6.1). A statement runs under an
// AbortSignal (Ctrl-C): `guard` gives up a request in flight and drops the connection, so that the
// shell comes back at once; the next statement connects again.

import { assert } from '../../lib/base/assert.ts';
import { StorageError } from '../../lib/base/errors.ts';
import { CommandError } from '../operating-command.ts';
import { findCommand, type SubCommand } from './shell-command-table.ts';
import { ShellConnection, type Credentials } from './shell-connection.ts';
import { FETCH_SIZE_DEFAULT, HISTORY_ENTRIES_MAX } from './shell-limits.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { RESULT_WIDTH_DEFAULT, type TimeZone } from './shell-output.ts';
import type { QueryResult } from './shell-result.ts';
import { isSqlStatement, type SqlPlanNode } from './shell-sql.ts';
import { splitWords, Variables, type Word } from './shell-variables.ts';


export interface ShellIo {
  /** A line (or lines) on stdout. */
  out(text: string): void;
  /** A message on stderr. */
  err(text: string): void;
  /** On a terminal: rows per screen page, and asking whether to show the next one. */
  pager?: { pageRows(): number; more(): Promise<boolean> };
}

export interface ShellSettings {
  timeZone: TimeZone;
  fetchSize: number;
  resultFormat: 'TABLE' | 'CSV';
  resultWidthMax: number;
  /** Stop a script at its first error. */
  errexit: boolean;
  /** Print each statement of a script before running it. */
  echo: boolean;
  /** Count the rows of an SQL query (sqlcount). */
  sqlCount: boolean;
}

/** What a sub-command gets: its words (after expansion) and the text after its name. */
export interface CommandInput {
  name: string;
  words: Word[];
  rest: string;
}

export class Shell {
  readonly variables = new Variables();
  readonly connection = new ShellConnection();
  readonly history: string[] = [];
  result: QueryResult | undefined;
  /** The plan of the last SQL EXPLAIN, for getplantxt and friends. */
  sqlPlan: SqlPlanNode[] | undefined;
  credentials: Credentials | undefined;
  settings: ShellSettings;
  exitRequested = false;
  /** Scripts being run by load, one inside the other. */
  loadDepth = 0;
  signal: AbortSignal = new AbortController().signal;
  /** Container names for completion, and when they were listed. */
  containerNames: { names: string[]; listedAtMs: number } | undefined;

  constructor(readonly io: ShellIo, readonly env: NodeJS.ProcessEnv,
    private readonly options: { errexit: boolean; onStatement?: (statement: string) => void }) {
    this.settings = {
      timeZone: 0, fetchSize: FETCH_SIZE_DEFAULT, resultFormat: 'TABLE',
      resultWidthMax: RESULT_WIDTH_DEFAULT, errexit: options.errexit, echo: false, sqlCount: true,
    };
  }

  get prompt(): string {
    const target = this.connection.current;
    return target === undefined ? 'gs> ' : `gs[${target.database}]> `;
  }

  /** Runs one statement; its failure is printed, and false returned. */
  async run(statement: string, signal: AbortSignal): Promise<boolean> {
    this.signal = signal;
    try {
      await this.execute(statement);
      return true;
    } catch (error) {
      this.io.err(messageOf(error));
      return false;
    }
  }

  async execute(statement: string): Promise<void> {
    let text = statement.trim();
    if (text === '' || text.startsWith('#')) return;
    text = this.fromHistory(text);
    this.remember(text);
    this.options.onStatement?.(text);
    if (this.settings.echo) this.io.out(text);
    const expanded = this.variables.expand(text);
    if (isSqlStatement(expanded)) {
      await findCommand('sql')!.run(this, { name: 'sql', words: [], rest: expanded });
      return;
    }
    const nameEnd = expanded.search(/\s|$/);
    const name = expanded.slice(0, nameEnd).toLowerCase();
    const command: SubCommand | undefined = findCommand(name);
    if (command === undefined) throw new ShellError(MESSAGES.noSuchCommand(name));
    const rest = expanded.slice(nameEnd).trim();
    const words = command.rawText === true ? [] : splitWords(rest);
    await command.run(this, { name, words, rest });
  }

  /** `!!` the last statement, `!N` the N-th of `history`. */
  private fromHistory(text: string): string {
    if (text === '!!' || /^!\d+$/.test(text)) {
      const index = text === '!!' ? this.history.length - 1 : Number(text.slice(1)) - 1;
      const found = this.history[index];
      if (found === undefined) throw new ShellError(`There is no statement ${text} in the history.`);
      this.io.out(found);
      return found;
    }
    return text;
  }

  private remember(text: string): void {
    this.history.push(text);
    if (this.history.length > HISTORY_ENTRIES_MAX) this.history.shift();
    assert(this.history.length <= HISTORY_ENTRIES_MAX);
  }

  /** `work`, given up when Ctrl-C aborts the statement (the connection is then dropped). */
  guard<T>(work: Promise<T>): Promise<T> {
    const signal = this.signal;
    if (signal.aborted) {
      work.catch(() => undefined);
      return Promise.reject(new ShellError(MESSAGES.cancelled));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        reject(new ShellError(MESSAGES.cancelled));
        void this.connection.drop();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      work.then((value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      }, (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      });
    });
  }

  /** Throws the cancel message when Ctrl-C was pressed (between pages of a long loop). */
  checkCancel(): void {
    if (this.signal.aborted) throw new ShellError(MESSAGES.cancelled);
  }

  requireCredentials(): Credentials {
    if (this.credentials === undefined) throw new ShellError(MESSAGES.userNotSet);
    return this.credentials;
  }

  async close(): Promise<void> {
    await this.result?.close();
    await this.connection.disconnect();
  }
}

/** The text printed for a failure: GridDB's message, or the node's error with its code. */
export function messageOf(error: unknown): string {
  if (error instanceof ShellError || error instanceof CommandError) return error.message;
  if (error instanceof StorageError) return `${error.code}: ${error.message}`;
  return `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
