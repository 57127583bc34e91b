// gs_sh's session sub-commands in script mode against a real node process
// (tools/shell/commands-session.ts): connect by default to the node of GS_HOME and its
// errors, variables and $name expansion, show with passwords masked, save and load, ~/.gsshrc at
// start, echo, print, sleep, exec, history with !N, help, version, exit; the database commands of
// the one database; setclustersql, accepted for GridDB scripts; an unknown sub-command (D20401); and
// the command log with the password masked.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../node/node-process.ts';
import { MESSAGES } from '../../../../tools/shell/shell-messages.ts';
import { newShellHome, runScriptFile, shellEnv } from './shell-test-helpers.ts';

function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '').map((line) => line.replace(/ \(\S+:\d+\)$/, ''));
}

describe('gs_sh session sub-commands', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let env: NodeJS.ProcessEnv;
  let home: string;

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    home = newShellHome();
    env = shellEnv(node, home);
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  it('connects to the node of GS_HOME by default, and to a cluster defined by setcluster', async () => {
    const run = await runScriptFile([
      'setuser admin admin',
      'connect $cluster0',
      'getcurrentdatabase',
      'disconnect',
      `setcluster mine myCluster FIXED_LIST 127.0.0.1:${node.transactionPort} $node0`,
      'connect $mine public',
      'showdatabase',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, ['The connection attempt was successful(NoSQL).', 'public',
      'Disconnected connection attempt was successful.', 'The connection attempt was successful(NoSQL).',
      'Name             ACL', '---------------------------------', 'public           ALL_USER', ''].join('\n'));
  });

  it('says why it cannot connect', async () => {
    const run = await runScriptFile([
      'errexit false',
      'connect',
      'setuser admin wrong',
      'connect',
      'setuser admin admin',
      'connect $cluster0 other',
      'connect $nosuch',
      'setcluster bad myCluster MULTICAST 239.0.0.1 31999',
      'disconnect',
      'tql x select *;',
    ], env);
    assert.equal(run.code, 1);
    const errors = errorLines(run.stderr);
    assert.equal(errors[0], 'D20201: The username and password is not set. Set them by setuser sub command.');
    assert.match(errors[1]!, /^D20300: The connection attempt failed \(127\.0\.0\.1:\d+\): .*AUTHENTICATION_FAILED|^D20300: .*(auth|password)/i);
    assert.match(errors[2]!, /^D20300: The connection attempt failed \(127\.0\.0\.1:\d+\): .*"other" does not exist/);
    assert.equal(errors[3], 'The variable "nosuch" is not defined. Define it with set nosuch <value>.');
    assert.match(errors[4]!, /^setcluster: store clients find nodes by FIXED_LIST only; not MULTICAST/);
    assert.match(errors[5]!, /^D20302: This connection has already been closed\(NoSQL\)/);
    assert.match(errors[6]!, /^D20302: This connection has already been closed\(NoSQL\)/);
    assert.equal(errors.length, 7, run.stderr);
  });

  it('variables: set, $name, show with passwords masked, clear; an undefined one is an error', async () => {
    const run = await runScriptFile([
      'setuser admin s3cret',
      'set name meter 1',
      'set n 42',
      'print $name has $n rows',
      'set n',
      'show',
      'show name',
      'errexit false',
      'print $n',
      'set bad-name 1',
    ], env);
    assert.equal(run.code, 1);
    assert.ok(run.stdout.startsWith('meter 1 has 42 rows\n'), run.stdout);
    assert.ok(run.stdout.includes('Other variables:\n  name=meter 1\n  password=*****\n  user=admin\n'), run.stdout);
    assert.match(run.stdout, /Node variable:\n {2}node0=Node\[127\.0\.0\.1:\d+\]\nCluster variable:\n {2}cluster0=Cluster\[name=myCluster,mode=FIXED_LIST,transaction=127\.0\.0\.1:\d+,nodes=\(\$node0\)\]\n/);
    assert.doesNotMatch(run.stdout, /s3cret/);
    assert.deepEqual(errorLines(run.stderr), [
      'The variable "n" is not defined. Define it with set n <value>.',
      'The variable name "bad-name" is wrong: use ASCII letters, digits and _ (at most 256).',
    ]);
  });

  it('save writes the definitions without the user; load runs a script; ~/.gsshrc runs at start', async () => {
    const saved = join(home, 'saved.gsh');
    const first = await runScriptFile(['setuser admin admin', 'set greeting hello', `save ${saved}`], env);
    assert.equal(first.code, 0, first.stderr);
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^set greeting hello$/m);
    assert.match(text, /^setcluster cluster0 myCluster FIXED_LIST 127\.0\.0\.1:\d+ \$node0$/m);
    assert.doesNotMatch(text, /admin|password/);
    const second = await runScriptFile([`load ${saved}`, 'print $greeting'], env);
    assert.equal(second.stdout, 'hello\n', second.stderr);
    writeFileSync(join(home, '.gsshrc'), 'set fromrc yes\n');
    try {
      const third = await runScriptFile(['print rc=$fromrc'], env);
      assert.equal(third.stdout, 'rc=yes\n', third.stderr);
    } finally {
      writeFileSync(join(home, '.gsshrc'), '');
    }
    const missing = await runScriptFile([`load ${join(home, 'nosuch.gsh')}`], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^The script \S+nosuch\.gsh cannot be read: ENOENT/);
  });

  it('echo, print, sleep, exec, history and !N, help, version, exit', async () => {
    const run = await runScriptFile([
      'print one',
      'echo on',
      'print two',
      'echo off',
      'sleep 0.1',
      'exec echo from exec',
      'history',
      '!1',
      'help tql',
      'version',
      'exit',
      'print not reached',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, ['one', 'print two', 'two', 'echo off', 'from exec',
      '    1  print one', '    2  echo on', '    3  print two', '    4  echo off', '    5  sleep 0.1',
      '    6  exec echo from exec', 'print one', 'one', 'tql <container> <query>;',
      '  run a TQL query and keep its result', 'gs_sh version 0.1.0', ''].join('\n'));
    const help = await runScriptFile(['help'], env);
    for (const name of ['connect', 'tql', 'getcsv', 'putrow', 'createuser', 'showconnection', 'killsql', 'exit']) {
      assert.match(help.stdout, new RegExp(`\\n {2}${name} +\\S`), name);
    }
  });

  it('exec, sleep and the sub-command names say what is wrong', async () => {
    const run = await runScriptFile([
      'errexit false',
      'exec false',
      'exec /no/such/program',
      'sleep -1',
      'nosuchcommand 1',
      'help nosuch',
      'echo maybe',
      'createdatabase db1',
      '!99',
    ], env);
    assert.equal(run.code, 1);
    const errors = errorLines(run.stderr);
    assert.equal(errors[0], 'exec: false exited with code 1.');
    assert.match(errors[1]!, /^exec: \/no\/such\/program could not run: .*ENOENT/);
    assert.equal(errors[2], 'sleep takes seconds from 0 to 86400; not "-1".');
    assert.equal(errors[3], 'D20401: This sub command nosuchcommand does not exist. The help sub command ' +
      'provides a list of all sub commands.');
    assert.equal(errors[4], 'D20401: This sub command nosuch does not exist. The help sub command ' +
      'provides a list of all sub commands.');
    assert.equal(errors[5], 'echo takes one of yes, no, on, off, true, false, 1, 0; not "maybe".');
    assert.match(errors[6]!, /^D20302: This connection has already been closed\(NoSQL\)/);
    assert.equal(errors[7], 'There is no statement !99 in the history.');
  });

  it('setclustersql of a GridDB script is accepted and says SQL goes through the transaction service', async () => {
    const run = await runScriptFile([
      'setcluster c myCluster FIXED_LIST 127.0.0.1:10001',
      'setclustersql c myCluster FIXED_LIST 127.0.0.1:20001',
      'errexit false',
      'select 1;',
    ], env);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, 'setclustersql: SQL goes through the transaction service of $c (setcluster); ' +
      'the SQL address is not used.\n');
    // SQL needs a connection like every data sub-command.
    assert.deepEqual(errorLines(run.stderr), [MESSAGES.connectionClosed]);
  });

  it('logs each statement to $GS_LOG/gs_sh.log with the passwords masked', async () => {
    const run = await runScriptFile(['setuser admin very-secret-pw', 'print logged'], env);
    assert.equal(run.code, 0, run.stderr);
    const log = readFileSync(join(node.home, 'log', 'gs_sh.log'), 'utf8');
    assert.match(log, /statement: setuser admin \*\*\*/);
    assert.match(log, /statement: print logged/);
    assert.doesNotMatch(log, /very-secret-pw/);
  });
});
