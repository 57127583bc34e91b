// Containers kept per database through the client protocol (lib/schema/database-names.ts): two
// connections of one LocalRequestRunner, in public (id 0) and in database id 1, create a
// container of the same name; each sees its own rows and only its own names, the partition is
// the name's (what the client computed), and after the store is opened again (xlog replay, then
// from a checkpoint) each database still holds its own container.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { FRAME_HEADER_BYTES, FrameStatus } from '../../../lib/protocol/frame.ts';
import { decodeBody, type MessageCodec } from '../../../lib/protocol/message-codec.ts';
import {
  CONTAINER_INFO, CONTAINER_LIST, CONTAINER_PUT,
} from '../../../lib/protocol/messages-container.ts';
import { ROW_GET, ROW_PUT } from '../../../lib/protocol/messages-row.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import { KeyBatch, RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { containerSchemaOf, type ContainerInfo } from '../../../lib/protocol/wire-schema.ts';
import type { Store } from '../../../lib/engine/store.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { LocalRequestRunner } from '../../../lib/server/request-runner.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { SENSORS, openTestStore } from '../engine/engine-test-helpers.ts';

const PARTITION_NUM = 4;
let nextId = 1;

class Connection {
  constructor(private readonly runner: LocalRequestRunner, private readonly id: number) {}

  async call<Q, P>(codec: MessageCodec<Q, P>, request: Q): Promise<P> {
    const writer = new ByteWriter(256);
    codec.writeRequest(writer, request);
    const outcome = await this.runner.run(this.id,
      { messageType: codec.type, requestId: nextId++, body: writer.finish() });
    const body = outcome.bytes.subarray(FRAME_HEADER_BYTES);
    if (outcome.bytes[8] === FrameStatus.ERROR) throw errorDecode(body);
    return decodeBody(body, codec.readReply, 'reply');
  }

  async put(): Promise<ContainerInfo> {
    return this.call(CONTAINER_PUT, {
      statement: { sessionId: 0, statementId: nextId++ },
      partitionId: containerPartitionId(SENSORS.name, PARTITION_NUM),
      definitionJson: JSON.stringify(SENSORS), modifiable: false,
    });
  }

  async info(): Promise<ContainerInfo | undefined> {
    return this.call(CONTAINER_INFO,
      { partitionId: containerPartitionId(SENSORS.name, PARTITION_NUM), name: SENSORS.name });
  }

  async rowPut(info: ContainerInfo, value: bigint): Promise<void> {
    await this.call(ROW_PUT, {
      statement: { sessionId: 0, statementId: nextId++ },
      ref: { partitionId: info.partitionId, name: info.name, containerId: info.containerId,
        schemaVersion: info.schemaVersion },
      rows: RowBatch.of(containerSchemaOf(info), [['a', value]]),
    });
  }

  async rowGet(): Promise<unknown> {
    const info = await this.info();
    assert.ok(info !== undefined);
    const schema = containerSchemaOf(info);
    const reply = await this.call(ROW_GET, { sessionId: 0, ref: {
      partitionId: info.partitionId, name: info.name, containerId: info.containerId,
      schemaVersion: info.schemaVersion,
    }, keys: KeyBatch.of(schema, ['a']) });
    return reply.decode(schema)[0];
  }

  async names(): Promise<string[]> {
    return (await this.call(CONTAINER_LIST, { offset: 0, limit: 0 })).names;
  }
}

function connections(store: Store): { publicDb: Connection; db1: Connection } {
  const runner = new LocalRequestRunner(store, {
    queryHandler: tqlQueryHandler, messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
    statementResultCountMax: 100, statementResultCountPerClientMax: 100,
    onFailure: (error) => { throw error; },
  });
  runner.connectionOpened(1, { clientKey: 'admin/1', transactionTimeoutMs: 1_000 });
  runner.connectionOpened(2, { clientKey: 'admin/2', transactionTimeoutMs: 1_000, databaseId: 1 });
  return { publicDb: new Connection(runner, 1), db1: new Connection(runner, 2) };
}

describe('containers per database, client protocol', () => {
  it('keeps a name in two databases apart, in the name\'s partition, across restarts', async () => {
    const test = await openTestStore({ partitionNum: PARTITION_NUM });
    let { publicDb, db1 } = connections(test.store);
    const publicInfo = await publicDb.put();
    assert.equal(await db1.info(), undefined, 'public\'s container is invisible from db1');
    assert.deepEqual(await db1.names(), []);
    const db1Info = await db1.put();
    assert.equal(db1Info.name, SENSORS.name, 'db1 sees the name, not the key');
    assert.equal(db1Info.partitionId, publicInfo.partitionId, 'the partition is the name\'s');
    await publicDb.rowPut(publicInfo, 0n);
    await db1.rowPut(db1Info, 1n);
    assert.deepEqual(await publicDb.names(), [SENSORS.name]);
    assert.deepEqual(await db1.names(), [SENSORS.name]);
    for (const reopen of ['replay', 'checkpoint'] as const) {
      if (reopen === 'checkpoint') await test.store.checkpoint();
      ({ publicDb, db1 } = connections(await test.reopen()));
      assert.deepEqual(await publicDb.rowGet(), ['a', 0n], reopen);
      assert.deepEqual(await db1.rowGet(), ['a', 1n], reopen);
    }
    await test.store.close();
  });
});
