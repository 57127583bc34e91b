// gs_sh on a terminal: node:readline for line editing, the history (up/down arrows; kept in
// ~/.gssh_history, HISTORY_ENTRIES_MAX lines, statements holding a password left out) and Tab
// completion (shell-completion.ts). Lines are taken one at a time: a statement runs to its end
// before the next line is read. Ctrl-C while a statement runs cancels it (Shell.guard) and the
// shell prompts again; at the prompt it drops the line being typed; only exit, quit or Ctrl-D end
// gs_sh. `get` shows a screen page of rows at a time and asks before the next one.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { readlineCompleter } from './shell-completion.ts';
import { StatementSplitter } from './shell-script.ts';
import { HISTORY_ENTRIES_MAX } from './shell-limits.ts';
import type { Shell } from './shell.ts';

export const HISTORY_FILE_NAME = '.gssh_history';
/** Lines typed ahead while a statement runs, kept at most. */
const LINES_QUEUED_MAX = 1000;
/** Rows of the screen left for the table's frame and the pager's question. */
const PAGE_FRAME_ROWS = 6;
const CONTINUATION_PROMPT = '> ';
const MORE_PROMPT = '-- More -- (Enter: next page, q: stop) ';
/** Statements not written to the history file: they hold a password. */
const SECRET_STATEMENT = /^\s*(setuser|createuser|setpassword)\b/i;

export function historyPath(env: NodeJS.ProcessEnv): string | undefined {
  const home = env['HOME'] ?? env['GS_HOME'];
  return home === undefined || home === '' ? undefined : join(home, HISTORY_FILE_NAME);
}

function readHistory(path: string | undefined): string[] {
  if (path === undefined) return [];
  try {
    // The file lists the oldest first; readline wants the newest first.
    return readFileSync(path, 'utf8').split('\n').filter((line) => line !== '')
      .slice(-HISTORY_ENTRIES_MAX).reverse();
  } catch {
    return [];
  }
}

function writeHistory(path: string | undefined, newestFirst: readonly string[]): void {
  if (path === undefined) return;
  const lines = newestFirst.filter((line) => !SECRET_STATEMENT.test(line)).slice(0, HISTORY_ENTRIES_MAX).reverse();
  try {
    writeFileSync(path, lines.length === 0 ? '' : `${lines.join('\n')}\n`, { mode: 0o600 });
  } catch {
    // A history that cannot be kept is not worth stopping the shell for.
  }
}

export function runInteractive(shell: Shell): Promise<number> {
  const path = historyPath(shell.env);
  const rl: Interface = createInterface({
    input: process.stdin, output: process.stdout, terminal: true, completer: readlineCompleter(shell),
    history: readHistory(path), historySize: HISTORY_ENTRIES_MAX, removeHistoryDuplicates: true,
  });
  const splitter = new StatementSplitter();
  let running: AbortController | undefined;
  const queue: string[] = [];
  let draining = false;

  shell.io.pager = {
    pageRows: () => Math.max(1, (process.stdout.rows ?? 24) - PAGE_FRAME_ROWS),
    more: () => new Promise<boolean>((resolve) => {
      const signal = running?.signal;
      if (signal?.aborted === true) {
        resolve(false);
        return;
      }
      signal?.addEventListener('abort', () => resolve(false), { once: true });
      rl.question(MORE_PROMPT, signal === undefined ? {} : { signal }, (answer) => {
        // The pager's answer is not a statement: out of the history.
        const history = (rl as unknown as { history: string[] }).history;
        if (history[0] === answer) history.shift();
        resolve(!answer.trim().toLowerCase().startsWith('q'));
      });
    }),
  };

  const prompt = () => {
    rl.setPrompt(splitter.pending ? CONTINUATION_PROMPT : shell.prompt);
    rl.prompt();
  };

  return new Promise<number>((resolve) => {
    const drain = async () => {
      if (draining) return;
      draining = true;
      while (queue.length > 0 && !shell.exitRequested) {
        const line = queue.shift()!;
        let statement: string | undefined;
        try {
          statement = splitter.push(line);
        } catch (error) {
          shell.io.err((error as Error).message);
        }
        if (statement !== undefined) {
          running = new AbortController();
          await shell.run(statement, running.signal);
          running = undefined;
          writeHistory(path, (rl as unknown as { history: string[] }).history);
        }
      }
      draining = false;
      if (shell.exitRequested) rl.close();
      else prompt();
    };
    rl.on('line', (line) => {
      if (queue.length >= LINES_QUEUED_MAX) {
        shell.io.err(`More than ${LINES_QUEUED_MAX} lines typed ahead: this one is dropped.`);
        return;
      }
      queue.push(line);
      void drain();
    });
    rl.on('SIGINT', () => {
      if (running !== undefined) {
        running.abort();
        return;
      }
      // At the prompt: forget the line (and a statement begun), keep the shell.
      splitter.reset();
      rl.write(null, { ctrl: true, name: 'u' });
      process.stdout.write('^C (exit, quit or Ctrl-D leave gs_sh)\n');
      prompt();
    });
    rl.on('close', () => {
      running?.abort();
      writeHistory(path, (rl as unknown as { history: string[] }).history);
      process.stdout.write('\n');
      resolve(0);
    });
    prompt();
  });
}
