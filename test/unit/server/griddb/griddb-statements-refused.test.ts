// The statements GridDB's C client can send that a node refuses (griddb-statements-refused.ts),
// in raw frames: each is answered with STATEMENT_ERROR, GridDB's code where GridDB 5.x refuses it
// too (10055 for the event notifications, 1007 for triggers), 10013 otherwise, and a message
// naming the statement and the C API call; the connection carries on (GET_CONTAINER after them).

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import { griddbContainerKeyWrite } from '../../../../lib/server/griddb/griddb-container-key.ts';
import type { TestServer } from '../server-test-helpers.ts';
import {
  CLIENT_UUID, PARTITION_NUM, errorCode, loginWithClientId, statementFrame, startRecordedServer,
} from './griddb-raw-frames.ts';
import {
  RECORDED_CONNECT, griddbExchange, type GriddbReply,
} from './recorded-handshake.ts';

const GET_CONTAINER = 105;
/** statement id → [GridDB code, the words the message must hold]. */
const REFUSED: Array<[number, number, string]> = [
  [115, 10055, 'CREATE_EVENT_NOTIFICATION, gsCreateEventNotification'],
  [116, 10055, 'DROP_EVENT_NOTIFICATION, gsDropEventNotification'],
  [152, 1007, 'CREATE_TRIGGER, gsCreateTrigger'],
  [153, 1007, 'DROP_TRIGGER, gsDropTrigger'],
  [199, 10013, 'statement 199'],
];

/** The first entry's message of an error reply (| count i32 | code i32 | message str | …). */
function errorMessage(reply: GriddbReply): string {
  const size = reply.payload.readInt32LE(8);
  return reply.payload.subarray(12, 12 + size).toString('utf8');
}

describe('GridDB protocol: statements the node refuses', { timeout: 60_000 }, () => {
  let test: TestServer;

  before(async () => {
    test = await startRecordedServer();
  });
  after(async () => test.stop());

  it('answers each with its code and a message naming the call, then carries on', async () => {
    const key = new ByteWriter(16);
    griddbContainerKeyWrite(key, 'nothing');
    const getBody = Buffer.concat([Buffer.alloc(4), Buffer.from(key.finish()), Buffer.from([0])]);
    const { replies, closedByNode } = await griddbExchange(test.port, [RECORDED_CONNECT,
      loginWithClientId(CLIENT_UUID),
      ...REFUSED.map(([type]) => statementFrame(type, Buffer.alloc(8))),
      statementFrame(GET_CONTAINER, getBody, containerPartitionId('nothing', PARTITION_NUM))]);
    REFUSED.forEach(([type, code, words], i) => {
      const reply = replies[2 + i];
      assert.ok(reply !== undefined, `statement ${type} answered`);
      assert.equal(reply.result, 1, `statement ${type}: STATEMENT_ERROR`);
      assert.equal(errorCode(reply), code, `statement ${type}'s code`);
      assert.ok(errorMessage(reply).includes(words), errorMessage(reply));
    });
    const last = replies[2 + REFUSED.length];
    assert.equal(last?.result, 0);
    assert.equal(last.payload[0], 0, 'GET_CONTAINER of an absent container: exists = 0');
    assert.equal(closedByNode, false);
  });
});
