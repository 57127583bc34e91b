// gs_sh's user sub-commands in script mode against a real node process
// (tools/shell/commands-users.ts): createuser adds a user the running node accepts at once (gs_sh
// connects as it), setpassword changes it, showuser lists, dropuser removes; the built-in users'
// passwords go through gs_passwd (D20354); bad names and missing users are refused.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNECT, runScriptFile, shellNodeForSuite } from './shell-test-helpers.ts';

describe('gs_sh user sub-commands', { timeout: 300_000 }, () => {
  const shell = shellNodeForSuite();

  it('createuser, connect as the user, setpassword, showuser, dropuser', async () => {
    const run = await runScriptFile([...CONNECT,
      'createuser gs#ops first-pw',
      'showuser',
      'setuser gs#ops first-pw',
      'connect',
      'setpassword second-pw',
      'setuser gs#ops second-pw',
      'connect',
      'setuser admin admin',
      'connect',
      'dropuser gs#ops',
      'showuser',
      'errexit false',
      'setuser gs#ops second-pw',
      'connect',
    ], shell.env);
    assert.equal(run.code, 1);
    assert.ok(run.stdout.includes('Name                 Type\nadmin                Administrator\n' +
      'system               Administrator\ngs#ops               Administrator\n'), run.stdout);
    assert.equal(run.stdout.split('The connection attempt was successful(NoSQL).').length - 1, 4, run.stdout);
    assert.ok(run.stdout.endsWith('Name                 Type\nadmin                Administrator\n' +
      'system               Administrator\n'), run.stdout);
    assert.match(run.stderr, /^D20300: The connection attempt failed .*\(\S+:16\)\n$/);
  });

  it('refuses bad names, missing users and the built-in users\' passwords', async () => {
    const run = await runScriptFile([...CONNECT,
      'errexit false',
      'createuser ops pw',
      'createuser admin pw',
      'dropuser gs#nosuch',
      'dropuser admin',
      'setpassword admin new-pw',
      'setpassword gs#nosuch pw',
      'showuser gs#nosuch',
      'createuser gs#x',
    ], shell.env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '').map((line) => line.replace(/ \(\S+:\d+\)$/, ''));
    assert.deepEqual(errors, [
      'USER_INVALID: "ops" is not an administrator user name: admin, system, or gs# followed by letters, ' +
        'digits and _ (at most 64 characters)',
      'USER_EXISTS: user "admin" already exists',
      'USER_NOT_FOUND: user "gs#nosuch" does not exist',
      'USER_INVALID: the built-in user "admin" cannot be removed',
      'D20354: To change the administrator "admin" password, execute gs_passwd operating command.',
      'USER_NOT_FOUND: user "gs#nosuch" does not exist',
      'The user "gs#nosuch" does not exist.',
      'The arguments of createuser are wrong. Usage: createuser <user> <password>',
    ]);
  });

  it('needs a connection', async () => {
    const run = await runScriptFile(['showuser'], shell.env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^D20302: This connection has already been closed\(NoSQL\)/);
  });
});
