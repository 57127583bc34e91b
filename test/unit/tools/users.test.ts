// gs_adduser, gs_passwd and gs_deluser as child processes against a real node process: each change
// takes effect on the running node at the next login, with no restart (the TypeScript client and
// the system service both see it); GridDB's messages and exit codes for bad names, duplicates in
// any case, missing users, a password mismatch and an empty password; the password asked twice
// on stdin when -p is absent; no password in the command log.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { getStore } from '../../../lib/client/store-factory.ts';
import { storageError } from '../engine/engine-test-helpers.ts';
import {
  newNodeHome, removeHome, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

const TOOLS = fileURLToPath(new URL('../../../tools/', import.meta.url));
const RUN_TIMEOUT_MS = 60_000;

/** Runs tools/<name>.ts with `input` on its stdin (a pipe, so not a terminal). */
function run(name: string, args: readonly string[], env: NodeJS.ProcessEnv, input = ''):
  Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(TOOLS, `${name}.ts`), ...args],
      { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not end: ${stdout}${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('gs_adduser, gs_passwd, gs_deluser', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    env = node.env;
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  /** Lists the containers as `user`: resolves when the login succeeds. */
  async function login(username: string, password: string): Promise<void> {
    const store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username, password, applicationName: 'users-test', transactionTimeout: 1, failoverTimeout: 1,
    });
    try {
      await store.getContainerNames();
    } finally {
      await store.close();
    }
  }

  async function gsStat(user: string): Promise<ToolRun> {
    return run('gs_stat', ['-u', user, '-p', String(node.systemPort)], env);
  }

  it('adds a user a running node accepts at once, client and system service alike', async () => {
    await assert.rejects(login('gs#ops', 'first-pw'), storageError('AUTHENTICATION_FAILED'));
    const added = await run('gs_adduser', ['gs#ops', '-p', 'first-pw'], env);
    assert.deepEqual(added, { code: 0, stdout: '', stderr: '' });
    assert.match(readFileSync(join(node.home, 'conf', 'password'), 'utf8'),
      /^gs#ops,[0-9a-f]{64}$/m);
    await login('gs#ops', 'first-pw');
    assert.equal((await gsStat('gs#ops/first-pw')).code, 0);
  });

  it('changes a password: the old one is refused, the new one accepted, no restart', async () => {
    const changed = await run('gs_passwd', ['gs#ops', '-p', 'second-pw'], env);
    assert.deepEqual(changed, { code: 0, stdout: '', stderr: '' });
    await assert.rejects(login('gs#ops', 'first-pw'), storageError('AUTHENTICATION_FAILED'));
    await login('gs#ops', 'second-pw');
    const old = await gsStat('gs#ops/first-pw');
    assert.equal(old.code, 1);
    assert.match(old.stderr, /^A00102: Authentication failed\.$/m);
  });

  it('asks for the password twice on stdin when -p is absent, and never prints it', async () => {
    const added = await run('gs_adduser', ['gs#piped'], env, 'typed-pw\ntyped-pw\n');
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stdout, '');
    assert.equal(added.stderr, 'Password: \nRetype password: \n');
    await login('gs#piped', 'typed-pw');

    const mismatch = await run('gs_adduser', ['gs#other'], env, 'one-pw\ntwo-pw\n');
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stderr, /^A10103: Password mismatch\.$/m);
    assert.doesNotMatch(mismatch.stdout + mismatch.stderr, /one-pw|two-pw/);

    const passwd = await run('gs_passwd', ['gs#piped'], env, 'retyped-pw\nretyped-pw\n');
    assert.equal(passwd.code, 0, passwd.stderr);
    await login('gs#piped', 'retyped-pw');
    const passwdMismatch = await run('gs_passwd', ['gs#piped'], env, 'a\nb\n');
    assert.equal(passwdMismatch.code, 1);
    assert.match(passwdMismatch.stderr, /^AB0103: The password mismatch\.$/m);
  });

  it('keeps passwords out of the command log, which masks -p and -u', async () => {
    await run('gs_passwd', ['gs#piped', '-p', 'logged-pw?'], env);
    await run('gs_stat', ['-u', 'gs#piped/logged-pw?', '-p', String(node.systemPort)], env);
    const logs = ['gs_adduser', 'gs_passwd', 'gs_stat'].map((name) =>
      readFileSync(join(node.home, 'log', `${name}.log`), 'utf8'));
    for (const log of logs) {
      for (const password of ['first-pw', 'second-pw', 'typed-pw', 'retyped-pw', 'logged-pw']) {
        assert.ok(!log.includes(password), `${password} in the log:\n${log}`);
      }
    }
    assert.match(logs[1]!, /\[\d+\] \[INFO\] gs_passwd start\. \(args: gs#piped -p \*\*\*\)/);
    assert.match(logs[2]!, /gs_stat start\. \(args: -u gs#piped\/\*\*\* -p \d+\)/);
    // A password glued to its option is masked too.
    await run('gs_passwd', ['gs#piped', '--password=glued-pw'], env);
    await run('gs_passwd', ['gs#piped', '-plogged-pw?'], env);
    assert.doesNotMatch(readFileSync(join(node.home, 'log', 'gs_passwd.log'), 'utf8'),
      /glued-pw|logged-pw/);
    assert.match(logs[0]!, /\[ERROR\] gs_adduser A10103: Password mismatch\./);
  });

  it('refuses bad names, duplicates in any case, empty passwords: GridDB codes', async () => {
    const cases: Array<[string, string[], number, RegExp]> = [
      ['gs_adduser', ['ops', '-p', 'x'], 1, /^A10002: The username must start with 'gs#'/m],
      ['gs_adduser', ['gs#bad-name', '-p', 'x'], 1, /^A10002: /m],
      ['gs_adduser', ['gs#', '-p', 'x'], 1, /^A10002: /m],
      ['gs_adduser', ['GS#OPS', '-p', 'x'], 1, /^A10002: /m],
      ['gs_adduser', ['gs#OPS', '-p', 'x'], 1,
        /^A10102: USERNAME 'gs#OPS' already exists\. This is case insensitive\.$/m],
      ['gs_adduser', ['admin', '-p', 'x'], 1, /^A10102: USERNAME 'admin' already exists/m],
      ['gs_adduser', ['gs#new', '-p', ''], 1, /^A10104: Password cannot include space\.$/m],
      ['gs_adduser', [], 2, /^A10001: Specify the USERNAME\.$/m],
      ['gs_passwd', ['gs#nobody', '-p', 'x'], 1,
        /^AB0102: The USERNAME 'gs#nobody' does not exist\.$/m],
      ['gs_passwd', ['gs#ops', '-p', ''], 1, /^AB0104: /m],
      ['gs_passwd', [], 2, /^AB0001: Specify the USERNAME\.$/m],
      ['gs_deluser', ['gs#nobody'], 1, /^A60102: USERNAME 'gs#nobody' does not exist\.$/m],
      ['gs_deluser', ['admin'], 1, /^A60103: The built-in USERNAME 'admin' cannot be deleted\.$/m],
      ['gs_deluser', [], 2, /^A60001: Specify USERNAME\.$/m],
    ];
    const before = readFileSync(join(node.home, 'conf', 'password'), 'utf8');
    for (const [name, args, code, message] of cases) {
      const result = await run(name, args, env);
      assert.equal(result.code, code, `${name} ${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `${name} ${args.join(' ')}`);
    }
    assert.equal(readFileSync(join(node.home, 'conf', 'password'), 'utf8'), before);
    await login('admin', 'admin');
  });

  it('removes a user: the running node refuses it from the next login on', async () => {
    const removed = await run('gs_deluser', ['gs#ops'], env);
    assert.deepEqual(removed, { code: 0, stdout: '', stderr: '' });
    await assert.rejects(login('gs#ops', 'second-pw'), storageError('AUTHENTICATION_FAILED'));
    assert.equal((await gsStat('gs#ops/second-pw')).code, 1);
    await login('gs#piped', 'logged-pw?');
  });

  it('changes the default admin password without a restart', async () => {
    assert.equal((await run('gs_passwd', ['admin', '-p', 'n3w-secret'], env)).code, 0);
    await assert.rejects(login('admin', 'admin'), storageError('AUTHENTICATION_FAILED'));
    await login('admin', 'n3w-secret');
    assert.equal((await gsStat('admin/n3w-secret')).code, 0);
  });
});
