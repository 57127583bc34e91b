// Authentication against conf/password, the library part of gs_adduser / gs_passwd, and the running
// node's view of the file (LivePasswordFile).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { createDefaultFiles } from '../../../lib/config/default-files.ts';
import {
  addUser, changePassword, LivePasswordFile, PasswordTable, readPasswordTable, removeUser,
} from '../../../lib/config/users.ts';
import { DEFAULT_PASSWORD_ENTRIES } from '../../../lib/config/password-file.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

function authenticationError(error: unknown): StorageError {
  assert.ok(error instanceof StorageError);
  return error;
}

function failureOf(table: PasswordTable, user: string, password: string): StorageError {
  try {
    table.authenticate(user, password);
  } catch (error) {
    return authenticationError(error);
  }
  assert.fail(`${user} logged in`);
}

describe('users', () => {
  const table = new PasswordTable(DEFAULT_PASSWORD_ENTRIES);

  it('lets admin/admin and system/manager in', () => {
    table.authenticate('admin', 'admin');
    table.authenticate('system', 'manager');
    assert.equal(table.verify('admin', 'admin'), true);
  });

  it('gives a wrong user and a wrong password the same error', () => {
    const wrongUser = failureOf(table, 'gs#nobody', 'admin');
    const wrongPassword = failureOf(table, 'admin', 'manager');
    for (const error of [wrongUser, wrongPassword]) {
      assert.equal(error.code, 'AUTHENTICATION_FAILED');
      assert.equal(error.errorNumber, 10005);
      assert.equal(error.message, 'authentication failed');
    }
    assert.deepEqual({ ...wrongUser, stack: '' }, { ...wrongPassword, stack: '' });
  });

  it('lets nobody in as a user whose password is not set, not even with an empty one', () => {
    const unset = new PasswordTable([{ user: 'admin', passwordSha256Hex: '' }]);
    assert.equal(unset.verify('admin', ''), false);
    assert.equal(unset.verify('admin', 'admin'), false);
  });

  it('gives the password digest to the transaction server\'s lookup', () => {
    assert.equal(table.passwordDigestHex('admin'), DEFAULT_PASSWORD_ENTRIES[0]!.passwordSha256Hex);
    assert.equal(table.passwordDigestHex('gs#nobody'), undefined);
    assert.equal(new PasswordTable([{ user: 'admin', passwordSha256Hex: '' }])
      .passwordDigestHex('admin'), undefined);
  });

  it('is case-sensitive in names and passwords', () => {
    assert.equal(table.verify('Admin', 'admin'), false);
    assert.equal(table.verify('admin', 'Admin'), false);
  });

  it('adds a user and changes a password in the file, atomically', async () => {
    const fileSystem = new SimFileSystem({ seed: 3 });
    await createDefaultFiles(fileSystem, '/h');
    await addUser(fileSystem, '/h', { user: 'gs#ops', password: 'op-secret' });
    await changePassword(fileSystem, '/h', { user: 'admin', password: 'n3w' });
    fileSystem.crash();
    const users = readPasswordTable(fileSystem, '/h');
    users.authenticate('gs#ops', 'op-secret');
    users.authenticate('admin', 'n3w');
    assert.equal(users.verify('admin', 'admin'), false);
    assert.equal(fileSystem.exists('/h/conf/password.tmp'), false);
    await removeUser(fileSystem, '/h', 'gs#ops');
    assert.equal(readPasswordTable(fileSystem, '/h').has('gs#ops'), false);
  });

  it('leaves the file unchanged when a request is refused', async () => {
    const fileSystem = new SimFileSystem({ seed: 4 });
    await createDefaultFiles(fileSystem, '/h');
    const before = fileSystem.fileBytes('/h/conf/password');
    await assert.rejects(addUser(fileSystem, '/h', { user: 'admin', password: 'x' }),
      (error: unknown) => authenticationError(error).code === 'USER_EXISTS');
    await assert.rejects(changePassword(fileSystem, '/h', { user: 'gs#x', password: 'x' }),
      (error: unknown) => authenticationError(error).code === 'USER_NOT_FOUND');
    assert.deepEqual(fileSystem.fileBytes('/h/conf/password'), before);
  });

  it('refuses to start without a password file', () => {
    const fileSystem = new SimFileSystem({ seed: 5 });
    assert.throws(() => readPasswordTable(fileSystem, '/h'),
      (error: unknown) => authenticationError(error).code === 'CONFIG_INVALID' &&
        /\/h\/conf\/password does not exist/.test(authenticationError(error).message));
  });

  it('a running node sees each change at the next read, keeps the last good file', async () => {
    const fileSystem = new SimFileSystem({ seed: 6 });
    await createDefaultFiles(fileSystem, '/h');
    const problems: string[] = [];
    const live = new LivePasswordFile(fileSystem, '/h', readPasswordTable(fileSystem, '/h'),
      (message) => problems.push(message));
    assert.equal(live.current().verify('gs#ops', 'op-secret'), false);
    await addUser(fileSystem, '/h', { user: 'gs#ops', password: 'op-secret' });
    assert.equal(live.current().verify('gs#ops', 'op-secret'), true);
    await changePassword(fileSystem, '/h', { user: 'gs#ops', password: 'changed' });
    assert.equal(live.current().verify('gs#ops', 'op-secret'), false);
    assert.equal(live.current().verify('gs#ops', 'changed'), true);

    // A hand edit that breaks the file locks nobody out; the problem is told once.
    const file = fileSystem.open('/h/conf/password', 'readWrite');
    file.write(new TextEncoder().encode('broken line\n'), 0);
    file.close();
    for (let i = 0; i < 3; i++) assert.equal(live.current().verify('gs#ops', 'changed'), true);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /\/h\/conf\/password line 1: .*the users read before stay in force/);
    fileSystem.remove('/h/conf/password');
    assert.equal(live.current().verify('admin', 'admin'), true);
    assert.equal(problems.length, 2);
  });
});
