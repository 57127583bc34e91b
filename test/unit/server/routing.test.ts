// The routing runner against one engine of every group: the same requests, on the same connection
// ids, go to a LocalRequestRunner over a Store of all four partition groups (one home) and to a
// RoutingRequestRunner over four LocalRequestRunners, each over a Store of one group (another
// home), and every reply must be the same bytes. The requests span groups on purpose: multi-put
// and multi-get (also failing ones, and retried statements), container lists paged, manual
// sessions with transactions in several groups, queries whose results stay open in two groups
// at once, fetches and closes.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  CONNECTION_RESULT_SET_COUNT_MAX, PROTOCOL_MESSAGE_BYTES_MAX,
} from '../../../lib/base/limits.ts';
import { storageOptions } from '../../../lib/base/options.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { Store } from '../../../lib/engine/store.ts';
import { FRAME_HEADER_BYTES, FrameStatus } from '../../../lib/protocol/frame.ts';
import { decodeBody, type MessageCodec } from '../../../lib/protocol/message-codec.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { SESSION_CLOSE, SESSION_OPEN } from '../../../lib/protocol/messages-connection.ts';
import { CONTAINER_LIST, CONTAINER_PUT } from '../../../lib/protocol/messages-container.ts';
import { FETCH, QUERY, RESULT_CLOSE } from '../../../lib/protocol/messages-query.ts';
import { SQL_EXECUTE } from '../../../lib/protocol/messages-sql.ts';
import {
  MULTI_GET, MULTI_PUT, ROW_PUT, type RowPredicate,
} from '../../../lib/protocol/messages-row.ts';
import { ABORT, COMMIT, SET_AUTO_COMMIT } from '../../../lib/protocol/messages-transaction.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import type { SchemaRef, Statement } from '../../../lib/protocol/wire-refs.ts';
import { KeyBatch, RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { containerSchemaOf, type ContainerInfo } from '../../../lib/protocol/wire-schema.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { containerPartitionId, partitionGroupOf } from '../../../lib/schema/partition-hash.ts';
import type { RequestFrame } from '../../../lib/server/reply-frames.ts';
import { LocalRequestRunner, type RequestRunner } from '../../../lib/server/request-runner.ts';
import { RoutingRequestRunner } from '../../../lib/server/routing-request-runner.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { storageError } from './server-test-helpers.ts';

const OPTIONS = storageOptions({
  partitionNum: 8, concurrency: 4, logWriteMode: 1, transactionTimeoutLimitMs: 5_000,
  checkpointIntervalMs: 3_600_000,
});
const SETUP = { clientKey: 'admin/01', transactionTimeoutMs: 5_000 };

function runnerOf(store: Store, internalErrors: unknown[]): LocalRequestRunner {
  return new LocalRequestRunner(store, {
    queryHandler: tqlQueryHandler, messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
    statementResultCountMax: 1000, statementResultCountPerClientMax: 1000,
    onFailure: (error) => internalErrors.push(error),
  });
}

/** Both engines: every request goes to each, and their replies must be the same bytes. */
class Twin {
  private nextRequestId = 1;
  private statementId = 0;

  constructor(readonly single: RequestRunner, readonly routed: RequestRunner) {}

  statement(sessionId = 0): Statement {
    return { sessionId, statementId: ++this.statementId };
  }

  open(connectionId: number): void {
    this.single.connectionOpened(connectionId, SETUP);
    this.routed.connectionOpened(connectionId, SETUP);
  }

  close(connectionId: number): void {
    this.single.connectionClosed(connectionId);
    this.routed.connectionClosed(connectionId);
  }

  /** Runs one request on both; returns its reply, or throws its error. */
  async call<Q, P>(codec: MessageCodec<Q, P>, request: Q, connectionId = 1): Promise<P> {
    const [reply] = await this.pipelined(codec, [request], connectionId);
    return await reply!;
  }

  /** Sends the requests at once, without waiting for replies in between (as a client may). */
  async pipelined<Q, P>(
    codec: MessageCodec<Q, P>,
    requests: readonly Q[],
    connectionId = 1,
  ): Promise<Array<Promise<P>>> {
    const frames = requests.map((request): RequestFrame => {
      const writer = new ByteWriter(256);
      codec.writeRequest(writer, request);
      return { messageType: codec.type, requestId: this.nextRequestId++, body: writer.finish() };
    });
    const runAll = (runner: RequestRunner) =>
      Promise.all(frames.map((frame) => runner.run(connectionId, frame)));
    const [single, routed] = await Promise.all([runAll(this.single), runAll(this.routed)]);
    assert.deepEqual(routed, single, `${codec.type}: the routed replies are the single engine's`);
    return single.map(async (outcome) => {
      const body = outcome.bytes.subarray(FRAME_HEADER_BYTES);
      if (outcome.bytes[8] === FrameStatus.ERROR) throw errorDecode(body);
      return decodeBody(body, codec.readReply, 'reply');
    });
  }
}

const groupOf = (name: string) =>
  partitionGroupOf(containerPartitionId(name, OPTIONS.partitionNum), OPTIONS);

/** Names of containers, two in each group. */
function namesByGroup(): string[][] {
  const names: string[][] = [[], [], [], []];
  for (let i = 0; names.some((group) => group.length < 2); i++) {
    const name = `meter_${i}`;
    const group = names[groupOf(name)]!;
    if (group.length < 2) group.push(name);
  }
  return names;
}

const refOf = (info: ContainerInfo): SchemaRef => ({
  partitionId: info.partitionId, name: info.name, containerId: info.containerId,
  schemaVersion: info.schemaVersion,
});

describe('routing runner: one engine thread per partition group', () => {
  const homes: string[] = [];
  const internalErrors: unknown[] = [];
  const stores: Store[] = [];
  let twin: Twin;
  const infos = new Map<string, ContainerInfo>();
  const names = namesByGroup();
  const [a0, a1] = names[0]!;
  const [b0] = names[1]!;
  const [c0] = names[2]!;
  const [d0, d1] = names[3]!;

  before(async () => {
    const home = (label: string) => {
      const path = mkdtempSync(join(tmpdir(), `store-routing-${label}-`));
      homes.push(path);
      return path;
    };
    const whole = await Store.open({ home: home('single'), options: OPTIONS });
    const groupHome = home('groups');
    await Store.prepareHome({ home: groupHome, options: OPTIONS });
    const groups = await Promise.all([0, 1, 2, 3].map((groupIndex) =>
      Store.open({ home: groupHome, options: OPTIONS, groupIndexes: [groupIndex] })));
    stores.push(whole, ...groups);
    twin = new Twin(runnerOf(whole, internalErrors), new RoutingRequestRunner(
      groups.map((store) => runnerOf(store, internalErrors)), {
        partitionNum: OPTIONS.partitionNum, messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
      }));
    twin.open(1);
    twin.open(2);
    for (const name of names.flat()) {
      infos.set(name, await twin.call(CONTAINER_PUT, {
        statement: twin.statement(),
        partitionId: containerPartitionId(name, OPTIONS.partitionNum),
        definitionJson: JSON.stringify({ name, type: 'COLLECTION', rowKey: true,
          columns: [{ name: 'id', type: 'STRING' }, { name: 'kw', type: 'LONG' }] }),
        modifiable: false,
      }));
    }
  });

  after(async () => {
    twin.close(1);
    twin.close(2);
    for (const store of stores) await store.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
    assert.deepEqual(internalErrors, []);
  });

  const info = (name: string) => infos.get(name)!;
  const rowsOf = (name: string, rows: Row[]) =>
    ({ ref: refOf(info(name)), rows: RowBatch.of(containerSchemaOf(info(name)), rows) });
  const everyRow = (name: string): { ref: SchemaRef; predicate: RowPredicate } => {
    const schema = containerSchemaOf(info(name));
    return { ref: refOf(info(name)), predicate: { kind: 'range',
      start: KeyBatch.of(schema, []), finish: KeyBatch.of(schema, []), limit: 0 } };
  };
  const readAll = (sessionId = 0) => twin.call(MULTI_GET,
    { sessionId, entries: names.flat().map(everyRow) });

  it('opens only its group in each Store', () => {
    assert.deepEqual(stores.slice(1).map((store) => store.groupIndexes), [[0], [1], [2], [3]]);
    assert.deepEqual(stores[1]!.listContainers(), [a0, a1].sort());
    assert.throws(() => stores[1]!.getContainerInfo(b0!), storageError('PARTITION_NOT_OWNED'));
    assert.equal(stores[0]!.listContainers().length, 8);
  });

  it('pages the container list merged from every group', async () => {
    for (const [offset, limit] of [[0, 0], [0, 3], [2, 3], [7, 5], [3, 0], [100, 1]] as const) {
      const reply = await twin.call(CONTAINER_LIST, { offset, limit });
      assert.equal(reply.total, 8);
    }
  });

  it('puts and gets rows across groups in one request; a retried put applies once', async () => {
    const statement = twin.statement();
    const request = { statement, entries: [
      rowsOf(a0!, [['x', 1n]]), rowsOf(c0!, [['y', 2n]]), rowsOf(a1!, [['z', 3n]]),
      rowsOf(d0!, [['w', 4n], ['v', 5n]]),
    ] };
    await twin.call(MULTI_PUT, request);
    await twin.call(MULTI_PUT, request, 2);
    const before = await readAll();
    assert.deepEqual(before.map((batch) => batch.count), [1, 1, 0, 0, 1, 0, 2, 0]);
    const keysOf = (name: string, keys: string[]) => ({ ref: refOf(info(name)), predicate: {
      kind: 'keys' as const, keys: KeyBatch.of(containerSchemaOf(info(name)), keys) } });
    const got = await twin.call(MULTI_GET, { sessionId: 0,
      entries: [keysOf(d0!, ['v', 'nope']), keysOf(a0!, ['x']), keysOf(d0!, ['w'])] });
    const schemaOf = (i: number) => containerSchemaOf(info([d0!, a0!, d0!][i]!));
    assert.deepEqual(got.map((batch, i) => batch.decode(schemaOf(i))),
      [[['v', 5n]], [['x', 1n]], [['w', 4n]]]);
  });

  it('writes nothing of a multi-put that one group refuses, and says what one engine says',
    async () => {
      const before = await readAll();
      const missing = { ...rowsOf(b0!, [['q', 9n]]), ref: { ...refOf(info(b0!)), name: 'nowhere',
        partitionId: containerPartitionId('nowhere', OPTIONS.partitionNum) } };
      await assert.rejects(twin.call(MULTI_PUT, { statement: twin.statement(),
        entries: [rowsOf(a0!, [['new', 1n]]), rowsOf(d1!, [['new', 2n]]), missing] }),
      storageError('CONTAINER_NOT_FOUND'));
      const stale = (name: string) => ({ ...rowsOf(name, [['s', 1n]]),
        ref: { ...refOf(info(name)), schemaVersion: 9 } });
      await assert.rejects(twin.call(MULTI_PUT, { statement: twin.statement(),
        entries: [rowsOf(a0!, [['new', 1n]]), stale(c0!), stale(b0!)] }),
      storageError('SCHEMA_CHANGED'));
      assert.deepEqual(await readAll(), before);
    });

  it('answers a multi-get that fails in several groups with its first failure', async () => {
    const gone = (name: string, other: string) => ({ ...everyRow(name),
      ref: { ...refOf(info(name)), name: other,
        partitionId: containerPartitionId(other, OPTIONS.partitionNum) } });
    await assert.rejects(twin.call(MULTI_GET, { sessionId: 0,
      entries: [everyRow(a0!), gone(d0!, 'ghost_1'), everyRow(b0!), gone(c0!, 'ghost_2')] }),
    storageError('CONTAINER_NOT_FOUND', /ghost_1/));
  });

  it('keeps a manual session across groups: commit in one, abort in another', async () => {
    const { sessionId } = await twin.call(SESSION_OPEN, { transactionTimeoutMs: 0 });
    assert.ok(sessionId > 0);
    for (const name of [b0!, d1!]) {
      await twin.call(SET_AUTO_COMMIT, { statement: twin.statement(sessionId),
        ref: refOf(info(name)), enabled: false });
      await twin.call(ROW_PUT,
        { statement: twin.statement(sessionId), ...rowsOf(name, [['t', 7n]]) });
    }
    await twin.call(MULTI_PUT, { statement: twin.statement(sessionId),
      entries: [rowsOf(b0!, [['u', 8n]]), rowsOf(d1!, [['u', 8n]])] });
    const inside = await readAll(sessionId);
    const commit = { statement: twin.statement(sessionId), ref: refOf(info(b0!)) };
    await twin.call(COMMIT, commit);
    await twin.call(COMMIT, commit, 2); // a retry on another connection: answered once
    await twin.call(ABORT, { statement: twin.statement(sessionId), ref: refOf(info(d1!)) });
    const outside = await readAll();
    assert.equal(inside[names.flat().indexOf(d1!)]!.count, 2);
    assert.equal(outside[names.flat().indexOf(b0!)]!.count, 2);
    assert.equal(outside[names.flat().indexOf(d1!)]!.count, 0);
    await twin.call(SESSION_CLOSE, { sessionId });
    await assert.rejects(twin.call(ROW_PUT, { statement: twin.statement(sessionId),
      ...rowsOf(b0!, [['late', 1n]]) }), storageError('TRANSACTION_INVALID'));
    await assert.rejects(twin.call(SESSION_CLOSE, { sessionId: 0 }),
      storageError('TRANSACTION_INVALID'));
  });

  it('numbers query results per connection across groups; fetches and closes them', async () => {
    await twin.call(MULTI_PUT, { statement: twin.statement(), entries: [
      rowsOf(a1!, Array.from({ length: 5 }, (_, i): Row => [`r${i}`, BigInt(i)])),
      rowsOf(c0!, Array.from({ length: 5 }, (_, i): Row => [`r${i}`, BigInt(i)])),
    ] });
    const query = (name: string) => twin.call(QUERY, { sessionId: 0, ref: refOf(info(name)),
      tql: 'SELECT * ORDER BY id', fetchSize: 2, partialExecution: false, forUpdate: false });
    const first = await query(a1!);
    const second = await query(c0!);
    assert.deepEqual([first.resultSetId, second.resultSetId], [1, 2]);
    const other = await twin.call(QUERY, { sessionId: 0, ref: refOf(info(c0!)),
      tql: 'SELECT * ORDER BY id', fetchSize: 2, partialExecution: false, forUpdate: false }, 2);
    assert.equal(other.resultSetId, 1, 'numbered per connection');
    await twin.call(FETCH, { resultSetId: 2, fetchSize: 2 });
    await twin.call(FETCH, { resultSetId: 1, fetchSize: 2 });
    const last = await twin.call(FETCH, { resultSetId: 2, fetchSize: 5 });
    assert.equal(last.done, true);
    await assert.rejects(twin.call(FETCH, { resultSetId: 2, fetchSize: 2 }),
      storageError('CLOSED', /query result 2/));
    await twin.call(RESULT_CLOSE, { resultSetId: 1 });
    await twin.call(RESULT_CLOSE, { resultSetId: 1 });
    await twin.call(RESULT_CLOSE, { resultSetId: 1 }, 2);
    const all = await twin.call(QUERY, { sessionId: 0, ref: refOf(info(c0!)),
      tql: 'SELECT COUNT(*)', fetchSize: 2, partialExecution: false, forUpdate: false });
    assert.equal(all.resultSetId, 0);
  });

  it('runs SQL in the group of the table it names, and pages its rows there', async () => {
    // a1 lives in group 1, c0 in group 0: each statement reaches its table's thread.
    for (const name of [a1!, c0!]) {
      await twin.call(MULTI_PUT, { statement: twin.statement(), entries: [
        rowsOf(name, Array.from({ length: 5 }, (_, i): Row => [`s${i}`, BigInt(10 + i)])),
      ] });
      const rows = await twin.call(SQL_EXECUTE, { sql: `SELECT id, kw FROM "${name}" WHERE kw >= ? ORDER BY id`,
        fetchSize: 2, timeoutMs: 0, parameters: [{ type: 'LONG', value: 10n }] });
      assert.ok(rows.updateCount === undefined);
      assert.notEqual(rows.resultSetId, 0);
      const more = await twin.call(FETCH, { resultSetId: rows.resultSetId, fetchSize: 10 });
      assert.equal(more.done, true);
      const updated = await twin.call(SQL_EXECUTE, { sql: `DELETE FROM "${name}" WHERE kw >= 10`,
        fetchSize: 0, timeoutMs: 0, parameters: [] });
      assert.equal(updated.updateCount, 5);
    }
    const plain = await twin.call(SQL_EXECUTE, { sql: 'SELECT 1+1', fetchSize: 0, timeoutMs: 0, parameters: [] });
    assert.equal(plain.resultSetId, 0);
  });

  it('joins tables of one partition group; a join across groups runs in its first table\'s group', async () => {
    await twin.call(MULTI_PUT, { statement: twin.statement(), entries: [
      rowsOf(a0!, [['j', 1n], ['k', 2n]]), rowsOf(a1!, [['j', 3n]]), rowsOf(c0!, [['j', 4n]]),
    ] });
    const sql = (text: string) => twin.call(SQL_EXECUTE, { sql: text, fetchSize: 10, timeoutMs: 0, parameters: [] });
    const joined = await sql(`SELECT x.kw, y.kw FROM "${a0}" AS x JOIN "${a1}" AS y ON x.id = y.id`);
    assert.ok(joined.updateCount === undefined, 'rows, not an update count');
    // This runner has no peers (a node's bring the other group's table in: node-sql-join-groups.test.ts),
    // so the table of the other group is unknown where the statement runs: the first table's group.
    const routedOnly = async (text: string) => {
      const writer = new ByteWriter(256);
      SQL_EXECUTE.writeRequest(writer, { sql: text, fetchSize: 10, timeoutMs: 0, parameters: [] });
      const outcome = await twin.routed.run(1, { messageType: SQL_EXECUTE.type, requestId: 1_000_000, body: writer.finish() });
      assert.equal(outcome.bytes[8], FrameStatus.ERROR);
      throw errorDecode(outcome.bytes.subarray(FRAME_HEADER_BYTES));
    };
    await assert.rejects(routedOnly(`SELECT x.kw FROM "${a0}" AS x JOIN "${c0}" AS y ON x.id = y.id`),
      storageError('CONTAINER_NOT_FOUND', new RegExp(`no table ${c0}`)));
    await assert.rejects(routedOnly(`SELECT y.kw FROM "${c0}" AS y JOIN "${a0}" AS x ON x.id = y.id`),
      storageError('CONTAINER_NOT_FOUND', new RegExp(`no table ${a0}`)));
  });

    it('answers a fetch sent after the last page by the id the client holds', async () => {
    twin.open(3);
    const query = (name: string) => twin.call(QUERY, { sessionId: 0, ref: refOf(info(name)),
      tql: 'SELECT *', fetchSize: 2, partialExecution: false, forUpdate: false }, 3);
    assert.equal((await query(a1!)).resultSetId, 1);
    assert.equal((await query(c0!)).resultSetId, 2, 'its thread numbers it 1');
    const [last, late] = await twin.pipelined(FETCH,
      [{ resultSetId: 2, fetchSize: 10 }, { resultSetId: 2, fetchSize: 10 }], 3);
    assert.equal((await last!).done, true);
    await assert.rejects(late!, storageError('CLOSED', /query result 2 /));
    twin.close(3);
  });

  it('bounds the results a connection holds open over every group', async () => {
    const opened: number[] = [];
    for (let i = 0; i < CONNECTION_RESULT_SET_COUNT_MAX; i++) {
      const name = i % 2 === 0 ? a1! : c0!;
      opened.push((await twin.call(QUERY, { sessionId: 0, ref: refOf(info(name)),
        tql: 'SELECT *', fetchSize: 1, partialExecution: false, forUpdate: false })).resultSetId);
    }
    await assert.rejects(twin.call(QUERY, { sessionId: 0, ref: refOf(info(a1!)),
      tql: 'SELECT *', fetchSize: 1, partialExecution: false, forUpdate: false }), storageError('LIMIT_EXCEEDED'));
    for (const resultSetId of opened) await twin.call(RESULT_CLOSE, { resultSetId });
    const again = await twin.call(QUERY, { sessionId: 0, ref: refOf(info(a1!)),
      tql: 'SELECT *', fetchSize: 1, partialExecution: false, forUpdate: false });
    await twin.call(RESULT_CLOSE, { resultSetId: again.resultSetId });
  });

  it('answers a malformed request as one engine does', async () => {
    for (const messageType of [MessageType.MULTI_PUT, MessageType.FETCH, MessageType.ROW_PUT,
      MessageType.CONTAINER_LIST, MessageType.SESSION_OPEN]) {
      const frame = { messageType, requestId: 9, body: new Uint8Array([0x80]) };
      const [single, routed] = await Promise.all([
        twin.single.run(2, frame), twin.routed.run(2, frame)]);
      assert.deepEqual(routed, single);
      assert.ok(single.closeReason !== undefined);
    }
  });
});
