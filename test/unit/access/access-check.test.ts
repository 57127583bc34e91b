// The operation each SQL statement is checked as (access-check.ts), for the statements of views:
// CREATE/DROP VIEW are DDL (ALL needed in a database other than public), SELECT of a view a read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessCatalog, type Principal } from '../../../lib/access/access-catalog.ts';
import { accessCheck, sqlStatementOperation } from '../../../lib/access/access-check.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { parseSqlStatement } from '../../../lib/sql/parser.ts';

const operationOf = (text: string) => sqlStatementOperation(parseSqlStatement(text).statement);

describe('access check of views', () => {
  it('CREATE VIEW and DROP VIEW are DDL, reading a view is a read', () => {
    assert.equal(operationOf('CREATE VIEW v AS SELECT * FROM t'), 'ddl');
    assert.equal(operationOf('CREATE FORCE VIEW v AS SELECT * FROM t'), 'ddl');
    assert.equal(operationOf('DROP VIEW IF EXISTS v'), 'ddl');
    assert.equal(operationOf('SELECT * FROM v JOIN t USING (id)'), 'read');
    assert.equal(operationOf('EXPLAIN SELECT * FROM v'), 'read');
  });

  it('a user with SELECT on a database reads its views but makes none; a user with ALL makes them', () => {
    const admin: Principal = { user: 'admin', admin: true, database: 'public' };
    const digests = { passwordSha256Hex: '0'.repeat(64), scramVerifier: 'x' };
    const catalog = AccessCatalog.EMPTY.createDatabase(admin, 'db1')
      .createUser(admin, { name: 'ua', ...digests }).createUser(admin, { name: 'us', ...digests })
      .grant(admin, { database: 'db1', user: 'ua', privilege: 'ALL' })
      .grant(admin, { database: 'db1', user: 'us', privilege: 'READ' });
    const check = (user: string, text: string) => {
      const operation = operationOf(text);
      assert.ok(operation !== 'access');
      accessCheck(catalog, { user, admin: false, database: 'db1' }, operation);
    };
    check('us', 'SELECT * FROM v');
    assert.throws(() => check('us', 'CREATE VIEW v AS SELECT 1'), (error) => isStorageError(error, 'TXN_DB_ACCESS_INVALID'));
    assert.throws(() => check('us', 'DROP VIEW v'), (error) => isStorageError(error, 'TXN_DB_ACCESS_INVALID'));
    check('ua', 'CREATE VIEW v AS SELECT 1');
    check('ua', 'DROP VIEW v');
  });
});
