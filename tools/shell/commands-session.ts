// The session's sub-commands (spec/surface.md §6.2): definitions (setnode, setcluster, setuser,
// set, show, save, load), the connection (connect, disconnect, the database commands, of which
// store has one database, public), the settings (settimezone, setfetchsize, setresultformat,
// setresultmaxwidth, errexit, echo) and the rest (print, sleep, exec, history, help, version,
// exit, quit).

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_VERSION } from '../command-help.ts';
import { commandNames, expectWords, findCommand, type SubCommand } from './shell-command-table.ts';
import { DATABASE_PUBLIC } from './shell-connection.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { parseTimeZone, RESULT_WIDTH_MAX, timeZoneText } from './shell-output.ts';
import { LOAD_DEPTH_MAX, readScript, runScript } from './shell-script.ts';
import { FETCH_SIZE_MAX, HISTORY_ENTRIES_MAX } from './shell-limits.ts';
import type { Shell } from './shell.ts';
import { parseBoolean, type VariableValue } from './shell-variables.ts';

/** Seconds `sleep` waits at most. */
const SLEEP_S_MAX = 86_400;
/** Output `exec` keeps of its command. */
const EXEC_OUTPUT_BYTES_MAX = 16 * 1024 * 1024;
const PASSWORD_VARIABLES = ['password', 'ospassword'];

/** ~/.gsshrc, or under GS_HOME when there is no home directory. */
export function rcPath(env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] ?? (env['GS_HOME'] === undefined ? homedir() : env['GS_HOME']);
  return join(home, '.gsshrc');
}

function variableText(name: string, value: VariableValue): string {
  if (typeof value === 'string') return PASSWORD_VARIABLES.includes(name) ? '*****' : value;
  if (value.kind === 'node') return `Node[${value.host}:${value.systemPort}]`;
  return `Cluster[name=${value.clusterName},mode=FIXED_LIST,transaction=${value.members},` +
    `nodes=(${value.nodes.map((node) => `$${node}`).join(',')})]`;
}

/** The variables as statements that define them again (save); users and passwords are not saved. */
function definitions(shell: Shell): string[] {
  return shell.variables.entries().flatMap(([name, value]) => {
    if (typeof value === 'string') {
      return ['user', ...PASSWORD_VARIABLES].includes(name) ? [] : [`set ${name} ${value}`];
    }
    if (value.kind === 'node') return [`setnode ${name} ${value.host} ${value.systemPort}`];
    return [`setcluster ${name} ${value.clusterName} FIXED_LIST ${value.members} ` +
      value.nodes.map((node) => `$${node}`).join(' ')].map((line) => line.trimEnd());
  });
}

function portOf(text: string | undefined): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ShellError(`"${text ?? ''}" is not a port.`);
  return port;
}

function positiveOf(text: string | undefined, name: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text ?? '') || value < 1 || value > max) {
    throw new ShellError(`${name} takes a whole number from 1 to ${max}; not "${text ?? ''}".`);
  }
  return value;
}

function refused(name: string, usage: string, text: string): SubCommand {
  return { name, usage, summary: `(${text})`, run: () => Promise.reject(new ShellError(`${name}: ${text}`)) };
}

export async function loadScript(shell: Shell, path: string): Promise<void> {
  if (shell.loadDepth >= LOAD_DEPTH_MAX) {
    throw new ShellError(`load: scripts may load scripts ${LOAD_DEPTH_MAX} deep at most (${path}).`);
  }
  const text = readScript(path);
  shell.loadDepth++;
  try {
    if (!await runScript(shell, text, path, shell.signal) && shell.settings.errexit) {
      throw new ShellError(`load: ${path} stopped at its first error.`);
    }
  } finally {
    shell.loadDepth--;
  }
}

export const SESSION_COMMANDS: SubCommand[] = [
  {
    name: 'setnode', usage: '<nodeVar> <host> <port> [<sshPort>]', summary: 'define a node (its system port, 10040)',
    async run(shell, input) {
      expectWords(input, 3, 4);
      const [name, host, port] = input.words.map((word) => word.text);
      shell.variables.set(name!, { kind: 'node', host: host!, systemPort: portOf(port) });
    },
  },
  {
    name: 'setcluster', usage: '<clusterVar> <clusterName> FIXED_LIST <host:port[,...]> [$node ...]',
    summary: 'define a cluster: its name and the nodes\' transaction services',
    async run(shell, input) {
      expectWords(input, 4, Number.MAX_SAFE_INTEGER);
      const [name, clusterName, mode, members, ...nodes] = input.words.map((word) => word.text);
      if (mode!.toUpperCase() !== 'FIXED_LIST') {
        throw new ShellError(`setcluster: store clients find nodes by FIXED_LIST only; not ${mode} ` +
          '(e.g. setcluster cluster0 myCluster FIXED_LIST 127.0.0.1:10001).');
      }
      for (const member of members!.split(',')) {
        if (!/^[^:\s]+:\d{1,5}$/.test(member)) throw new ShellError(`setcluster: "${member}" is not host:port.`);
      }
      const nodeNames = nodes.map((node) => shell.variables.node(node).variable);
      shell.variables.set(name!, { kind: 'cluster', clusterName: clusterName!, members: members!, nodes: nodeNames });
    },
  },
  {
    name: 'setclustersql', usage: '<clusterVar> <clusterName> FIXED_LIST <host:port>',
    summary: 'accepted for GridDB scripts: SQL goes through the cluster\'s transaction service',
    async run(shell, input) {
      expectWords(input, 3, 4);
      // store serves SQL on the transaction port (docs/sql.md): the SQL address has no use.
      shell.io.out(`setclustersql: SQL goes through the transaction service of $${input.words[0]!.text} ` +
        '(setcluster); the SQL address is not used.');
    },
  },
  {
    name: 'modcluster', usage: '<clusterVar> add|remove $node ...', summary: 'edit a cluster\'s nodes',
    async run(shell, input) {
      expectWords(input, 3, Number.MAX_SAFE_INTEGER);
      const [clusterWord, action, ...nodes] = input.words.map((word) => word.text);
      const cluster = shell.variables.cluster(clusterWord?.startsWith('$') === true ? clusterWord : `$${clusterWord}`);
      const names = nodes.map((node) => shell.variables.node(node).variable);
      const kept = action === 'add' ? [...new Set([...cluster.nodes, ...names])]
        : action === 'remove' ? cluster.nodes.filter((node) => !names.includes(node)) : undefined;
      if (kept === undefined) throw new ShellError(`modcluster takes add or remove; not "${action ?? ''}".`);
      const { variable, ...definition } = cluster;
      shell.variables.set(variable, { ...definition, nodes: kept });
    },
  },
  refused('sync', '<IP> <port>', 'a store node is a cluster of one: define it with setnode and setcluster'),
  {
    name: 'setuser', usage: '<user> <password> [<gsadmPassword>]', summary: 'the user to connect as',
    async run(shell, input) {
      expectWords(input, 2, 3);
      const [user, password, osPassword] = input.words.map((word) => word.text);
      shell.credentials = { user: user!, password: password! };
      shell.variables.set('user', user!);
      shell.variables.set('password', password!);
      if (osPassword !== undefined) shell.variables.set('ospassword', osPassword);
    },
  },
  {
    name: 'set', usage: '<var> [<value>]', summary: 'define a variable, or clear it without a value',
    async run(shell, input) {
      const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(input.rest);
      if (match === null) throw new ShellError(MESSAGES.usage('set', '<var> [<value>]'));
      if (match[2] === undefined) shell.variables.delete(match[1]!);
      else shell.variables.set(match[1]!, match[2].trim());
    },
    rawText: true,
  },
  {
    name: 'show', usage: '[<var>]', summary: 'the variables (passwords masked)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const wanted = input.words[0]?.text.replace(/^\$/, '');
      const entries = shell.variables.entries().filter(([name]) => wanted === undefined || name === wanted);
      if (wanted !== undefined && entries.length === 0) throw new ShellError(`The variable "${wanted}" is not defined.`);
      const group = (kind: string) => entries.filter(([, value]) =>
        (typeof value === 'string' ? 'other' : value.kind) === kind);
      const lines: string[] = [];
      for (const [kind, title] of [['node', 'Node variable:'], ['cluster', 'Cluster variable:'],
        ['other', 'Other variables:']] as const) {
        const members = group(kind);
        if (members.length > 0) lines.push(title, ...members.map(([name, value]) => `  ${name}=${variableText(name, value)}`));
      }
      shell.io.out(lines.join('\n'));
    },
  },
  {
    name: 'save', usage: '[<file>]', summary: 'write the definitions as a script (~/.gsshrc by default)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const path = input.words[0]?.text ?? rcPath(shell.env);
      try {
        writeFileSync(path, `${definitions(shell).join('\n')}\n`);
      } catch (error) {
        throw new ShellError(`The file ${path} cannot be written: ${(error as Error).message}`);
      }
    },
  },
  {
    name: 'load', usage: '[<file>]', summary: 'run a script (~/.gsshrc by default)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      await loadScript(shell, input.words[0]?.text ?? rcPath(shell.env));
    },
  },
  {
    name: 'connect', usage: '[$cluster [<database>]]', summary: 'connect as the setuser user ($cluster0 by default)',
    async run(shell, input) {
      expectWords(input, 0, 2);
      const cluster = shell.variables.cluster(input.words[0]?.text ?? '$cluster0');
      const credentials = shell.requireCredentials();
      await shell.result?.close();
      shell.result = undefined;
      const { variable, ...definition } = cluster;
      await shell.guard(shell.connection.connect({
        clusterVariable: variable, cluster: definition, credentials,
        database: input.words[1]?.text ?? DATABASE_PUBLIC,
      }));
      shell.containerNames = undefined;
      shell.io.out(MESSAGES.connected);
    },
  },
  {
    name: 'disconnect', usage: '', summary: 'disconnect and let the result go',
    async run(shell, input) {
      expectWords(input, 0);
      await shell.result?.close();
      shell.result = undefined;
      if (!await shell.connection.disconnect()) throw new ShellError(MESSAGES.connectionClosed);
      shell.io.out(MESSAGES.disconnected);
    },
  },
  {
    name: 'getcurrentdatabase', usage: '', summary: 'the database connected to',
    async run(shell, input) {
      expectWords(input, 0);
      const target = shell.connection.current;
      if (target === undefined) throw new ShellError(MESSAGES.connectionClosed);
      shell.io.out(target.database);
    },
  },
  {
    name: 'settimezone', usage: '[±hh:mm|±hhmm|Z|auto]', summary: 'the time zone TIMESTAMP values print in (UTC)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      shell.settings.timeZone = input.words[0] === undefined ? 0 : parseTimeZone(input.words[0].text);
      shell.variables.set('timezone', timeZoneText(shell.settings.timeZone));
    },
  },
  {
    name: 'setfetchsize', usage: '<rows>', summary: `rows fetched from the node a page at a time (1000; at most ${FETCH_SIZE_MAX})`,
    async run(shell, input) {
      expectWords(input, 1);
      shell.settings.fetchSize = positiveOf(input.words[0]!.text, 'setfetchsize', FETCH_SIZE_MAX);
    },
  },
  {
    name: 'setresultformat', usage: 'TABLE|CSV', summary: 'how get prints rows (TABLE)',
    async run(shell, input) {
      expectWords(input, 1);
      const format = input.words[0]!.text.toUpperCase();
      if (format !== 'TABLE' && format !== 'CSV') throw new ShellError(`setresultformat takes TABLE or CSV; not "${format}".`);
      shell.settings.resultFormat = format;
    },
  },
  {
    name: 'setresultmaxwidth', usage: '<n>', summary: 'widest column of a TABLE (31); longer values end in ...',
    async run(shell, input) {
      expectWords(input, 1);
      shell.settings.resultWidthMax = positiveOf(input.words[0]!.text, 'setresultmaxwidth', RESULT_WIDTH_MAX);
    },
  },
  {
    name: 'errexit', usage: '<bool>', summary: 'stop a script at its first error (on in gs_sh script.gsh)',
    async run(shell, input) {
      expectWords(input, 1);
      shell.settings.errexit = parseBoolean(input.words[0]!.text, 'errexit');
    },
  },
  {
    name: 'echo', usage: '<bool>', summary: 'print each statement before it runs',
    async run(shell, input) {
      expectWords(input, 1);
      shell.settings.echo = parseBoolean(input.words[0]!.text, 'echo');
    },
  },
  {
    name: 'print', usage: '<message>', summary: 'print a message ($variables expanded)', rawText: true,
    async run(shell, input) {
      shell.io.out(input.rest);
    },
  },
  {
    name: 'sleep', usage: '<seconds>', summary: 'wait (Ctrl-C stops waiting)',
    async run(shell, input) {
      expectWords(input, 1);
      const seconds = Number(input.words[0]!.text);
      if (!Number.isFinite(seconds) || seconds < 0 || seconds > SLEEP_S_MAX) {
        throw new ShellError(`sleep takes seconds from 0 to ${SLEEP_S_MAX}; not "${input.words[0]!.text}".`);
      }
      try {
        await sleep(seconds * 1000, undefined, { signal: shell.signal });
      } catch {
        throw new ShellError(MESSAGES.cancelled);
      }
    },
  },
  {
    name: 'exec', usage: '<command> [<arg> ...]', summary: 'run a program (no shell: no pipes or redirects)',
    async run(shell, input) {
      expectWords(input, 1, Number.MAX_SAFE_INTEGER);
      const [command, ...args] = input.words.map((word) => word.text);
      const answer = await new Promise<{ code: number; stdout: string; stderr: string; problem?: string }>((resolve) => {
        const child = execFile(command!, args, { maxBuffer: EXEC_OUTPUT_BYTES_MAX, signal: shell.signal },
          (error, stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
            const problem = error !== null && typeof error.code !== 'number' ? error.message : undefined;
            resolve({ code, stdout, stderr, ...(problem === undefined ? {} : { problem }) });
          });
        child.stdin?.end();
      });
      if (answer.stdout !== '') shell.io.out(answer.stdout.replace(/\n$/, ''));
      if (answer.stderr !== '') shell.io.err(answer.stderr.replace(/\n$/, ''));
      if (shell.signal.aborted) throw new ShellError(MESSAGES.cancelled);
      if (answer.problem !== undefined && answer.code === 1 && answer.stdout === '') {
        throw new ShellError(`exec: ${command} could not run: ${answer.problem}`);
      }
      if (answer.code !== 0) throw new ShellError(`exec: ${command} exited with code ${answer.code}.`);
    },
  },
  {
    name: 'history', usage: '', summary: `the last ${HISTORY_ENTRIES_MAX} statements (!N runs the N-th again, !! the last)`,
    async run(shell, input) {
      expectWords(input, 0);
      // The history statement itself is the last entry: not listed.
      const entries = shell.history.slice(0, -1);
      shell.io.out(entries.map((entry, i) => `${String(i + 1).padStart(5)}  ${entry}`).join('\n'));
    },
  },
  {
    name: 'help', usage: '[<sub-command>]', summary: 'the sub-commands, or one of them',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const wanted = input.words[0]?.text;
      if (wanted !== undefined) {
        const command = findCommand(wanted);
        if (command === undefined) throw new ShellError(MESSAGES.noSuchCommand(wanted));
        shell.io.out(`${command.name} ${command.usage}\n  ${command.summary}`);
        return;
      }
      const names = commandNames();
      const width = Math.max(...names.map((name) => name.length));
      shell.io.out(['Sub-commands (help <sub-command> for its arguments):',
        ...names.map((name) => `  ${name.padEnd(width)}  ${findCommand(name)!.summary}`)].join('\n'));
    },
  },
  {
    name: 'version', usage: '', summary: 'gs_sh\'s version',
    async run(shell, input) {
      expectWords(input, 0);
      shell.io.out(`gs_sh version ${PACKAGE_VERSION}`);
    },
  },
  ...['exit', 'quit'].map((name): SubCommand => ({
    name, usage: '', summary: 'end gs_sh',
    async run(shell, input) {
      expectWords(input, 0);
      shell.exitRequested = true;
    },
  })),
  {
    name: 'setntfif', usage: '[<IPv4>]', summary: 'the interface for multicast (unused: FIXED_LIST only)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      if (input.words[0] === undefined) shell.variables.delete('notificationInterfaceAddress');
      else shell.variables.set('notificationInterfaceAddress', input.words[0].text);
    },
  },
  refused('setauthmethod', 'INTERNAL|LDAP', 'store authenticates its own users only (INTERNAL)'),
  refused('setsslmode', 'DISABLED|PREFERRED|VERIFY', 'store clients connect without SSL'),
];
