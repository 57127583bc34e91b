// The access catalog's rules and GridDB's error codes (spec §4.7, §5.2, §5.3), the one privilege
// check for every role in a created database and in public, and the catalog's file through a
// crash (a change is on disk whole or not at all) and against corruption.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { AccessCatalog, type Principal } from '../../../lib/access/access-catalog.ts';
import { accessCheck, type AccessOperation } from '../../../lib/access/access-check.ts';
import { AccessControl } from '../../../lib/access/access-control.ts';
import { accessFileText, readAccessFile, writeAccessFile } from '../../../lib/access/access-file.ts';
import { parseSqlStatement } from '../../../lib/sql/parser.ts';
import type { AccessStatement } from '../../../lib/access/access-control.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const ADMIN: Principal = { user: 'admin', admin: true, database: 'public' };
const DIGESTS = { passwordSha256Hex: 'a'.repeat(64), scramVerifier: 'v' };

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    assert.ok(isStorageError(error), String(error));
    return error.code;
  }
}

function catalogWithGrants(): AccessCatalog {
  return AccessCatalog.EMPTY
    .createDatabase(ADMIN, 'db1')
    .createUser(ADMIN, { name: 'ua', ...DIGESTS })
    .createUser(ADMIN, { name: 'us', ...DIGESTS })
    .createUser(ADMIN, { name: 'un', ...DIGESTS })
    .grant(ADMIN, { database: 'db1', user: 'ua', privilege: 'ALL' })
    .grant(ADMIN, { database: 'db1', user: 'us', privilege: 'READ' });
}

describe('access catalog', () => {
  it('allows each role exactly what GridDB allows, in a created database and in public', () => {
    const catalog = catalogWithGrants();
    const allowed: Record<string, AccessOperation[]> = {
      admin: ['read', 'write', 'ddl'], ua: ['read', 'write', 'ddl'], us: ['read'], un: [],
    };
    for (const [user, operations] of Object.entries(allowed)) {
      for (const operation of ['read', 'write', 'ddl'] as const) {
        for (const database of ['db1', 'DB1', 'public']) {
          const principal = { user, admin: user === 'admin', database };
          const expected = database === 'public' || operations.includes(operation)
            ? 'ok' : 'TXN_DB_ACCESS_INVALID';
          assert.equal(codeOf(() => accessCheck(catalog, principal, operation)), expected,
            `${user} ${operation} in ${database}`);
        }
      }
    }
  });

  it('lets only administrators manage users and databases', () => {
    const catalog = catalogWithGrants();
    const user: Principal = { user: 'ua', admin: false, database: 'public' };
    const changes: Array<() => unknown> = [
      () => catalog.createUser(user, { name: 'x', ...DIGESTS }),
      () => catalog.dropUser(user, 'us'),
      () => catalog.createDatabase(user, 'db2'),
      () => catalog.dropDatabase(user, 'db1'),
      () => catalog.grant(user, { database: 'db1', user: 'un', privilege: 'READ' }),
      () => catalog.revoke(user, { database: 'db1', user: 'us', privilege: 'READ' }),
      () => catalog.setPassword(user, 'us', DIGESTS),
    ];
    for (const change of changes) assert.equal(codeOf(change), 'TXN_OPERATION_NOT_ALLOWED');
    assert.equal(codeOf(() => catalog.setPassword(user, 'UA', DIGESTS)), 'ok');
  });

  it('answers GridDB\'s codes for names, existence, limits and a second privilege', () => {
    const catalog = catalogWithGrants();
    const cases: Array<[string, () => unknown]> = [
      ['TXN_USER_NAME_INVALID', () => catalog.createUser(ADMIN, { name: 'admin', ...DIGESTS })],
      ['TXN_USER_NAME_INVALID', () => catalog.createUser(ADMIN, { name: '1abc', ...DIGESTS })],
      ['TXN_USER_NAME_INVALID', () => catalog.createUser(ADMIN, { name: 'gs#x', ...DIGESTS })],
      ['TXN_USER_NAME_ALREADY_EXISTS', () => catalog.createUser(ADMIN, { name: 'UA', ...DIGESTS })],
      ['TXN_DATABASE_NAME_INVALID', () => catalog.createDatabase(ADMIN, 'public')],
      ['TXN_DATABASE_NAME_INVALID', () => catalog.createDatabase(ADMIN, 'information_schema')],
      ['TXN_DATABASE_NAME_INVALID', () => catalog.dropDatabase(ADMIN, 'public')],
      ['TXN_DATABASE_NOT_EXIST', () => catalog.dropDatabase(ADMIN, 'nodb')],
      ['TXN_DATABASE_NOT_EXIST', () => catalog.grant(ADMIN, { database: 'nodb', user: 'un', privilege: 'ALL' })],
      ['TXN_USER_NOT_EXIST', () => catalog.grant(ADMIN, { database: 'db1', user: 'nobody', privilege: 'ALL' })],
      ['TXN_USER_NOT_EXIST', () => catalog.setPassword(ADMIN, 'nobody', DIGESTS)],
      ['TXN_OTHER_PRIVILEGE_EXISTS', () => catalog.grant(ADMIN, { database: 'db1', user: 'us', privilege: 'ALL' })],
      ['ok', () => catalog.createDatabase(ADMIN, 'DB1')],
      ['ok', () => catalog.dropUser(ADMIN, 'nobody')],
    ];
    for (const [code, run] of cases) assert.equal(codeOf(run), code, run.toString());
    let full = AccessCatalog.EMPTY;
    for (let i = 0; i < 128; i++) full = full.createUser(ADMIN, { name: `u${i}`, ...DIGESTS });
    assert.equal(codeOf(() => full.createUser(ADMIN, { name: 'one_more', ...DIGESTS })), 'TXN_USER_LIMIT_OVER');
    for (let i = 0; i < 128; i++) full = full.createDatabase(ADMIN, `d${i}`);
    assert.equal(codeOf(() => full.createDatabase(ADMIN, 'one_more')), 'TXN_DATABASE_LIMIT_OVER');
  });

  it('drops a user\'s grants with the user, and revokes only the privilege held', () => {
    const catalog = catalogWithGrants();
    assert.equal(catalog.dropUser(ADMIN, 'US').privilege('us', 'db1'), undefined);
    assert.equal(catalog.revoke(ADMIN, { database: 'db1', user: 'us', privilege: 'ALL' })
      .privilege('us', 'db1'), 'READ');
    assert.equal(catalog.revoke(ADMIN, { database: 'db1', user: 'us', privilege: 'READ' })
      .privilege('us', 'db1'), undefined);
    const again = catalog.dropDatabase(ADMIN, 'db1').createDatabase(ADMIN, 'db1');
    assert.equal(again.privilege('ua', 'db1'), undefined);
    assert.notEqual(again.database('db1')!.id, catalog.database('db1')!.id);
  });
});

describe('access catalog file', () => {
  it('reads back what it wrote, for any catalog', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 12 }), async (grants) => {
      let catalog = AccessCatalog.EMPTY.createDatabase(ADMIN, 'db1');
      grants.forEach((all, i) => {
        catalog = catalog.createUser(ADMIN, { name: `u${i}`, ...DIGESTS })
          .grant(ADMIN, { database: 'db1', user: `u${i}`, privilege: all ? 'ALL' : 'READ' });
      });
      const fileSystem = new SimFileSystem({ seed: 1 });
      fileSystem.mkdirp('/data');
      await writeAccessFile(fileSystem, '/data/gs_access.json', catalog);
      assert.equal(accessFileText(readAccessFile(fileSystem, '/data/gs_access.json')),
        accessFileText(catalog));
    }), { numRuns: 30 });
  });

  it('keeps a change whole or not at all through a crash, and refuses a corrupt file', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const fileSystem = new SimFileSystem({ seed });
      fileSystem.mkdirp('/data');
      await fileSystem.syncDirectory('/');
      const path = '/data/gs_access.json';
      const control = new AccessControl(fileSystem, path);
      const statement = (sql: string) => parseSqlStatement(sql).statement as AccessStatement;
      await control.run(statement("CREATE USER u1 IDENTIFIED BY 'p1'"), ADMIN);
      const running = control.run(statement('CREATE DATABASE db1'), ADMIN);
      if (seed % 2 === 0) await running;
      else void running.catch(() => undefined);
      fileSystem.crash({ tornWrites: true });
      const read = readAccessFile(fileSystem, path);
      assert.ok(read.user('u1') !== undefined, `seed ${seed}: the acknowledged user is lost`);
      if (seed % 2 === 0) assert.ok(read.database('db1') !== undefined, `seed ${seed}: acknowledged database lost`);
    }
    const fileSystem = new SimFileSystem({ seed: 1 });
    fileSystem.mkdirp('/data');
    const file = fileSystem.open('/data/gs_access.json', 'create');
    file.write(new TextEncoder().encode('{"version":1,"nextDatabaseId":0,"users":[],"databases":[]}'), 0);
    file.close();
    assert.equal(codeOf(() => readAccessFile(fileSystem, '/data/gs_access.json')), 'CORRUPTION');
  });
});
