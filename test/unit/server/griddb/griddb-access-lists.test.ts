// GridDB's GET_USERS and GET_DATABASES in raw frames against a real node with its access catalog
// (griddb-access-lists.ts): what an administrator and a general user are answered, in GridDB's
// encoding with and without the request's ACCEPTABLE_FEATURE_VERSION, and the refusals' codes.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../../lib/client/store-factory.ts';
import {
  newNodeHome, removeHome, startNodeProcess, type NodeProcess,
} from '../../node/node-process.ts';
import {
  RECORDED_CONNECT, collectGriddbReplies, griddbExchange, type GriddbReply,
} from './recorded-handshake.ts';
import { i32, statementFrame, str } from './griddb-raw-frames.ts';

const LOGIN = 102;
const GET_USERS = 154;
const GET_DATABASES = 157;
const SUCCESS = 0;

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

function i16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeInt16LE(value);
  return bytes;
}

/** An optional request: DB_NAME when given, then range 11000 with ACCEPTABLE_FEATURE_VERSION. */
function options(featureVersion: number | undefined, database?: string): Buffer {
  const entries = [
    ...(database === undefined ? [] : [i16(5), str(database)]),
    ...(featureVersion === undefined ? []
      : [i16(11000), i32(6), i16(11005), i32(featureVersion)]),
  ];
  const body = Buffer.concat(entries);
  return Buffer.concat([i32(body.byteLength), body]);
}

/** LOGIN as the C client 5.8 sends it (recorded-handshake.ts), for `user` to `database`. */
function login(user: string, password: string, database: string): Buffer {
  return statementFrame(LOGIN, Buffer.concat([options(5, database), str(user), str(sha256Hex(password)),
    i32(0x7fffffff), Buffer.from([0]), str('myCluster'), Buffer.from([0])]));
}

/** A GET_USERS / GET_DATABASES request: without a filter when `name` is undefined. */
function list(type: number, name: string | undefined, featureVersion?: number,
  partitionId = 0): Buffer {
  return statementFrame(type, Buffer.concat([options(featureVersion),
    ...(name === undefined ? [Buffer.from([0])] : [Buffer.from([1]), str(name), Buffer.from([0])])]),
  partitionId);
}

/** Reads replies' fields in order (GridDB's encoding: little-endian, i32-sized strings). */
class Fields {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}
  u32(): number { const value = this.bytes.readUInt32LE(this.offset); this.offset += 4; return value; }
  i8(): number { const value = this.bytes.readInt8(this.offset); this.offset += 1; return value; }
  str(): string {
    const size = this.u32();
    const text = this.bytes.toString('utf8', this.offset, this.offset + size);
    this.offset += size;
    return text;
  }
  end(): void { assert.equal(this.offset, this.bytes.byteLength, 'the reply read to its end'); }
}

function usersOf(reply: GriddbReply, groupMapping: boolean): unknown[] {
  assert.equal(reply.result, SUCCESS, `GET_USERS answered (${reply.payload.toString('hex')})`);
  const fields = new Fields(reply.payload);
  const count = fields.u32();
  const users: unknown[] = [];
  for (let i = 0; i < count; i++) {
    users.push([fields.str(), fields.i8(), fields.i8(), fields.str()]);
  }
  if (groupMapping) {
    for (let i = 0; i < count; i++) assert.deepEqual([fields.i8(), fields.str()], [0, '']);
  }
  fields.end();
  return users;
}

function databasesOf(reply: GriddbReply): unknown[] {
  assert.equal(reply.result, SUCCESS, `GET_DATABASES answered (${reply.payload.toString('hex')})`);
  const fields = new Fields(reply.payload);
  const count = fields.u32();
  const databases: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const name = fields.str();
    assert.equal(fields.i8(), 0, 'property');
    const grants: Array<[string, string]> = [];
    for (let j = fields.u32(); j > 0; j--) grants.push([fields.str(), fields.str()]);
    databases.push([name, grants]);
  }
  fields.end();
  return databases;
}

const errorCodeOf = (reply: GriddbReply): number =>
  reply.result === SUCCESS ? 0 : reply.payload.readInt32LE(4);

describe('GridDB protocol: GET_USERS and GET_DATABASES', { timeout: 120_000 }, () => {
  let home = '';
  let node: NodeProcess;
  let admin: ClientStore;

  /** The replies to `frames` after CONNECT and a LOGIN of `user` to `database`. */
  const send = async (user: string, password: string, database: string, frames: Buffer[]) => {
    const { replies } = await griddbExchange(node.transactionPort,
      [RECORDED_CONNECT, login(user, password, database), ...frames]);
    assert.equal(replies.length, frames.length + 2, 'every statement answered');
    assert.equal(replies[1]?.result, SUCCESS, 'logged in');
    return replies.slice(2);
  };

  before(async () => {
    home = newNodeHome();
    node = await startNodeProcess(home);
    admin = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', database: 'public', failoverTimeout: 1,
      requestTimeoutMs: 10_000,
    });
    for (const sql of ["CREATE USER gu1 IDENTIFIED BY 'pw1'", "CREATE USER Gu2 IDENTIFIED BY 'pw2'",
      'CREATE DATABASE gdb1', 'CREATE DATABASE gdb2', 'GRANT SELECT ON gdb1 TO gu1',
      'GRANT ALL ON gdb1 TO gu2', 'GRANT ALL ON gdb2 TO gu2']) {
      await admin.sql(sql);
    }
  });
  after(async () => {
    await admin?.close();
    await node?.stop();
    if (home !== '') removeHome(home);
  });

  it('lists every general user to an administrator, itself to a general user', async () => {
    const [all, allV5, self, other] = await send('admin', 'admin', 'public', [
      list(GET_USERS, undefined), list(GET_USERS, undefined, 5), list(GET_USERS, 'admin'),
      list(GET_USERS, 'gu1')]);
    const general = [['gu1', 0, 1, sha256Hex('pw1')], ['Gu2', 0, 1, sha256Hex('pw2')]];
    assert.deepEqual(usersOf(all!, false), general);
    assert.deepEqual(usersOf(allV5!, true), general);
    assert.deepEqual(usersOf(self!, false), [['admin', 1, 0, '']]);
    assert.equal(errorCodeOf(other!), 10089); // TXN_MESSAGE_INVALID: not the connection's user

    const [none, own, another, partition] = await send('gu1', 'pw1', 'gdb1', [
      list(GET_USERS, undefined), list(GET_USERS, 'gu1', 5), list(GET_USERS, 'Gu2'),
      list(GET_USERS, 'gu1', 5, 2)]);
    assert.equal(errorCodeOf(none!), 10089); // a general user must name itself
    assert.deepEqual(usersOf(own!, true), [['gu1', 0, 1, sha256Hex('pw1')]]);
    assert.equal(errorCodeOf(another!), 10089);
    assert.equal(errorCodeOf(partition!), 1041); // CM_INTERNAL_ERROR: not partition 0
  });

  it('lists databases and grants as GridDB does for each kind of user', async () => {
    const [all, old, publicOnly, named, otherDatabase] = await send('admin', 'admin', 'public', [
      list(GET_DATABASES, undefined, 5), list(GET_DATABASES, undefined),
      list(GET_DATABASES, '', 5), list(GET_DATABASES, 'public', 5), list(GET_DATABASES, 'gdb1', 5)]);
    assert.deepEqual(databasesOf(all!), [['gdb1', [['gu1', 'READ'], ['Gu2', 'ALL']]],
      ['gdb2', [['Gu2', 'ALL']]]]);
    assert.equal(errorCodeOf(old!), 60153); // DS_CON_ACCESS_INVALID: READ to a client before 4.3
    const publicGrants = [['public', [['gu1', 'ALL'], ['Gu2', 'ALL']]]];
    assert.deepEqual(databasesOf(publicOnly!), publicGrants);
    assert.deepEqual(databasesOf(named!), publicGrants);
    assert.equal(errorCodeOf(otherDatabase!), 10081); // TXN_DATABASE_NAME_INVALID

    const [own, ownNamed, ownPublic] = await send('gu1', 'pw1', 'gdb1', [
      list(GET_DATABASES, undefined, 5), list(GET_DATABASES, 'gdb1', 5),
      list(GET_DATABASES, 'public', 5)]);
    assert.deepEqual(databasesOf(own!), [['gdb1', [['gu1', 'READ']]]]);
    assert.deepEqual(databasesOf(ownNamed!), [['gdb1', [['gu1', 'READ']]]]);
    assert.equal(errorCodeOf(ownPublic!), 10081);

    const [both, adminOnGdb2] = [
      await send('gu2', 'pw2', 'public', [list(GET_DATABASES, 'public', 5),
        list(GET_DATABASES, undefined)]),
      await send('admin', 'admin', 'gdb2', [list(GET_DATABASES, 'gdb2')]),
    ];
    assert.deepEqual(databasesOf(both![0]!), [['public', [['Gu2', 'ALL']]]]);
    assert.deepEqual(databasesOf(both![1]!), [['gdb1', [['Gu2', 'ALL']]], ['gdb2', [['Gu2', 'ALL']]]]);
    assert.deepEqual(databasesOf(adminOnGdb2![0]!), [['gdb2', [['Gu2', 'ALL']]]]);
  });

  it('refuses a list of a user or database dropped since the login', async () => {
    for (const [user, password, database, request, code] of [
      ['gu3', 'pw3', 'gdb3', list(GET_USERS, 'gu3', 5), 10084], // TXN_CURRENT_USER_REMOVED
      ['admin', 'admin', 'gdb3', list(GET_DATABASES, 'gdb3', 5), 10085], // ..._DATABASE_REMOVED
    ] as const) {
      await admin.sql('CREATE DATABASE gdb3');
      await admin.sql("CREATE USER gu3 IDENTIFIED BY 'pw3'");
      await admin.sql('GRANT ALL ON gdb3 TO gu3');
      const reply = await loggedInThen(node.transactionPort, login(user, password, database),
        async () => {
          await admin.sql(user === 'gu3' ? 'DROP USER gu3' : 'DROP DATABASE gdb3');
        }, request);
      assert.equal(errorCodeOf(reply), code);
      await admin.sql('DROP USER gu3').catch(() => undefined);
      await admin.sql('DROP DATABASE gdb3').catch(() => undefined);
    }
  });
});

/** CONNECT and `loginFrame` on one connection, then `between`, then `request`: its reply. */
async function loggedInThen(port: number, loginFrame: Buffer, between: () => Promise<void>,
  request: Buffer): Promise<GriddbReply> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  const replies: GriddbReply[] = [];
  let waiting: (() => void) | undefined;
  collectGriddbReplies(socket, replies, () => waiting?.());
  socket.once('close', () => waiting?.());
  const next = async (frame: Buffer): Promise<GriddbReply> => {
    const answered = new Promise<void>((resolve) => (waiting = resolve));
    socket.write(frame);
    await answered;
    const reply = replies.shift();
    assert(reply !== undefined, 'answered before the node closed');
    return reply;
  };
  try {
    await next(RECORDED_CONNECT);
    assert.equal((await next(loginFrame)).result, SUCCESS, 'logged in');
    await between();
    return await next(request);
  } finally {
    socket.destroy();
  }
}
