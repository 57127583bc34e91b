// The options and the positional arguments of a gs_* command that takes both (gs_logconf
// CATEGORY LEVEL, gs_logs SEARCH_STR...): parseArgs, strict, with GridDB's argument-error exit
// code for anything unknown and for more positional arguments than the command takes.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CommandError, EXIT_ARGUMENTS } from './operating-command.ts';

export function parseArgsWithPositionals<const T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[], options: T, positionalCountMax: number,
) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ARGUMENTS);
  }
  if (parsed.positionals.length > positionalCountMax) {
    throw new CommandError(`Too many arguments: ${parsed.positionals.join(' ')} (at most ` +
      `${positionalCountMax}).`, EXIT_ARGUMENTS);
  }
  return parsed;
}
