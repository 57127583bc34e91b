// GridDB's users, databases and privileges statements in raw frames (the C client has no call
// that sends them; GridDB's Java client does) against a real node with its access catalog:
// PUT_DATABASE, PUT_PRIVILEGE, DROP_PRIVILEGE, DROP_DATABASE and DROP_USER change what store's
// own client may do, and the refusals carry GridDB's codes (griddb-access-statements.ts).

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../../lib/client/store-factory.ts';
import {
  newNodeHome, removeHome, startNodeProcess, type NodeProcess,
} from '../../node/node-process.ts';
import { RECORDED_CONNECT, RECORDED_LOGIN, griddbExchange } from './recorded-handshake.ts';
import { i32, statementFrame, str } from './griddb-raw-frames.ts';

const DROP_USER = 156;
const PUT_DATABASE = 158;
const DROP_DATABASE = 159;
const PUT_PRIVILEGE = 160;
const DROP_PRIVILEGE = 161;
const SUCCESS = 0;
const STATEMENT_ERROR = 1;
const EMPTY_OPTIONS = Buffer.alloc(4);

/** GridDB's DatabaseInfo: name, property 0, and its privileges (user, "ALL" / "READ"). */
function database(name: string, privileges: Array<[string, string]> = []): Buffer {
  return Buffer.concat([str(name), Buffer.from([0]), i32(privileges.length),
    ...privileges.flatMap(([user, privilege]) => [str(user), str(privilege)])]);
}

const putDatabase = (name: string, modifiable = 0) =>
  statementFrame(PUT_DATABASE, Buffer.concat([EMPTY_OPTIONS, database(name), Buffer.from([modifiable])]));
const privilege = (type: number, db: string, user: string, kind: string) =>
  statementFrame(type, Buffer.concat([EMPTY_OPTIONS, database(db, [[user, kind]])]));
const named = (type: number, name: string, partitionId = 0) =>
  statementFrame(type, Buffer.concat([EMPTY_OPTIONS, str(name)]), partitionId);

/** Sends the statements after the recorded handshake (admin/admin); their [result, code]s. */
async function send(node: NodeProcess, frames: Buffer[]): Promise<Array<[number, number]>> {
  const { replies } = await griddbExchange(node.transactionPort,
    [RECORDED_CONNECT, RECORDED_LOGIN, ...frames]);
  assert.equal(replies.length, frames.length + 2, 'every statement answered');
  return replies.slice(2).map((reply) => [reply.result,
    reply.result === SUCCESS ? 0 : reply.payload.readInt32LE(4)]);
}

describe('GridDB protocol: users, databases and privileges statements', { timeout: 120_000 }, () => {
  let home = '';
  let node: NodeProcess;
  let admin: ClientStore;
  const clientOf = (user: string, password: string, databaseName: string) => getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: user, password, database: databaseName, failoverTimeout: 1,
    requestTimeoutMs: 10_000,
  });
  /** What store's client as `user` gets listing the containers of `databaseName`. */
  const listAs = async (user: string, password: string, databaseName: string) => {
    const store = clientOf(user, password, databaseName);
    try {
      await store.sql('SELECT * FROM "#tables"');
      return 'ok';
    } catch (error) {
      return String((error as { code?: unknown }).code);
    } finally {
      await store.close();
    }
  };

  before(async () => {
    home = newNodeHome();
    node = await startNodeProcess(home);
    admin = clientOf('admin', 'admin', 'public');
    await admin.sql("CREATE USER gu1 IDENTIFIED BY 'pw1'");
  });
  after(async () => {
    await admin?.close();
    await node?.stop();
    if (home !== '') removeHome(home);
  });

  it('creates a database, grants and revokes, drops it and a user, as store\'s SQL does', async () => {
    assert.deepEqual(await send(node, [putDatabase('gdb1'), putDatabase('gdb1'),
      privilege(PUT_PRIVILEGE, 'gdb1', 'gu1', 'READ')]),
    [[SUCCESS, 0], [SUCCESS, 0], [SUCCESS, 0]]);
    assert.equal(await listAs('gu1', 'pw1', 'gdb1'), 'ok');
    assert.deepEqual(await admin.sql('SELECT DATABASE_NAME FROM "#databases" ORDER BY 1')
      .then((result) => result.toArray()), [['gdb1'], ['public']]);

    assert.deepEqual(await send(node, [privilege(DROP_PRIVILEGE, 'gdb1', 'gu1', 'READ')]),
      [[SUCCESS, 0]]);
    assert.notEqual(await listAs('gu1', 'pw1', 'gdb1'), 'ok');

    assert.deepEqual(await send(node, [named(DROP_DATABASE, 'gdb1'), named(DROP_USER, 'gu1'),
      named(DROP_USER, 'gu1')]), [[SUCCESS, 0], [SUCCESS, 0], [SUCCESS, 0]]);
    assert.deepEqual(await admin.sql('SELECT DATABASE_NAME FROM "#databases" ORDER BY 1')
      .then((result) => result.toArray()), [['public']]);
    assert.notEqual(await listAs('gu1', 'pw1', 'public'), 'ok');
  });

  it('refuses with GridDB\'s codes', async () => {
    await admin.sql("CREATE USER gu2 IDENTIFIED BY 'pw2'");
    assert.deepEqual(await send(node, [
      privilege(PUT_PRIVILEGE, 'gdb_absent', 'gu2', 'ALL'), // TXN_DATABASE_NOT_EXIST
      putDatabase('gdb2'),
      privilege(PUT_PRIVILEGE, 'gdb2', 'nobody', 'ALL'), // TXN_USER_NOT_EXIST
      privilege(PUT_PRIVILEGE, 'gdb2', 'gu2', 'WRITE'), // TXN_MESSAGE_INVALID
      putDatabase('gdb3', 1), // modifiable: TXN_MESSAGE_INVALID
      putDatabase('1bad'), // TXN_DATABASE_NAME_INVALID
      named(DROP_USER, 'x; DROP DATABASE gdb2'), // TXN_USER_NAME_INVALID, no SQL made of it
      named(DROP_DATABASE, 'gdb2', 3), // not partition 0: CM_INTERNAL_ERROR
    ]), [[STATEMENT_ERROR, 10087], [SUCCESS, 0], [STATEMENT_ERROR, 10086],
      [STATEMENT_ERROR, 10089], [STATEMENT_ERROR, 10089], [STATEMENT_ERROR, 10081],
      [STATEMENT_ERROR, 10080], [STATEMENT_ERROR, 1041]]);
    assert.deepEqual(await admin.sql('SELECT DATABASE_NAME FROM "#databases" ORDER BY 1')
      .then((result) => result.toArray()), [['gdb2'], ['public']]);
  });
});
