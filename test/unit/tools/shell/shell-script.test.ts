// gs_sh's script mode (tools/shell/shell-script.ts, tools/gs_sh.ts): a script stops at its first
// failing statement and exits 1 (the statements after it do not run); --continue and `errexit
// false` go on and still exit 1; a clean script exits 0; comments, blank lines and TQL over several
// lines; a script on stdin; SIGINT stops a script; bad arguments exit 2. No node is needed: the
// statements are ones that do not connect.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GS_SH, newShellHome, runShell } from './shell-test-helpers.ts';

const SCRIPT_TIMEOUT_MS = 60_000;

function env(): NodeJS.ProcessEnv {
  const home = newShellHome();
  return { ...process.env, HOME: home, GS_HOME: mkdtempSync(join(tmpdir(), 'store-gssh-home-')), GS_LOG: join(home, 'log') };
}

function script(environment: NodeJS.ProcessEnv, lines: readonly string[]): string {
  const path = join(environment['HOME']!, 'test.gsh');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('gs_sh script mode', { timeout: 300_000 }, () => {
  it('stops at the first error with exit 1, naming the file and line', async () => {
    const environment = env();
    const path = script(environment, ['# a comment', '', 'print one', 'nosuch', 'print two']);
    const run = await runShell([path], environment);
    assert.deepEqual(run, {
      code: 1, stdout: 'one\n',
      stderr: `D20401: This sub command nosuch does not exist. The help sub command provides a list of all sub commands. (${path}:4)\n`,
    });
  });

  it('--continue and errexit false go on after an error, and the exit code is still 1', async () => {
    const environment = env();
    const path = script(environment, ['print one', 'nosuch', 'print two']);
    const continued = await runShell([path, '--continue'], environment);
    assert.equal(continued.code, 1);
    assert.equal(continued.stdout, 'one\ntwo\n');
    const second = script(environment, ['errexit false', 'nosuch', 'print two', 'errexit true', 'nosuch', 'print three']);
    const errexit = await runShell([second], environment);
    assert.equal(errexit.code, 1);
    assert.equal(errexit.stdout, 'two\n');
    assert.equal(errexit.stderr.split('\n').length - 1, 2);
  });

  it('a clean script exits 0; a script on stdin runs the same way', async () => {
    const environment = env();
    const path = script(environment, ['print one', 'print two']);
    assert.deepEqual(await runShell([path], environment), { code: 0, stdout: 'one\ntwo\n', stderr: '' });
    assert.deepEqual(await runShell([], environment, 'print from stdin\nnosuch\nprint not reached\n'), {
      code: 1, stdout: 'from stdin\n',
      stderr: 'D20401: This sub command nosuch does not exist. The help sub command provides a list of all sub commands. (stdin:2)\n',
    });
  });

  it('bad arguments exit 2; a missing script exits 1', async () => {
    const environment = env();
    const notGsh = await runShell(['script.txt'], environment);
    assert.equal(notGsh.code, 2);
    assert.match(notGsh.stderr, /^gs_sh takes one script, whose name ends with \.gsh\.\nTry 'gs_sh --help' for the options\.\n$/);
    const two = await runShell(['a.gsh', 'b.gsh'], environment);
    assert.equal(two.code, 2);
    const missing = await runShell([join(environment['HOME']!, 'nosuch.gsh')], environment);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^The script \S+nosuch\.gsh cannot be read: ENOENT/);
    const version = await runShell(['-v'], environment);
    assert.deepEqual(version, { code: 0, stdout: 'gs_sh (store) 0.1.0\n', stderr: '' });
  });

  it('load stops at a failing statement of the loaded script when errexit is on', async () => {
    const environment = env();
    const inner = join(environment['HOME']!, 'inner.gsh');
    writeFileSync(inner, 'print inner one\nnosuch\nprint inner two\n');
    const path = script(environment, [`load ${inner}`, 'print after']);
    const run = await runShell([path], environment);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, 'inner one\n');
    assert.match(run.stderr, new RegExp(`\\(${inner}:2\\)\\nload: ${inner} stopped at its first error\\. \\(${path}:1\\)\\n$`));
    const self = join(environment['HOME']!, 'self.gsh');
    writeFileSync(self, `load ${self}\n`);
    const loop = await runShell([self], environment);
    assert.equal(loop.code, 1);
    assert.match(loop.stderr, /load: scripts may load scripts 8 deep at most/);
  });

  it('SIGINT stops a running script: the statement is cancelled and nothing after it runs', async () => {
    const environment = env();
    const path = script(environment, ['print start', 'sleep 60', 'print not reached']);
    const child = spawn(process.execPath, ['--import', 'tsx', GS_SH, path], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('start\n')) resolve();
    }));
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 1);
    assert.equal(stdout, 'start\n');
    assert.match(stderr, /^The statement was cancelled \(Ctrl-C\)\. \(\S+:2\)\n$/);
  });
});
