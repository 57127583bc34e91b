// conf/password: `<user>,<sha256 hex>` a line; a malformed line is an error naming the line.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import {
  DEFAULT_PASSWORD_ENTRIES, formatPasswordFile, parsePasswordFile, passwordEntriesWithPassword,
  passwordEntriesWithUser, passwordEntriesWithoutUser, sha256Hex,
} from '../../../lib/config/password-file.ts';

const ADMIN_HASH = '8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918';
const SYSTEM_HASH = '6ee4a469cd4e91053847f5d3fcb61dbcc91e8f0ef10be7748da4c4a1ba382d17';

function failure(code: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof StorageError);
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('password file', () => {
  it('ships admin/admin and system/manager as GridDB\'s packages do', () => {
    assert.equal(sha256Hex('admin'), ADMIN_HASH);
    assert.equal(sha256Hex('manager'), SYSTEM_HASH);
    assert.equal(formatPasswordFile(DEFAULT_PASSWORD_ENTRIES),
      `admin,${ADMIN_HASH}\nsystem,${SYSTEM_HASH}\n`);
  });

  it('parses the package file and the source tree\'s file without hashes', () => {
    assert.deepEqual(parsePasswordFile(`admin,${ADMIN_HASH}\nsystem,${SYSTEM_HASH}\n`, 'p'),
      DEFAULT_PASSWORD_ENTRIES);
    assert.deepEqual(parsePasswordFile('admin,\nsystem,\n', 'p'), [
      { user: 'admin', passwordSha256Hex: '' }, { user: 'system', passwordSha256Hex: '' },
    ]);
  });

  it('tolerates CRLF, blank lines, a missing last newline, and upper-case hex', () => {
    const text = `admin,${ADMIN_HASH.toUpperCase()}\r\n\r\ngs#ops_1,${SYSTEM_HASH}`;
    assert.deepEqual(parsePasswordFile(text, 'p'), [
      { user: 'admin', passwordSha256Hex: ADMIN_HASH },
      { user: 'gs#ops_1', passwordSha256Hex: SYSTEM_HASH },
    ]);
  });

  const malformed: [string, string, RegExp][] = [
    ['no comma', `admin,${ADMIN_HASH}\nadmin${ADMIN_HASH}\n`,
      /^\/h\/conf\/password line 2: not "<user>,<SHA-256 hex of the password>" \(the line has 0 commas, not 1\)$/],
    ['two commas', `admin,${ADMIN_HASH},x\n`, /line 1: .*has 2 commas/],
    ['short hash', 'admin,abc\n', /line 1: the password of "admin" is not 64 hex digits/],
    ['hash with a non-hex digit', `admin,${ADMIN_HASH.slice(0, 63)}z\n`, /line 1: the password/],
    ['bad user name', `operator,${ADMIN_HASH}\n`,
      /line 1: "operator" is not an administrator user name: admin, system, or gs#/],
    ['empty user name', `,${ADMIN_HASH}\n`, /line 1: "" is not an administrator user name/],
    ['space in a name', `gs#a b,${ADMIN_HASH}\n`, /line 1: "gs#a b" is not/],
    ['user listed twice', `admin,\nsystem,\n\nadmin,${ADMIN_HASH}\n`,
      /line 4: user "admin" is listed again \(line 1\)/],
  ];
  for (const [name, text, pattern] of malformed) {
    it(`names the line of a malformed entry: ${name}`, () => {
      assert.throws(() => parsePasswordFile(text, '/h/conf/password'),
        failure('CONFIG_INVALID', pattern));
    });
  }

  it('never echoes a malformed line, which may hold a password in clear', () => {
    assert.throws(() => parsePasswordFile('admin secret-password\n', 'p'), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.doesNotMatch(error.message, /secret-password/);
      return true;
    });
  });

  it('adds a gs# user, changes a password, removes a user', () => {
    const added = passwordEntriesWithUser(DEFAULT_PASSWORD_ENTRIES, 'gs#ops', 'pässwörd');
    assert.deepEqual(added[2], { user: 'gs#ops', passwordSha256Hex: sha256Hex('pässwörd') });
    const changed = passwordEntriesWithPassword(added, 'admin', 'new');
    assert.equal(changed[0]!.passwordSha256Hex, sha256Hex('new'));
    assert.equal(changed[1], added[1]);
    assert.deepEqual(passwordEntriesWithoutUser(changed, 'gs#ops').map((e) => e.user),
      ['admin', 'system']);
    assert.deepEqual(parsePasswordFile(formatPasswordFile(changed), 'p'), changed);
  });

  it('refuses bad names, bad passwords, existing and missing users', () => {
    const entries = DEFAULT_PASSWORD_ENTRIES;
    assert.throws(() => passwordEntriesWithUser(entries, 'ops', 'x'),
      failure('USER_INVALID', /"ops" is not an administrator user name/));
    assert.throws(() => passwordEntriesWithUser(entries, `gs#${'a'.repeat(62)}`, 'x'),
      failure('USER_INVALID', /is not an administrator user name/));
    assert.throws(() => passwordEntriesWithUser(entries, 'gs#ops', ''),
      failure('USER_INVALID', /must not be empty/));
    assert.throws(() => passwordEntriesWithUser(entries, 'gs#ops', 'é'.repeat(33)),
      failure('USER_INVALID', /at most 64 bytes of UTF-8, not 66/));
    assert.throws(() => passwordEntriesWithUser(entries, 'admin', 'x'),
      failure('USER_EXISTS', /"admin" already exists/));
    assert.throws(() => passwordEntriesWithPassword(entries, 'gs#nobody', 'x'),
      failure('USER_NOT_FOUND', /"gs#nobody" does not exist/));
    assert.throws(() => passwordEntriesWithoutUser(entries, 'gs#nobody'),
      failure('USER_NOT_FOUND', /does not exist/));
    assert.throws(() => passwordEntriesWithoutUser(entries, 'system'),
      failure('USER_INVALID', /built-in user "system" cannot be removed/));
    assert.equal(passwordEntriesWithUser(entries, `gs#${'a'.repeat(61)}`, 'x').length, 3);
  });
});
