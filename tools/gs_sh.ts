// gs_sh [SCRIPT.gsh] [--continue]: GridDB's interactive shell (spec/surface.md §6), in
// tools/shell/. On a terminal it prompts (`gs> `, `gs[public]> ` once connected); with a script, or
// with a script piped to stdin, it runs the statements and exits 0 when all succeeded, 1 at the
// first failure (or, with --continue, after the last statement when any failed), 2 for bad
// arguments. `$cluster0` and `$node0` are the node of GS_HOME; ~/.gsshrc is run first when it
// exists. Statements go to $GS_LOG/gs_sh.log with passwords masked.

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT_HELP, EXIT_USAGE, helpOrVersion, usageHint, versionText, type CommandHelp } from './command-help.ts';
import { CommandLog } from './command-log.ts';
import { loadScript, rcPath } from './shell/commands-session.ts';
import { homeDefinitions } from './shell/shell-connection.ts';
import { runInteractive } from './shell/shell-interactive.ts';
import { readScript, runScript, SCRIPT_BYTES_MAX } from './shell/shell-script.ts';
import { messageOf, Shell } from './shell/shell.ts';

const NAME = 'gs_sh';
const EXIT_OK = 0;
const EXIT_FAILED = 1;
/** A statement's words that are passwords: masked in the log. */
const SECRET_STATEMENT = /^(\s*(?:setuser|createuser)\s+\S+\s+)(\S+)(.*)$|^(\s*setpassword\s+(?:\S+\s+)?)(\S+)\s*$/i;

const HELP: CommandHelp = {
  name: NAME,
  usage: ['[SCRIPT.gsh] [--continue]'],
  summary: 'GridDB\'s shell: connect, run TQL, manage containers and users. On a terminal it prompts;\n' +
    'with SCRIPT (or a script on stdin) it runs the statements and stops at the first error.\n' +
    '$cluster0 and $node0 are the node of GS_HOME; type help for the sub-commands.',
  options: [
    ['--continue', 'in a script, go on after a failing statement (exit 1 at the end)'],
    ['-v', 'print the version and exit 0 (GridDB\'s spelling of --version)'],
  ],
  environment: [
    ['GS_HOME', 'the node\'s home: $cluster0, $node0, the users (createuser...)'],
    ['GS_LOG', 'where gs_sh.log goes (none when unset)'],
    ['HOME', '~/.gsshrc run at start, ~/.gssh_history'],
  ],
  exitCodes: [[EXIT_OK, 'every statement succeeded (or exit)'], [EXIT_FAILED, 'a statement failed'],
    [EXIT_USAGE, 'bad arguments']],
  example: 'gs_sh script.gsh',
};

function maskStatement(text: string): string {
  return text.replace(SECRET_STATEMENT, (_whole: string, a?: string, _p?: string, c?: string, d?: string) =>
    a !== undefined ? `${a}***${c ?? ''}` : `${d ?? ''}***`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    bytes += (chunk as Buffer).length;
    if (bytes > SCRIPT_BYTES_MAX) throw new Error(`the script on stdin has more than ${SCRIPT_BYTES_MAX} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: string[]): Promise<number> {
  const answer = helpOrVersion(HELP, argv);
  if (answer !== undefined || argv.includes('-v')) {
    console.log(answer ?? versionText(NAME));
    return EXIT_HELP;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { continue: { type: 'boolean' } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usageHint(NAME)}`);
    return EXIT_USAGE;
  }
  const [script, ...extra] = parsed.positionals;
  if (extra.length > 0 || (script !== undefined && !script.endsWith('.gsh'))) {
    console.error(`${NAME} takes one script, whose name ends with .gsh${extra.length > 0 ? `; also given ${extra.join(' ')}` : ''}.\n` +
      usageHint(NAME));
    return EXIT_USAGE;
  }
  const logDirectory = process.env['GS_LOG'];
  const log = logDirectory === undefined || logDirectory === '' ? undefined : new CommandLog(NAME, logDirectory);
  log?.info(`start. (args: ${argv.join(' ')})`);
  const interactive = script === undefined && process.stdin.isTTY === true;
  const shell = new Shell({
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => {
      process.stderr.write(`${text}\n`);
      log?.error(text);
    },
  }, process.env, {
    errexit: !interactive && parsed.values.continue !== true,
    onStatement: (statement) => log?.info(`statement: ${maskStatement(statement)}`),
  });
  const { cluster, node } = homeDefinitions(process.env['GS_HOME']);
  shell.variables.set('cluster0', cluster);
  shell.variables.set('node0', node);
  const controller = new AbortController();
  const rc = rcPath(process.env);
  let code = EXIT_OK;
  try {
    if (existsSync(rc)) {
      shell.signal = controller.signal;
      await loadScript(shell, rc).catch((error: unknown) => shell.io.err(messageOf(error)));
    }
    if (interactive) {
      code = await runInteractive(shell);
    } else {
      // Ctrl-C (SIGINT) stops a script: the statement running is cancelled, and nothing after it runs.
      process.once('SIGINT', () => controller.abort());
      const text = script === undefined ? await readStdin() : readScript(script);
      const ok = await runScript(shell, text, script ?? 'stdin', controller.signal);
      code = ok ? EXIT_OK : EXIT_FAILED;
    }
  } catch (error) {
    shell.io.err(messageOf(error));
    code = EXIT_FAILED;
  } finally {
    await shell.close();
  }
  log?.info(`end. (exit code ${code})`);
  return code;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Nothing of the shell may keep the process: a readline or a socket left open would.
  if (process.stdin.isTTY === true) process.stdin.unref();
}, (error: unknown) => {
  console.error(messageOf(error));
  process.exitCode = EXIT_FAILED;
});
