// gs_sh's command table: every sub-command by name (spec/surface.md §6.2), with its usage and a
// line of help, gathered from the files that implement them (commands-*.ts). `help` prints it and
// completion offers its names.

import { assert } from '../../lib/base/assert.ts';
import type { CommandInput, Shell } from './shell.ts';
import { CLUSTER_COMMANDS } from './commands-cluster.ts';
import { CONTAINER_COMMANDS } from './commands-container.ts';
import { QUERY_COMMANDS } from './commands-query.ts';
import { SESSION_COMMANDS } from './commands-session.ts';
import { SQL_COMMANDS } from './shell-sql.ts';
import { USER_COMMANDS } from './commands-users.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';

export interface SubCommand {
  name: string;
  /** The arguments, as help prints them. */
  usage: string;
  summary: string;
  /** Takes the text after its name as it is (TQL, SQL), not split into words. */
  rawText?: boolean;
  run(shell: Shell, input: CommandInput): Promise<void>;
}

let table: Map<string, SubCommand> | undefined;

/** Built at first use: the command files import this one, so it cannot be built at load. */
function commandTable(): Map<string, SubCommand> {
  if (table !== undefined) return table;
  table = new Map();
  for (const command of [...SESSION_COMMANDS, ...QUERY_COMMANDS, ...CONTAINER_COMMANDS,
    ...USER_COMMANDS, ...CLUSTER_COMMANDS, ...SQL_COMMANDS]) {
    assert(!table.has(command.name));
    table.set(command.name, command);
  }
  return table;
}

export function findCommand(name: string): SubCommand | undefined {
  return commandTable().get(name.toLowerCase());
}

export function commandNames(): string[] {
  return [...commandTable().keys()].sort();
}

/** Checks the word count of a sub-command's arguments; the usage message otherwise. */
export function expectWords(input: CommandInput, min: number, max: number = min): void {
  const count = input.words.length;
  if (count < min || count > max) {
    const usage = findCommand(input.name)?.usage ?? '';
    throw new ShellError(MESSAGES.usage(input.name, usage));
  }
}
