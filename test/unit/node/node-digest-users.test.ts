// General users whose password the node knows only as GridDB's SHA-256 digest, on a real node:
// made by GridDB's PUT_USER (155) and by gs_import --acl. Such a user logs in through every
// protocol that checks the SHA-256 (store's client, GridDB's, the web API), is refused on the
// PostgreSQL port with 28P01 saying to SET PASSWORD first, and after SET PASSWORD logs in there
// too; all of it also after a restart (the access file keeps a user without a SCRAM verifier).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiServer } from '../../../lib/webapi/webapi-server.ts';
import {
  RECORDED_CONNECT, RECORDED_LOGIN, griddbExchange,
} from '../server/griddb/recorded-handshake.ts';
import { HttpCaller } from '../webapi/webapi-test-helpers.ts';
import { newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess } from './node-process.ts';

const PUT_USER = 155;
const SUCCESS = 0;
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** GridDB's PUT_USER after the recorded admin login: user, property 0, the digest, modifiable 0. */
function putUserFrame(user: string, digestHex: string | undefined): Buffer {
  const str = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    const size = Buffer.alloc(4);
    size.writeInt32LE(bytes.byteLength);
    return Buffer.concat([size, bytes]);
  };
  const digest = digestHex === undefined ? [Buffer.from([0])] : [Buffer.from([1]), str(digestHex)];
  const body = Buffer.concat([Buffer.alloc(4), str(user), Buffer.from([0]), ...digest, Buffer.from([0])]);
  const head = Buffer.alloc(36);
  head.writeInt32LE(0x03e02478, 0);
  head.writeInt32LE(-1, 12);
  head.writeInt32LE(16 + body.byteLength, 16);
  head.writeInt32LE(PUT_USER, 20);
  head.writeBigInt64LE(101n, 28);
  return Buffer.concat([head, body]);
}

/** The recorded GridDB LOGIN of admin, as `user` (5 letters, as "admin") with `password`'s digest. */
function loginFrameOf(user: string, password: string): Buffer {
  assert.equal(user.length, 5);
  const frame = Buffer.from(RECORDED_LOGIN);
  const nameAt = frame.indexOf('admin');
  const digestAt = frame.indexOf(sha256Hex('admin'));
  assert.ok(nameAt > 0 && digestAt > nameAt);
  frame.write(user, nameAt, 'utf8');
  frame.write(sha256Hex(password), digestAt, 'utf8');
  return frame;
}

describe('users known by their SHA-256 only (PUT_USER, gs_import --acl)', { timeout: 240_000 }, () => {
  let home = '';
  let node: NodeProcess;
  let admin: ClientStore;
  const directory = mkdtempSync(join(tmpdir(), 'store-digest-users-'));
  const clientOf = (user: string, password: string) => getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: user, password, failoverTimeout: 1, requestTimeoutMs: 10_000,
  });
  const clientOutcome = async (user: string, password: string) => {
    const store = clientOf(user, password);
    try {
      await store.sql('SELECT COUNT(*) FROM "#tables"');
      return 'ok';
    } catch (error) {
      return String((error as { code?: unknown }).code);
    } finally {
      await store.close();
    }
  };
  const griddbLogin = async (user: string, password: string) => {
    const { replies } = await griddbExchange(node.transactionPort, [RECORDED_CONNECT, loginFrameOf(user, password)]);
    return replies[1]?.result;
  };
  const pgOutcome = async (user: string, password: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user, password, database: 'public' });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return 'ok';
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      return `${code}: ${message}`;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const webOutcome = async (user: string, password: string) => {
    const server = await WebApiServer.start({
      repository: { clusters: [{ name: 'myCluster', mode: 'FIXED_LIST',
        transactionMember: `127.0.0.1:${node.transactionPort}`, sqlMember: '' }] },
      settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' },
      logger: pino({ level: 'silent' }),
    });
    try {
      const answer = await new HttpCaller(server.port).call('POST', '/store/v2/myCluster/dbs/public/sql/dml/query',
        { auth: { user, password }, body: [{ stmt: 'SELECT COUNT(*) FROM "#tables"' }] });
      return answer.status;
    } finally {
      await server.close();
    }
  };

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    admin = clientOf('admin', 'admin');
  });
  after(async () => {
    await admin?.close();
    await node?.kill();
    if (home !== '') removeHome(home);
    rmSync(directory, { recursive: true, force: true });
  });

  it('PUT_USER and gs_import --acl make them; they log in by SHA-256, not on PostgreSQL until SET PASSWORD', async () => {
    const { replies } = await griddbExchange(node.transactionPort,
      [RECORDED_CONNECT, RECORDED_LOGIN, putUserFrame('dgst1', sha256Hex('pw-d1'))]);
    assert.equal(replies[2]?.result, SUCCESS, 'PUT_USER answered');

    let result = await runTool('gs_export.ts', ['-u', 'admin/admin', '-s', `127.0.0.1:${node.transactionPort}`,
      '--silent', '--all', '--acl', '-d', directory], node.env);
    assert.equal(result.code, 0, result.stderr);
    const aclPath = join(directory, 'gs_export_acl.json');
    const acl = JSON.parse(readFileSync(aclPath, 'utf8')) as { user: unknown[]; database: unknown[] };
    assert.deepEqual(acl.user, [{ isRole: false, username: 'dgst1', password: sha256Hex('pw-d1') }]);
    acl.user.push({ isRole: false, username: 'dgst2', password: sha256Hex('pw-d2') });
    acl.database.push({ name: 'dbd', acl: [{ username: 'dgst2', role: 'ALL' }] });
    writeFileSync(aclPath, JSON.stringify(acl));
    result = await runTool('gs_import.ts', ['-u', 'admin/admin', '-s', `127.0.0.1:${node.transactionPort}`,
      '--silent', '--all', '--acl', '-d', directory], node.env);
    assert.equal(result.code, 0, result.stderr);

    for (const [user, password] of [['dgst1', 'pw-d1'], ['dgst2', 'pw-d2']] as const) {
      assert.equal(await clientOutcome(user, password), 'ok', `${user}: store's client`);
      assert.notEqual(await clientOutcome(user, 'wrong'), 'ok', `${user}: a wrong password`);
      assert.equal(await griddbLogin(user, password), SUCCESS, `${user}: GridDB's LOGIN`);
      assert.notEqual(await griddbLogin(user, 'wrong'), SUCCESS, `${user}: GridDB's LOGIN, wrong password`);
      assert.equal(await webOutcome(user, password), 200, `${user}: web API`);
      assert.match(await pgOutcome(user, password),
        /^28P01: password authentication failed for user "dgst\d": .*no SCRAM verifier yet: SET PASSWORD first/);
    }
    const dgst2 = clientOf('dgst2', 'pw-d2');
    try {
      assert.deepEqual(await (await dgst2.sql('SELECT COUNT(*) FROM "#databases"')).toArray(), [[2n]],
        'dgst2 sees public and its dbd');
    } finally {
      await dgst2.close();
    }

    // Through a restart: the access file keeps users without a SCRAM verifier.
    await node.kill();
    node = await startNodeProcess(home);
    await admin.close();
    admin = clientOf('admin', 'admin');
    assert.equal(await clientOutcome('dgst1', 'pw-d1'), 'ok');
    assert.match(await pgOutcome('dgst1', 'pw-d1'), /^28P01: .*SET PASSWORD first/);

    // SET PASSWORD, by the user itself or by an administrator, makes the SCRAM verifier.
    const dgst1 = clientOf('dgst1', 'pw-d1');
    try {
      await dgst1.sql("SET PASSWORD = 'pw-d1'");
    } finally {
      await dgst1.close();
    }
    await admin.sql("SET PASSWORD FOR dgst2 = 'pw-d2b'");
    assert.equal(await pgOutcome('dgst1', 'pw-d1'), 'ok');
    assert.equal(await pgOutcome('dgst2', 'pw-d2b'), 'ok');
    assert.match(await pgOutcome('dgst1', 'wrong'), /^28P01: password authentication failed for user "dgst1"$/);
    assert.equal(await clientOutcome('dgst2', 'pw-d2b'), 'ok');
  });

  it('refuses a digest that is no SHA-256, and a PUT_USER without one', async () => {
    await assert.rejects(admin.sql("CREATE USER dgst3 IDENTIFIED BY SHA256 'abc'"),
      (error: { code?: string; message: string }) => error.code === 'USER_INVALID' && /64 hexadecimal/.test(error.message));
    const { replies } = await griddbExchange(node.transactionPort,
      [RECORDED_CONNECT, RECORDED_LOGIN, putUserFrame('dgst3', undefined)]);
    assert.notEqual(replies[2]?.result, SUCCESS);
    assert.equal(replies[2]?.payload.readInt32LE(4), 10089, 'TXN_MESSAGE_INVALID');
  });
});
