// GridDB's handshake on the transaction port, frame by frame (the C client's own run is
// test/conformance/griddb/handshake.test.ts): the recorded handshake, a CONNECT of another
// version refused, statements before LOGIN refused, LOGOUT, and the partition-address answers.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_DISCONNECT, RECORDED_LOGIN,
  RECORDED_PARTITION_ADDRESS, griddbExchange,
} from './recorded-handshake.ts';

const SUCCESS = 0;
const STATEMENT_ERROR = 1;
const PARTITION_NUM = 128;

/** A copy of a recorded frame with `patch` applied to it. */
function patched(frame: Buffer, patch: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(frame);
  patch(copy);
  return copy;
}

/** The error code at the top of an error reply's stack. */
function errorCode(payload: Buffer): number {
  assert.equal(payload.readInt32LE(0), 1, 'one stack entry');
  return payload.readInt32LE(4);
}

describe('GridDB protocol: handshake', { timeout: 60_000 }, () => {
  let test: TestServer;
  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user) });
  });
  after(async () => test.stop());

  it('answers the recorded handshake: CONNECT, LOGIN, the master address, DISCONNECT', async () => {
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      RECORDED_PARTITION_ADDRESS, RECORDED_DISCONNECT]);
    assert.deepEqual(replies.map((reply) => [reply.statementType, reply.result]),
      [[100, SUCCESS], [102, SUCCESS], [104, SUCCESS]]);
    // CONNECT: auth mode NONE, version 15, internal auth, control info (plain only).
    assert.deepEqual([...replies[0]!.payload], [0, 15, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0]);
    // LOGIN: auth mode NONE, database id 0 (public).
    assert.deepEqual([...replies[1]!.payload], [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // The master: 128 partitions, no owners or backups, matched, CRC-32, 127.0.0.1:port.
    const master = replies[2]!.payload;
    assert.equal(master.readInt32LE(0), PARTITION_NUM);
    assert.deepEqual([...master.subarray(4, 8)], [0, 0, 1, 0]);
    assert.deepEqual([...master.subarray(8, 12)], [127, 0, 0, 1]);
    assert.equal(master.readInt32LE(12), test.port);
  });

  it('answers a partition\'s address with this node as its owner', async () => {
    const forPartition = patched(RECORDED_PARTITION_ADDRESS, (copy) => {
      copy.writeInt32LE(copy.readInt32LE(16) - 1, 16);
      copy.writeInt32LE(88, 24);
    }).subarray(0, RECORDED_PARTITION_ADDRESS.byteLength - 1);
    const { replies } = await griddbExchange(test.port,
      [RECORDED_CONNECT, RECORDED_LOGIN, forPartition]);
    const owner = replies[2]!.payload;
    assert.equal(replies[2]!.result, SUCCESS);
    assert.equal(owner.readInt32LE(0), PARTITION_NUM);
    assert.equal(owner.readInt8(4), 1);
    assert.deepEqual([...owner.subarray(5, 9)], [127, 0, 0, 1]);
    assert.equal(owner.readInt32LE(9), test.port);
    assert.equal(owner.readInt8(13), 0);
  });

  it('refuses a CONNECT of another protocol version and closes', async () => {
    const version14 = patched(RECORDED_CONNECT, (copy) => copy.writeInt32LE(14, 32));
    const { replies } = await griddbExchange(test.port, [version14, RECORDED_LOGIN]);
    assert.equal(replies.length, 1, 'nothing after the refusal is answered');
    assert.equal(replies[0]!.result, STATEMENT_ERROR);
    assert.equal(errorCode(replies[0]!.payload), 10054);
  });

  it('refuses a statement before LOGIN, and a wrong cluster name', async () => {
    const early = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_PARTITION_ADDRESS]);
    assert.equal(early.replies[1]!.result, STATEMENT_ERROR);
    const otherCluster = patched(RECORDED_LOGIN, (copy) => {
      const at = copy.indexOf('myCluster');
      copy.write('myClustex', at);
    });
    const wrong = await griddbExchange(test.port, [RECORDED_CONNECT, otherCluster]);
    assert.equal(wrong.replies[1]!.result, STATEMENT_ERROR);
    assert.equal(errorCode(wrong.replies[1]!.payload), 10053);
  });

  it('needs a new LOGIN after LOGOUT', async () => {
    const logout = patched(RECORDED_DISCONNECT, (copy) => copy.writeInt32LE(103, 20));
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN, logout,
      RECORDED_PARTITION_ADDRESS]);
    assert.deepEqual(replies.map((reply) => reply.result),
      [SUCCESS, SUCCESS, SUCCESS, STATEMENT_ERROR]);
  });
});

describe('GridDB protocol: the node\'s login check (general users, databases)', { timeout: 60_000 }, () => {
  const logins: Array<{ user: string; database: string }> = [];
  let refuse = false;
  let test: TestServer;
  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user),
      loginCheck: (login) => {
        logins.push(login);
        if (refuse) throw new StorageError('AUTHENTICATION_FAILED', 'no privilege on that database');
        return { ...login, admin: false };
      } });
  });
  after(async () => test.stop());

  it('asks it after the password, and answers its refusal with TXN_AUTH_FAILED', async () => {
    const accepted = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN]);
    assert.equal(accepted.replies[1]!.result, SUCCESS);
    assert.deepEqual(logins, [{ user: 'admin', database: 'public' }]);
    refuse = true;
    const refused = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN]);
    assert.equal(refused.replies[1]!.result, STATEMENT_ERROR);
    assert.equal(errorCode(refused.replies[1]!.payload), 10005);
  });
});
