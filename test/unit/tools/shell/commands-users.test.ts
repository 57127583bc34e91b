// gs_sh's user and database sub-commands in script mode against a real node process
// (tools/shell/commands-users.ts): an administrator creates a general user, a database and a
// grant, the user connects and changes its own password, showuser and showdatabase list them,
// dropuser removes the user; a general user cannot manage users or databases, and the
// administrators' passwords go through gs_passwd (D20354).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNECT, runScriptFile, shellNodeForSuite } from './shell-test-helpers.ts';

describe('gs_sh user and database sub-commands', { timeout: 300_000 }, () => {
  const shell = shellNodeForSuite();

  it('createuser, createdatabase, grantacl, connect as the user, setpassword, show, revoke, drop', async () => {
    const run = await runScriptFile([...CONNECT,
      'createuser ops first_pw',
      'createdatabase db1',
      'grantacl READ db1 ops',
      'showuser',
      'showuser ops',
      'showdatabase',
      'setuser ops first_pw',
      'connect',
      'setpassword second_pw',
      'setuser ops second_pw',
      'connect',
      'setuser admin admin',
      'connect',
      'revokeacl READ db1 ops',
      'grantacl ALL db1 ops',
      'showdatabase db1',
      'dropuser ops',
      'dropdatabase db1',
      'showdatabase',
      'errexit false',
      'setuser ops second_pw',
      'connect',
    ], shell.env);
    assert.equal(run.code, 1, run.stderr);
    assert.ok(run.stdout.includes('Name                 Type\nadmin                Administrator\n' +
      'system               Administrator\nops                  General User\n'), run.stdout);
    assert.ok(run.stdout.includes('Name                 Type\nops                  General User\n' +
      'Database             Privilege\npublic               ALL\ndb1                  READ\n'), run.stdout);
    assert.ok(run.stdout.includes('Name             ACL\n---------------------------------\n' +
      'public           ALL_USER\ndb1              ops             READ\n'), run.stdout);
    assert.ok(run.stdout.includes('Name             ACL\n---------------------------------\n' +
      'db1              ops             ALL\n'), run.stdout);
    assert.ok(run.stdout.endsWith('Name             ACL\n---------------------------------\n' +
      'public           ALL_USER\n'), run.stdout);
    assert.equal(run.stdout.split('The connection attempt was successful(NoSQL).').length - 1, 4, run.stdout);
    assert.match(run.stderr, /^D20300: The connection attempt failed .*\n$/);
  });

  it('refuses what GridDB refuses: a general user managing users, bad names, administrators\' passwords', async () => {
    const run = await runScriptFile([...CONNECT,
      'createuser viewer viewer_pw',
      'errexit false',
      'createuser gs#x pw',
      'createuser viewer other',
      'setpassword admin new_pw',
      'setpassword nosuch pw',
      'grantacl WRITE public viewer',
      'createuser gs#x',
      'setuser viewer viewer_pw',
      'connect',
      'createuser other pw',
      'createdatabase db2',
      'setpassword admin2 pw',
    ], shell.env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '').map((line) => line.replace(/ \(\S+:\d+\)$/, ''));
    assert.equal(errors.length, 9, run.stderr);
    assert.match(errors[0]!, /^TXN_USER_NAME_INVALID: "gs#x" cannot be a general user name/);
    assert.equal(errors[1], 'TXN_USER_NAME_ALREADY_EXISTS: user "viewer" already exists');
    assert.equal(errors[2], 'D20354: To change the administrator "admin" password, execute gs_passwd operating command.');
    assert.match(errors[3]!, /^TXN_USER_NOT_EXIST: user "nosuch" does not exist/);
    assert.equal(errors[4], 'The privilege must be ALL or READ, not "WRITE".');
    assert.equal(errors[5], 'The arguments of createuser are wrong. Usage: createuser <user> <password>');
    assert.match(errors[6]!, /^TXN_OPERATION_NOT_ALLOWED: CREATE USER: only an administrator/);
    assert.match(errors[7]!, /^TXN_OPERATION_NOT_ALLOWED: CREATE DATABASE: only an administrator/);
    assert.match(errors[8]!, /^TXN_OPERATION_NOT_ALLOWED: SET PASSWORD: user viewer may change only its own password/);
  });

  it('needs a connection', async () => {
    const run = await runScriptFile(['showuser'], shell.env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^D20302: This connection has already been closed\(NoSQL\)/);
  });
});
