// The privilege matrix on a real node process (spec §4.7, §5.3): every interface (the client
// protocol's container operations, TQL, SQL, the web API, the PostgreSQL protocol, gs_sh's
// commands) × every operation (read,
// write, DDL, user management) × {administrator, user with ALL, user with SELECT, user without a
// grant}, each allowed exactly where GridDB allows it; then the users and grants through a
// SIGKILL and a restart.
//
// Public is open to every user for read, write and DDL (GridDB's checkPrivilegeForOperator passes
// the public database); in db1 a user with ALL reads, writes and changes containers, a user with
// SELECT only reads (TXN_DB_ACCESS_INVALID), a user without a grant cannot log in
// (AUTHENTICATION_FAILED, as GridDB's LoginHandler); only administrators manage users and
// databases (TXN_OPERATION_NOT_ALLOWED). Public and db1 each hold a table "shared" of their own
// (containers are kept per database, lib/schema/database-names.ts), through a SIGKILL too.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiServer } from '../../../lib/webapi/webapi-server.ts';
import { HttpCaller } from '../webapi/webapi-test-helpers.ts';
import { runScriptFile, shellEnv, newShellHome } from '../tools/shell/shell-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

type Role = 'admin' | 'userAll' | 'userSelect' | 'userNone';
const ROLES: readonly Role[] = ['admin', 'userAll', 'userSelect', 'userNone'];
const PASSWORDS: Record<Role, string> = {
  admin: 'admin', userAll: 'pw-all', userSelect: 'pw-select', userNone: 'pw-none',
};
type Operation = 'read' | 'write' | 'ddl' | 'users';

/** What GridDB allows in public: read, write and DDL to everyone, user management to administrators. */
function allowedInPublic(role: Role, operation: Operation): boolean {
  return operation !== 'users' || role === 'admin';
}

function clientOf(node: NodeProcess, role: Role, database = 'public', password = PASSWORDS[role]):
  ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: role === 'admin' ? 'admin' : role, password, database, applicationName: 'privileges',
  });
}

function pgOf(node: NodeProcess, role: Role, database = 'public'): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: role === 'admin' ? 'admin' : role,
    password: PASSWORDS[role], database });
}

/** The error code an operation failed with, or 'ok'. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    const { code } = error as { code?: unknown };
    return typeof code === 'string' ? code : String(error);
  }
}

async function databasesOf(store: ClientStore): Promise<unknown[][]> {
  return (await store.sql('SELECT DATABASE_NAME, DATABASE_ID FROM "#databases" ORDER BY DATABASE_ID'))
    .toArray();
}

async function setUp(node: NodeProcess): Promise<void> {
  const admin = clientOf(node, 'admin');
  try {
    await admin.sql('CREATE DATABASE db1');
    for (const role of ['userAll', 'userSelect', 'userNone'] as const) {
      await admin.sql(`CREATE USER ${role} IDENTIFIED BY '${PASSWORDS[role]}'`);
    }
    await admin.sql('GRANT ALL ON db1 TO userAll');
    await admin.sql('GRANT SELECT ON db1 TO userSelect');
    await admin.sql('CREATE TABLE shared (id INTEGER PRIMARY KEY, v LONG)');
    await admin.sql('INSERT INTO shared VALUES (1, 10)');
    await admin.sql('CREATE VIEW shared_view AS SELECT id FROM shared');
    assert.deepEqual(await databasesOf(admin), [['public', 0n], ['db1', 1n]]);
  } finally {
    await admin.close();
  }
  const adminDb1 = clientOf(node, 'admin', 'db1');
  try {
    await adminDb1.sql('CREATE TABLE shared (id INTEGER PRIMARY KEY, v LONG)');
    await adminDb1.sql('INSERT INTO shared VALUES (1, 100)');
  } finally {
    await adminDb1.close();
  }
}

describe('privileges on a node process', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    await setUp(node);
  });

  after(async () => {
    await node?.kill();
    removeHome(home);
  });

  it('client protocol, TQL and SQL: each role × each operation in public', async () => {
    for (const role of ROLES) {
      const store = clientOf(node, role);
      try {
        const table = `t_${role}`;
        const checks: Record<Operation, Array<[string, () => Promise<unknown>]>> = {
          read: [
            ['client get', async () => (await store.getContainer('shared'))!.get(1)],
            ['TQL', async () => (await store.queryByName('shared', 'select *')).fetch()],
            ['SQL SELECT', () => store.sql('SELECT * FROM shared')],
            ['SQL SELECT of a view', () => store.sql('SELECT * FROM shared_view')],
          ],
          write: [
            ['client put', async () => (await store.getContainer('shared'))!.put([2, 20])],
            ['SQL INSERT', () => store.sql('INSERT OR REPLACE INTO shared VALUES (3, 30)')],
          ],
          ddl: [
            ['client putContainer', () => store.putContainer({ name: `${table}_c`, type: 'COLLECTION',
              rowKey: true, columns: [{ name: 'id', type: 'INTEGER' }] })],
            ['client dropContainer', () => store.dropContainer(`${table}_c`)],
            ['SQL CREATE TABLE', () => store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`)],
            ['SQL DROP TABLE', () => store.sql(`DROP TABLE ${table}`)],
            ['SQL CREATE VIEW', () => store.sql(`CREATE VIEW ${table}_v AS SELECT * FROM shared`)],
            ['SQL DROP VIEW', () => store.sql(`DROP VIEW ${table}_v`)],
          ],
          users: [
            ['CREATE USER', () => store.sql(`CREATE USER x_${role} IDENTIFIED BY 'p'`)],
            ['DROP USER', () => store.sql(`DROP USER x_${role}`)],
            ['CREATE DATABASE', () => store.sql(`CREATE DATABASE d_${role}`)],
            ['DROP DATABASE', () => store.sql(`DROP DATABASE d_${role}`)],
            ['GRANT', () => store.sql('GRANT SELECT ON db1 TO userNone')],
            ['REVOKE', () => store.sql('REVOKE SELECT ON db1 FROM userNone')],
          ],
        };
        for (const [operation, list] of Object.entries(checks) as Array<[Operation, typeof checks.read]>) {
          for (const [what, run] of list) {
            const expected = allowedInPublic(role, operation) ? 'ok' : 'TXN_OPERATION_NOT_ALLOWED';
            assert.equal(await outcome(run), expected, `${role} ${operation}: ${what}`);
          }
        }
      } finally {
        await store.close();
      }
    }
  });

  it('PostgreSQL protocol: each role × each operation in public, SCRAM for general users', async () => {
    for (const role of ROLES) {
      const db = pgOf(node, role);
      await db.connect();
      try {
        const table = `pg_${role}`;
        const checks: Array<[Operation, string]> = [
          ['read', 'SELECT * FROM shared'],
          ['write', 'INSERT OR REPLACE INTO shared VALUES (4, 40)'],
          ['ddl', `CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`],
          ['ddl', `DROP TABLE ${table}`],
          ['users', `CREATE USER y_${role} IDENTIFIED BY 'p'`],
          ['users', `DROP USER y_${role}`],
        ];
        for (const [operation, sql] of checks) {
          const got = await outcome(() => db.query(sql));
          const allowed = allowedInPublic(role, operation);
          if (allowed) assert.equal(got, 'ok', `${role} ${sql}`);
          else assert.notEqual(got, 'ok', `${role} ${sql}`);
        }
      } finally {
        await db.end();
      }
    }
  });

  it('web API: each role × each operation in public, and a route to another database', async () => {
    const server = await WebApiServer.start({
      repository: { clusters: [{ name: 'myCluster', mode: 'FIXED_LIST',
        transactionMember: `127.0.0.1:${node.transactionPort}`, sqlMember: '' }] },
      settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' },
      logger: pino({ level: 'silent' }),
    });
    try {
      const http = new HttpCaller(server.port);
      for (const role of ROLES) {
        const auth = { user: role === 'admin' ? 'admin' : role, password: PASSWORDS[role] };
        const base = '/store/v2/myCluster/dbs/public';
        const container = `w_${role.toLowerCase()}`;
        const status = async (method: string, path: string, body: unknown) =>
          (await http.call(method, `${base}${path}`, { auth, body })).status;
        /** A /sql/ddl or /sql/dcl statement's own status: 1 done, 0 refused. */
        const statementStatus = async (path: string, stmt: string) => {
          const answer = await http.call('POST', `${base}${path}`, { auth, body: [{ stmt }] });
          assert.equal(answer.status, 200, answer.text);
          return (JSON.parse(answer.text) as Array<{ status: number }>)[0]!.status;
        };
        assert.equal(await status('POST', '/containers/shared/rows', { limit: 10 }), 200, `${role} read`);
        assert.equal(await status('POST', '/tql', [{ name: 'shared', stmt: 'select *' }]), 200, `${role} TQL`);
        assert.equal(await status('POST', '/sql/dml/query', [{ stmt: 'SELECT * FROM shared' }]), 200, `${role} SQL read`);
        assert.equal(await status('PUT', '/containers/shared/rows', [[5, 50]]), 200, `${role} write`);
        assert.equal(await status('POST', '/containers', { container_name: container,
          container_type: 'COLLECTION', rowkey: true, columns: [{ name: 'id', type: 'INTEGER' }] }), 201, `${role} DDL`);
        assert.equal(await status('DELETE', '/containers', [container]), 204, `${role} DDL drop`);
        const admin = role === 'admin' ? 1 : 0;
        assert.equal(await statementStatus('/sql/ddl', `CREATE USER z_${role} IDENTIFIED BY 'p'`), admin, `${role} users`);
        assert.equal(await statementStatus('/sql/dcl', 'GRANT SELECT ON db1 TO userNone'), admin, `${role} GRANT`);
        assert.equal(await statementStatus('/sql/dcl', 'REVOKE SELECT ON db1 FROM userNone'), admin, `${role} REVOKE`);
        const db1 = '/store/v2/myCluster/dbs/db1';
        const other = await http.call('POST', `${db1}/containers/shared/rows`, { auth, body: { limit: 1 } });
        assert.equal(other.status, role === 'userNone' ? 401 : 200, `${role} db1: ${other.text}`);
        if (role !== 'userNone') {
          assert.deepEqual((JSON.parse(other.text) as { rows: unknown[] }).rows, [[1, 100]], `${role} db1's own rows`);
          const put = await http.call('PUT', `${db1}/containers/shared/rows`, { auth, body: [[7, 70]] });
          // GridDB's web API answers a GSException not in its table with 500 (webapi.md).
          assert.equal(put.status, role === 'userSelect' ? 500 : 200, `${role} db1 write: ${put.text}`);
          if (role === 'userSelect') assert.match(put.text, /TXN_DB_ACCESS_INVALID|10099/, put.text);
        }
      }
      const missing = await http.call('POST', '/store/v2/myCluster/dbs/nodb/containers/shared/rows',
        { body: { limit: 1 } });
      assert.equal(missing.status, 404, missing.text);
    } finally {
      await server.close();
    }
  });

  it('gs_sh: user and database commands for each role', async () => {
    const env = shellEnv(node, newShellHome());
    for (const role of ROLES) {
      const user = role === 'admin' ? 'admin' : role;
      const run = await runScriptFile([
        `setcluster c1 myCluster FIXED_LIST 127.0.0.1:${node.transactionPort}`,
        `setuser ${user} ${PASSWORDS[role]}`, 'connect $c1', 'errexit false',
        'tql shared select *;', 'get', 'putrow shared 6 60',
        `createcollection g_${role} id INTEGER v LONG`, `dropcontainer g_${role}`,
        `createuser s_${role} pw`, `dropuser s_${role}`, `createdatabase s_${role}`, `dropdatabase s_${role}`,
        'grantacl READ db1 userNone', 'revokeacl READ db1 userNone',
      ], env);
      assert.match(run.stdout, /The connection attempt was successful/, `${role}: ${run.stderr}`);
      assert.match(run.stdout, /\d+ results\. \(/, `${role} read: ${run.stdout}`);
      const errors = run.stderr.split('\n').filter((line) => line !== '');
      const refusals = errors.filter((line) => /TXN_OPERATION_NOT_ALLOWED/.test(line)).length;
      assert.equal(refusals, role === 'admin' ? 0 : 6, `${role}: ${run.stderr}`);
      assert.equal(errors.length, refusals, `${role}: read, write and DDL in public: ${run.stderr}`);
    }
  });

  it('client protocol, TQL, SQL, PostgreSQL and gs_sh in db1: ALL writes, SELECT only reads, its own containers', async () => {
    const expected: Record<Role, Record<Operation, string>> = {
      admin: { read: 'ok', write: 'ok', ddl: 'ok', users: 'ok' },
      userAll: { read: 'ok', write: 'ok', ddl: 'ok', users: 'TXN_OPERATION_NOT_ALLOWED' },
      userSelect: { read: 'ok', write: 'TXN_DB_ACCESS_INVALID', ddl: 'TXN_DB_ACCESS_INVALID',
        users: 'TXN_OPERATION_NOT_ALLOWED' },
      userNone: { read: 'AUTHENTICATION_FAILED', write: 'AUTHENTICATION_FAILED',
        ddl: 'AUTHENTICATION_FAILED', users: 'AUTHENTICATION_FAILED' },
    };
    for (const role of ROLES) {
      const store = clientOf(node, role, 'db1');
      try {
        const table = `d_${role}`;
        const checks: Record<Operation, Array<[string, () => Promise<unknown>]>> = {
          read: [
            ['client get', async () => assert.deepEqual(await (await store.getContainer('shared'))!.get(1), [1, 100n])],
            ['TQL', async () => (await store.queryByName('shared', 'select *')).fetch()],
            ['SQL SELECT', async () => assert.deepEqual(
              await (await store.sql('SELECT TABLE_NAME FROM "#tables"')).toArray(), [['shared']])],
          ],
          write: [
            ['client put', async () => (await store.getContainer('shared'))!.put([2, 200])],
            ['SQL INSERT', () => store.sql('INSERT OR REPLACE INTO shared VALUES (3, 300)')],
          ],
          ddl: [
            ['client putContainer', () => store.putContainer({ name: `${table}_c`, type: 'COLLECTION',
              rowKey: true, columns: [{ name: 'id', type: 'INTEGER' }] })],
            ['client dropContainer', () => store.dropContainer(`${table}_c`)],
            ['SQL CREATE TABLE', () => store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`)],
            ['SQL DROP TABLE', () => store.sql(`DROP TABLE ${table}`)],
          ],
          users: [
            ['CREATE DATABASE', () => store.sql(`CREATE DATABASE e_${role}`)],
            ['DROP DATABASE', () => store.sql(`DROP DATABASE e_${role}`)],
          ],
        };
        for (const [operation, list] of Object.entries(checks) as Array<[Operation, typeof checks.read]>) {
          for (const [what, run] of list) {
            assert.equal(await outcome(run), expected[role][operation], `${role} db1 ${operation}: ${what}`);
          }
        }
      } finally {
        await store.close().catch(() => undefined);
      }
      const db = pgOf(node, role, 'db1');
      if (role === 'userNone') {
        assert.notEqual(await outcome(() => db.connect()), 'ok', 'userNone over PostgreSQL');
        await db.end().catch(() => undefined);
        continue;
      }
      await db.connect();
      try {
        assert.deepEqual((await db.query('SELECT v FROM shared WHERE id = 1')).rows, [{ v: '100' }], role);
        const write = await outcome(() => db.query('INSERT OR REPLACE INTO shared VALUES (4, 400)'));
        assert.equal(write === 'ok', role !== 'userSelect', `${role} db1 over PostgreSQL: ${write}`);
      } finally {
        await db.end();
      }
    }
    const env = shellEnv(node, newShellHome());
    const run = await runScriptFile([
      `setcluster c1 myCluster FIXED_LIST 127.0.0.1:${node.transactionPort}`,
      `setuser userSelect ${PASSWORDS.userSelect}`, 'connect $c1 db1', 'errexit false',
      'getcurrentdatabase', 'tql shared select *;', 'get', 'putrow shared 6 60',
    ], env);
    assert.match(run.stdout, /The connection attempt was successful/, run.stderr);
    assert.match(run.stdout, /\bdb1\b/, run.stdout);
    assert.match(run.stdout, /\d+ results\. \(/, run.stdout);
    assert.match(run.stderr, /TXN_DB_ACCESS_INVALID/, run.stderr);
    const nowhere = clientOf(node, 'admin', 'nodb');
    assert.equal(await outcome(() => nowhere.sql('SELECT 1')), 'DATABASE_NOT_FOUND');
    await nowhere.close().catch(() => undefined);
  });

  it('SET PASSWORD: a general user for itself only; users and grants survive SIGKILL', async () => {
    const userAll = clientOf(node, 'userAll');
    assert.equal(await outcome(() => userAll.sql("SET PASSWORD FOR userSelect = 'stolen'")),
      'TXN_OPERATION_NOT_ALLOWED');
    assert.equal(await outcome(() => userAll.sql("SET PASSWORD = 'pw-all-2'")), 'ok');
    await userAll.close().catch(() => undefined);
    await node.kill();
    node = await startNodeProcess(home);
    assert.equal(await outcome(() => clientOf(node, 'userAll').sql('SELECT 1')), 'AUTHENTICATION_FAILED');
    const renewed = clientOf(node, 'userAll', 'public', 'pw-all-2');
    assert.equal(await outcome(() => renewed.sql('SELECT * FROM shared')), 'ok');
    await renewed.close();
    const admin = clientOf(node, 'admin');
    const adminDb1 = clientOf(node, 'admin', 'db1');
    try {
      // Each database's "shared" came back with its own rows.
      assert.deepEqual(await (await admin.sql('SELECT v FROM shared WHERE id = 1')).toArray(), [[10n]]);
      assert.deepEqual(await (await adminDb1.sql('SELECT v FROM shared WHERE id = 1')).toArray(), [[100n]]);
      assert.deepEqual(await databasesOf(admin), [['public', 0n], ['db1', 1n]]);
      // The grants came back: another privilege for a user who holds one is refused.
      assert.equal(await outcome(() => admin.sql('GRANT ALL ON db1 TO userSelect')), 'TXN_OTHER_PRIVILEGE_EXISTS');
      assert.equal(await outcome(() => admin.sql('GRANT SELECT ON db1 TO userAll')), 'TXN_OTHER_PRIVILEGE_EXISTS');
      assert.equal(await outcome(() => admin.sql("CREATE USER userNone IDENTIFIED BY 'x'")),
        'TXN_USER_NAME_ALREADY_EXISTS');
      assert.equal(await outcome(() => admin.sql('DROP DATABASE db1')), 'SQL_DDL_DATABASE_NOT_EMPTY');
      assert.equal(await outcome(() => adminDb1.sql('DROP TABLE shared')), 'ok');
      assert.equal(await outcome(() => admin.sql('DROP DATABASE db1')), 'ok');
      assert.equal(await outcome(() => admin.sql('DROP DATABASE db1')), 'TXN_DATABASE_NOT_EXIST');
      assert.deepEqual(await databasesOf(admin), [['public', 0n]]);
      assert.deepEqual(await (await admin.sql('SELECT v FROM shared WHERE id = 1')).toArray(), [[10n]]);
    } finally {
      await adminDb1.close().catch(() => undefined);
      await admin.close();
    }
  });
});
