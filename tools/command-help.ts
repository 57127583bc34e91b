// What every command of the package answers to `--help` (or `-h`) and `--version`, in one shape:
// its usage, what it does, its options with their defaults, its exit codes and one example; and
// the package's version (package.json). Both print on stdout and exit 0. A command calls
// `helpOrVersion` before it reads its environment or parses its options, so that `--help` works
// where the command itself could not run (no GS_HOME, no node).
//
//   const HELP: CommandHelp = { name: 'gs_stat', usage: ['-u USER/PASS [-s HOST[:PORT]]'], ... };
//   const answer = helpOrVersion(HELP, argv);
//   if (answer !== undefined) { console.log(answer); return 0; }
//
// Bad usage is each command's own (exit code 2 for every command, GridDB's argument-error code);
// it ends its message with `usageHint`.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRootOf } from '../lib/config/home.ts';

/** Exit code of --help and --version. */
export const EXIT_HELP = 0;
/** Exit code of bad usage, for every command (GridDB's gs_* "argument error"). */
export const EXIT_USAGE = 2;

export interface CommandHelp {
  name: string;
  /** Usage lines, without the command's name. */
  usage: string[];
  /** What the command does, in a sentence or two. */
  summary: string;
  /** Flag (with its value) and what it does, with its default. */
  options: Array<[flag: string, text: string]>;
  /** Environment variables the command reads, and what for. */
  environment?: Array<[name: string, text: string]>;
  exitCodes: Array<[code: number, text: string]>;
  /** One command line that runs as written. */
  example: string;
}

const HELP_OPTIONS: Array<[string, string]> = [
  ['-h, --help', 'print this help and exit 0'],
  ['--version', 'print the version and exit 0'],
];

/** The package's version, from package.json (read once, at load). */
export const PACKAGE_VERSION: string = (() => {
  const manifestPath = join(packageRootOf(import.meta.dirname), 'package.json');
  const manifest = createRequire(import.meta.url)(manifestPath) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
})();

export function versionText(name: string): string {
  return `${name} (store) ${PACKAGE_VERSION}`;
}

export function helpText(help: CommandHelp): string {
  const options = [...help.options, ...HELP_OPTIONS];
  const width = Math.max(...options.map(([flag]) => flag.length),
    ...(help.environment ?? []).map(([name]) => name.length));
  const rows = (entries: Array<[string, string]>) =>
    entries.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`);
  const lines = [
    ...help.usage.map((usage, i) => `${i === 0 ? 'Usage:' : '      '} ${help.name} ${usage}`),
    '',
    help.summary,
    '',
    'Options:',
    ...rows(options),
  ];
  if (help.environment !== undefined && help.environment.length > 0) {
    lines.push('', 'Environment:', ...rows(help.environment));
  }
  lines.push('', 'Exit codes:',
    ...help.exitCodes.map(([code, text]) => `  ${String(code).padEnd(width)}  ${text}`),
    '', 'Example:', `  ${help.example}`);
  return lines.join('\n');
}

/**
 * The text to print when `argv` asks for help or the version (before any `--`), else undefined.
 * Help wins when both are given.
 */
export function helpOrVersion(help: CommandHelp, argv: readonly string[]): string | undefined {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  if (args.includes('--help') || args.includes('-h')) return helpText(help);
  if (args.includes('--version')) return versionText(help.name);
  return undefined;
}

/** The first usage line, as the data tools print it after a usage error. */
export function usageLine(help: CommandHelp): string {
  return `usage: ${help.name} ${help.usage[0]}`;
}

/** The line a usage error ends with. */
export function usageHint(name: string): string {
  return `Try '${name} --help' for the options.`;
}
