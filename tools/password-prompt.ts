// The password of gs_adduser and gs_passwd when -p is absent, as Python's getpass reads it: on a
// terminal, `Password: ` and then `Retype password: `, the typing not echoed (raw mode; Enter ends
// it, Backspace takes a character back, Ctrl-C cancels, Ctrl-D on an empty line ends it). When
// stdin is not a terminal (a pipe, a file), each prompt takes the next line of stdin instead, so
// a script can run `printf '%s\n%s\n' "$PW" "$PW" | gs_adduser gs#ops`; a missing line reads as
// empty. The prompts go to stderr, the password nowhere.

import { CommandError } from './operating-command.ts';

/** A line longer than this is no password (GridDB's limit is 64 bytes): refused, not buffered. */
export const PASSWORD_INPUT_CHARS_MAX = 4096;

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACES = new Set(['\u0008', '\u007f']);

export interface PasswordInput {
  /** The password typed after `prompt`; undefined when the user cancelled (Ctrl-C). */
  read(prompt: string): Promise<string | undefined>;
  close(): void;
}

export function openPasswordInput(): PasswordInput {
  return process.stdin.isTTY === true ? terminalInput() : lineInput();
}

function terminalInput(): PasswordInput {
  const stdin = process.stdin;
  return {
    read: (prompt) => new Promise((resolve) => {
      process.stderr.write(prompt);
      let typed = '';
      const finish = (password: string | undefined) => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        process.stderr.write('\n');
        resolve(password);
      };
      const onData = (chunk: string) => {
        for (const character of chunk) {
          if (character === CTRL_C) return finish(undefined);
          if (character === '\r' || character === '\n' || (character === CTRL_D && typed === '')) {
            return finish(typed);
          }
          if (BACKSPACES.has(character)) typed = [...typed].slice(0, -1).join('');
          else if (typed.length < PASSWORD_INPUT_CHARS_MAX) typed += character;
        }
        return undefined;
      };
      stdin.setEncoding('utf8');
      stdin.setRawMode(true);
      stdin.on('data', onData);
      stdin.resume();
    }),
    close: () => stdin.pause(),
  };
}

function lineInput(): PasswordInput {
  process.stdin.setEncoding('utf8');
  const chunks = process.stdin[Symbol.asyncIterator]() as AsyncIterator<string>;
  let buffered = '';
  let ended = false;
  return {
    async read(prompt) {
      process.stderr.write(prompt);
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          process.stderr.write('\n');
          return line.endsWith('\r') ? line.slice(0, -1) : line;
        }
        if (buffered.length > PASSWORD_INPUT_CHARS_MAX) {
          throw new CommandError(`The password line on stdin is longer than ` +
            `${PASSWORD_INPUT_CHARS_MAX} characters.`);
        }
        const next = ended ? { done: true as const, value: undefined } : await chunks.next();
        if (next.done === true) {
          ended = true;
          const line = buffered;
          buffered = '';
          process.stderr.write('\n');
          return line;
        }
        buffered += next.value;
      }
    },
    close() {
      // Stops reading stdin, so that a writer that keeps it open does not keep the command alive.
      void chunks.return?.();
    },
  };
}
