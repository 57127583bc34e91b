// Message codecs: every request and reply round-trips through a frame (rows of every column type
// included, with LONG at its extremes, NaN, -0, empty strings and BLOBs), and every malformed body
// (cut short, padded, random, an impossible enum or count) is a PROTOCOL_ERROR, never another
// exception.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError } from '../../../lib/base/errors.ts';
import { INT64_MAX, INT64_MIN, type Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';
import { keyValidator } from '../../../lib/schema/row-validate.ts';
import { FrameReader, FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { CREATE_INDEX, DROP_INDEX } from '../../../lib/protocol/messages-index.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { decodeBody, type MessageCodec } from '../../../lib/protocol/message-codec.ts';
import {
  AUTH, HELLO, PING, SESSION_CLOSE, SESSION_OPEN,
} from '../../../lib/protocol/messages-connection.ts';
import {
  CONTAINER_DROP, CONTAINER_INFO, CONTAINER_LIST, CONTAINER_PUT,
} from '../../../lib/protocol/messages-container.ts';
import { FETCH, QUERY, RESULT_CLOSE } from '../../../lib/protocol/messages-query.ts';
import { SQL_CANCEL, SQL_EXECUTE } from '../../../lib/protocol/messages-sql.ts';
import {
  MULTI_GET, MULTI_PUT, ROW_GET, ROW_PUT, ROW_REMOVE,
} from '../../../lib/protocol/messages-row.ts';
import {
  ABORT, COMMIT, LOG_SYNC, SET_AUTO_COMMIT,
} from '../../../lib/protocol/messages-transaction.ts';
import { errorDecode, errorWrite } from '../../../lib/protocol/wire-error.ts';
import { KeyBatch, RowBatch } from '../../../lib/protocol/wire-rows.ts';
import {
  containerInfoRead, containerInfoWrite, containerSchemaOf, type ContainerInfo,
} from '../../../lib/protocol/wire-schema.ts';
import type { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import {
  keysOf, limits, schemaAndRows, schemaArbitrary, textArbitrary, wireRows,
} from '../encoding/row-arbitraries.ts';

const MAX = 64 * 1024 * 1024;

/** The body a codec writes, read back from a frame: what the other side sees. */
function bodyOf(write: (writer: ByteWriter) => void): Uint8Array {
  const header = { messageType: MessageType.PING, status: FrameStatus.REQUEST, requestId: 1 };
  const bytes = encodeFrame(header, write, MAX);
  const reader = new FrameReader(MAX);
  reader.push(bytes.slice());
  return reader.next()!.body;
}

function requestTrip<Q, P>(codec: MessageCodec<Q, P>, request: Q): Q {
  const body = bodyOf((writer) => codec.writeRequest(writer, request));
  return decodeBody(body, codec.readRequest, 'request');
}

function replyTrip<Q, P>(codec: MessageCodec<Q, P>, reply: P): P {
  return decodeBody(bodyOf((writer) => codec.writeReply(writer, reply)), codec.readReply, 'reply');
}

const protocolError = (error: unknown) => isStorageError(error, 'PROTOCOL_ERROR');

function infoOf(schema: ContainerSchema, extra: Partial<ContainerInfo> = {}): ContainerInfo {
  return {
    name: schema.name, type: schema.type, columns: schema.columns,
    rowKeyColumnCount: schema.rowKeyColumnCount, dataAffinity: schema.dataAffinity,
    indexes: schema.indexes, schemaVersion: schema.schemaVersion, partitionId: 3,
    containerId: 12, rowCount: 2 ** 40, blockCount: 7, ...extra,
  };
}

const rowSchema = validateContainerDefinition({ name: 'rows', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'v', type: 'LONG' }] }, limits);
const schemaRef = { partitionId: 5, name: 'random', containerId: 12, schemaVersion: 1 };
const statement = { sessionId: 3, statementId: 2 ** 40 };

/** Every message body as one sample each, for the malformed-body properties. */
interface SampleBody {
  what: string;
  body: Uint8Array;
  read: (r: ByteReader) => unknown;
}

function sampleBodies(): SampleBody[] {
  const schema = validateContainerDefinition({ name: 'k', type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'STRING' }, { name: 'v', type: 'LONG_ARRAY' }] }, limits);
  const rows = RowBatch.of(schema, [['a', [1n, INT64_MIN]], ['', []]]);
  const keys = KeyBatch.of(schema, ['a']);
  const samples: Array<[MessageCodec<never, never>, 'request' | 'reply', unknown]> = [
    [HELLO as never, 'request', { clientVersion: 'x' }],
    [HELLO as never, 'reply', { nonce: new Uint8Array(32), serverVersion: 'v' }],
    [AUTH as never, 'request', { user: 'u', clusterName: 'c', database: 'public',
      applicationName: 'a', clientId: new Uint8Array(16), transactionTimeoutMs: 5,
      proof: new Uint8Array(32) }],
    [CONTAINER_PUT as never, 'request', { statement, partitionId: 1, definitionJson: '{}',
      modifiable: true }],
    [CONTAINER_INFO as never, 'reply', infoOf(schema)],
    [ROW_PUT as never, 'request', { statement, ref: schemaRef, rows }],
    [ROW_GET as never, 'request', { sessionId: 0, ref: schemaRef, keys }],
    [MULTI_GET as never, 'request', { sessionId: 0, entries: [{ ref: schemaRef,
      predicate: { kind: 'range', start: keys, finish: KeyBatch.of(schema, []), limit: 3 } }] }],
    [QUERY as never, 'reply', { resultSetId: 4, kind: 'ROWS', columns: schema.columns, rows }],
    [SET_AUTO_COMMIT as never, 'request', { statement, ref: schemaRef, enabled: false }],
  ];
  return samples.map(([codec, side, value]) => ({
    what: `${codec.type} ${side}`,
    body: bodyOf((writer) => (side === 'request'
      ? codec.writeRequest(writer, value as never) : codec.writeReply(writer, value as never))),
    read: (side === 'request' ? codec.readRequest : codec.readReply) as (r: ByteReader) => unknown,
  }));
}

describe('messages: round trips', () => {
  it('connection messages', () => {
    const clientIds = fc.uint8Array({ minLength: 16, maxLength: 16 });
    fc.assert(fc.property(textArbitrary, textArbitrary, clientIds, fc.nat(),
      (user, cluster, clientId, timeoutMs) => {
        const auth = { user, clusterName: cluster, database: 'public', applicationName: user,
          clientId, transactionTimeoutMs: timeoutMs, proof: new Uint8Array(32).fill(7) };
        assert.deepStrictEqual(requestTrip(AUTH, auth), auth);
      }));
    const hello = { nonce: new Uint8Array(32).fill(1), serverVersion: 'store 0.1.0' };
    assert.deepStrictEqual(replyTrip(HELLO, hello), hello);
    const authReply = { partitionNum: 128, storeBlockSizeBytes: 65536, messageBytesMax: 2 ** 26,
      transactionTimeoutMs: 300_000 };
    assert.deepStrictEqual(replyTrip(AUTH, authReply), authReply);
    assert.deepStrictEqual(requestTrip(PING, {}), {});
    assert.deepStrictEqual(replyTrip(SESSION_OPEN, { sessionId: 2 ** 50 }), { sessionId: 2 ** 50 });
    assert.deepStrictEqual(requestTrip(SESSION_CLOSE, { sessionId: 9 }), { sessionId: 9 });
  });

  it('container info of any schema, and the schema rows are encoded with', () => {
    fc.assert(fc.property(schemaArbitrary, fc.option(fc.constantFrom('#unique', 'g1')),
      (schema, affinity) => {
        const info = infoOf(schema, { dataAffinity: affinity ?? undefined });
        const read = replyTrip(CONTAINER_INFO, info);
        assert.deepStrictEqual(read, info);
        assert.deepStrictEqual(containerSchemaOf(read!), {
          ...schema, ...(affinity === null ? {} : { dataAffinity: affinity }),
        });
      }), { numRuns: 300 });
    assert.equal(replyTrip(CONTAINER_INFO, undefined), undefined);
  });

  it('container requests', () => {
    const put = { statement, partitionId: 127, definitionJson: '{"name":"é"}', modifiable: false };
    assert.deepStrictEqual(requestTrip(CONTAINER_PUT, put), put);
    const drop = { statement, ref: { partitionId: 0, name: 'x' } };
    assert.deepStrictEqual(requestTrip(CONTAINER_DROP, drop), drop);
    assert.equal(replyTrip(CONTAINER_DROP, true), true);
    const page = { offset: 5, limit: 0 };
    assert.deepStrictEqual(requestTrip(CONTAINER_LIST, page), page);
    const index = { statement, ref: { partitionId: 4, name: 'x' }, json: '{"columnNames":["v"]}' };
    assert.deepStrictEqual(requestTrip(CREATE_INDEX, index), index);
    assert.deepStrictEqual(requestTrip(DROP_INDEX, index), index);
    const info = infoOf(rowSchema, { indexes: [{ name: 'byV', columnIndexes: [1], type: 'TREE' }] });
    assert.deepStrictEqual(replyTrip(CREATE_INDEX, { created: true, info }), { created: true, info });
    assert.deepStrictEqual(replyTrip(DROP_INDEX, { droppedCount: 2, info }), { droppedCount: 2, info });
    const list = { total: 3, names: ['a', 'B', '😀'] };
    assert.deepStrictEqual(replyTrip(CONTAINER_LIST, list), list);
  });

  it('rows of every column type survive ROW_PUT exactly', () => {
    fc.assert(fc.property(schemaAndRows, ({ schema, rows }) => {
      const read = requestTrip(ROW_PUT,
        { statement, ref: schemaRef, rows: RowBatch.of(schema, rows) });
      assert.deepStrictEqual(read.statement, statement);
      assert.deepStrictEqual(read.ref, schemaRef);
      assert.deepStrictEqual(read.rows.decode(schema), wireRows(rows));
    }), { numRuns: 1000 });
  });

  it('keys of every key type survive ROW_GET, ROW_REMOVE and MULTI_GET', () => {
    const keyed = schemaAndRows.filter(({ schema, rows }) =>
      schema.rowKeyColumnCount > 0 && rows.length > 0);
    fc.assert(fc.property(keyed, ({ schema, rows }) => {
      const keys = keysOf(schema, rows).map(keyValidator(schema));
      const one = KeyBatch.of(schema, [keys[0]!]);
      const get = requestTrip(ROW_GET, { sessionId: 0, ref: schemaRef, keys: one });
      assert.deepStrictEqual(get.keys.decode(schema), [keys[0]]);
      const remove = requestTrip(ROW_REMOVE, { statement, ref: schemaRef, keys: one });
      assert.deepStrictEqual(remove.keys.decode(schema), [keys[0]]);
      const multi = requestTrip(MULTI_GET, { sessionId: 1, entries: [
        { ref: schemaRef, predicate: { kind: 'keys', keys: KeyBatch.of(schema, keys) } },
        { ref: schemaRef, predicate: { kind: 'range', start: KeyBatch.of(schema, [keys[0]!]),
          finish: KeyBatch.of(schema, []), limit: 10 } },
      ] });
      const [byKeys, byRange] = multi.entries;
      assert.ok(byKeys!.predicate.kind === 'keys' && byRange!.predicate.kind === 'range');
      assert.deepStrictEqual(byKeys!.predicate.keys.decode(schema), keys);
      assert.deepStrictEqual(byRange!.predicate.start.decode(schema), [keys[0]]);
      assert.deepStrictEqual(byRange!.predicate.finish.decode(schema), []);
      assert.equal(byRange!.predicate.limit, 10);
      const reply = replyTrip(MULTI_GET, [RowBatch.of(schema, rows), RowBatch.of(schema, [])]);
      assert.deepStrictEqual(reply.map((batch) => batch.decode(schema)), [wireRows(rows), []]);
    }), { numRuns: 300 });
  });

  it('LONG extremes, NaN, -0, empty strings and BLOBs, as named cases', () => {
    const schema = validateContainerDefinition({ name: 'edge', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'LONG' }, { name: 'd', type: 'DOUBLE' },
        { name: 'f', type: 'FLOAT' }, { name: 's', type: 'STRING' }, { name: 'b', type: 'BLOB' },
        { name: 'n', type: 'TIMESTAMP(9)' }],
    }, limits);
    const rows: Row[] = [
      [INT64_MIN, NaN, -0, '', new Uint8Array(0), 0n],
      [INT64_MAX, -0, NaN, '\u0001😀', new Uint8Array([0, 255]), 253_402_300_799_999_999_999n],
      [0n, Infinity, -Infinity, null, null, null],
    ];
    const read = requestTrip(MULTI_PUT, { statement, entries: [
      { ref: schemaRef, rows: RowBatch.of(schema, rows) },
      { ref: { ...schemaRef, name: 'other' }, rows: RowBatch.of(schema, []) },
    ] });
    const decoded = read.entries[0]!.rows.decode(schema);
    assert.deepStrictEqual(decoded, rows);
    assert.ok(Object.is(decoded[0]![2], -0) && Object.is(decoded[1]![1], -0));
    assert.equal(read.entries[1]!.ref.name, 'other');
  });

  it('transaction and query messages', () => {
    const ref = { partitionId: 1, name: 'c' };
    for (const codec of [COMMIT, ABORT]) {
      assert.deepStrictEqual(requestTrip(codec, { statement, ref }), { statement, ref });
    }
    const auto = { statement, ref, enabled: true };
    assert.deepStrictEqual(requestTrip(SET_AUTO_COMMIT, auto), auto);
    assert.deepStrictEqual(requestTrip(LOG_SYNC, ref), ref);
    for (const [partialExecution, forUpdate] of [[false, false], [true, false], [false, true]]) {
      const query = {
        sessionId: 0, ref, tql: 'select * where x > 1', fetchSize: 100,
        partialExecution: partialExecution!, forUpdate: forUpdate!,
      };
      assert.deepStrictEqual(requestTrip(QUERY, query), query);
    }
    for (const rowLimit of [0, 1, 300, 2 ** 40]) {
      const query = {
        sessionId: 3, ref, tql: 'select *', fetchSize: 10, partialExecution: false, forUpdate: true,
        rowLimit,
      };
      assert.deepStrictEqual(requestTrip(QUERY, query), query);
    }
    // The options byte was a boolean: 0 and 1 still mean what they meant; unknown bits are refused.
    const options = (byte: number) => {
      const body = bodyOf((writer) => QUERY.writeRequest(writer, {
        sessionId: 0, ref, tql: 'select *', fetchSize: 1, partialExecution: false, forUpdate: false,
      }));
      body[body.length - 1] = byte;
      return body;
    };
    assert.equal(decodeBody(options(1), QUERY.readRequest, 'request').partialExecution, true);
    assert.equal(decodeBody(options(2), QUERY.readRequest, 'request').forUpdate, true);
    // 0x04 says a row limit follows: without one the body is short.
    assert.throws(() => decodeBody(options(4), QUERY.readRequest, 'request'), protocolError);
    // 0x08 says a sampling call follows (mode, column indexes): without one the body is short.
    assert.throws(() => decodeBody(options(8), QUERY.readRequest, 'request'), protocolError);
    assert.throws(() => decodeBody(options(16), QUERY.readRequest, 'request'), protocolError);
    for (const sampling of [{ mode: 'LINEAR_OR_PREVIOUS' as const, columnIndexes: [1, 3, 200] },
      { mode: 'EMPTY' as const, columnIndexes: [] }]) {
      const query = {
        sessionId: 0, ref, tql: 'select time_sampling(*, …)', fetchSize: 10,
        partialExecution: false, forUpdate: false, rowLimit: 5, sampling,
      };
      assert.deepStrictEqual(requestTrip(QUERY, query), query);
    }
    fc.assert(fc.property(schemaAndRows, fc.constantFrom('ROWS', 'AGGREGATION', 'EXPLAIN' as const),
      ({ schema, rows }, kind) => {
        const resultSchema = { ...schema, rowKeyColumnCount: 0,
          columns: schema.columns.map((column) => ({ ...column })) };
        const reply = replyTrip(QUERY, { resultSetId: 9, kind, columns: resultSchema.columns,
          rows: RowBatch.of(resultSchema, rows) });
        assert.equal(reply.kind, kind);
        assert.deepStrictEqual(reply.columns, resultSchema.columns);
        assert.deepStrictEqual(reply.rows.decode(resultSchema), wireRows(rows));
        const fetch = replyTrip(FETCH, { done: true, rows: RowBatch.of(resultSchema, rows) });
        assert.deepStrictEqual(fetch.rows.decode(resultSchema), wireRows(rows));
      }), { numRuns: 200 });
    const fetch = { resultSetId: 9, fetchSize: 0 };
    assert.deepStrictEqual(requestTrip(FETCH, fetch), fetch);
    assert.deepStrictEqual(requestTrip(RESULT_CLOSE, { resultSetId: 9 }), { resultSetId: 9 });
  });

  it('SQL_EXECUTE carries typed parameters of every SQL type, rows with SQL types, or an update count', () => {
    const parameters = [
      { type: 'UNKNOWN' as const, value: null }, { type: 'BOOL' as const, value: true },
      { type: 'BYTE' as const, value: -5 }, { type: 'SHORT' as const, value: 300 },
      { type: 'INTEGER' as const, value: -70000 }, { type: 'LONG' as const, value: -(2n ** 63n) },
      { type: 'FLOAT' as const, value: 1.5 }, { type: 'DOUBLE' as const, value: 0.1 },
      { type: 'TIMESTAMP' as const, value: 1_700_000_000_123 },
      { type: 'TIMESTAMP(6)' as const, value: 1_700_000_000_123_456n },
      { type: 'TIMESTAMP(9)' as const, value: 1_700_000_000_123_456_789n },
      { type: 'STRING' as const, value: 'é?' }, { type: 'BLOB' as const, value: new Uint8Array([1, 2]) },
      { type: 'LONG' as const, value: null },
    ];
    const request = { sql: 'SELECT ?', fetchSize: 7, timeoutMs: 1000, parameters };
    assert.deepStrictEqual(requestTrip(SQL_EXECUTE, request), request);
    assert.deepStrictEqual(replyTrip(SQL_EXECUTE, { resultSetId: 0, updateCount: 12 }),
      { resultSetId: 0, updateCount: 12 });
    const columns: ColumnSchema[] = [{ name: 'a', type: 'TIMESTAMP', array: false, notNull: false,
      timePrecision: 'MICROSECOND' }];
    const schema = { name: 'r', type: 'COLLECTION' as const, columns, rowKeyColumnCount: 0, indexes: [], schemaVersion: 0 };
    const reply = replyTrip(SQL_EXECUTE, { resultSetId: 3, kind: 'ROWS', sqlTypes: ['TIMESTAMP(6)'], columns,
      rows: RowBatch.of(schema, [[5n], [null]]) });
    assert.equal(reply.resultSetId, 3);
    assert.ok(reply.updateCount === undefined);
    assert.deepStrictEqual(reply.sqlTypes, ['TIMESTAMP(6)']);
    assert.deepStrictEqual(reply.rows.decode(schema), [[5n], [null]]);
    const bad = bodyOf((writer) => { writer.string('x'); writer.varuint(1); writer.varuint(0); writer.varuint(1);
      writer.u8(99); writer.u8(0); });
    assert.throws(() => decodeBody(bad, SQL_EXECUTE.readRequest, 'request'), protocolError);
  });

  it('SQL_CANCEL carries a query id and answers whether a statement was cancelled', () => {
    const request = { queryId: '5b9662c0-b34f-49e8-92e7-7ca4a9c1fd4d:1' };
    assert.deepStrictEqual(requestTrip(SQL_CANCEL, request), request);
    assert.deepStrictEqual(replyTrip(SQL_CANCEL, { cancelled: true }), { cancelled: true });
    assert.deepStrictEqual(replyTrip(SQL_CANCEL, { cancelled: false }), { cancelled: false });
    const bad = bodyOf((writer) => writer.u8(2));
    assert.throws(() => decodeBody(bad, SQL_CANCEL.readReply, 'reply'), protocolError);
  });

  it('errors keep their code and message; an unknown code keeps its number', () => {
    const body = bodyOf((writer) => errorWrite(writer, new StorageError('LOCK_TIMEOUT', 'waited')));
    const error = errorDecode(body);
    assert.equal(error.code, 'LOCK_TIMEOUT');
    assert.equal(error.errorNumber, 10030);
    assert.equal(error.message, 'waited');
    const unknown = bodyOf((writer) => {
      writer.u32(999_999);
      writer.string('FUTURE_CODE');
      writer.string('from a newer node');
    });
    const decoded = errorDecode(unknown);
    assert.equal(decoded.code, 'INTERNAL_ERROR');
    assert.match(decoded.message, /\[999999:FUTURE_CODE\] from a newer node/);
  });
});

describe('messages: malformed bodies', () => {
  const samples = sampleBodies();

  it('every sample body cut short is a PROTOCOL_ERROR', () => {
    for (const { what, body, read } of samples) {
      for (let length = 0; length < body.length; length++) {
        assert.throws(() => decodeBody(body.subarray(0, length), read, what), protocolError,
          `${what} cut at ${length}`);
      }
    }
  });

  it('a body with a byte too many is a PROTOCOL_ERROR', () => {
    for (const { what, body, read } of samples) {
      const longer = new Uint8Array(body.length + 1);
      longer.set(body);
      assert.throws(() => decodeBody(longer, read, what), protocolError, what);
    }
  });

  it('random and mutated bodies decode or fail with PROTOCOL_ERROR, never otherwise', () => {
    fc.assert(fc.property(fc.nat(samples.length - 1), fc.uint8Array({ maxLength: 120 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
      (index, garbage, flips) => {
        const { what, body, read } = samples[index]!;
        const mutated = body.slice();
        for (const [position, value] of flips) {
          if (mutated.length > 0) mutated[position % mutated.length] = value;
        }
        for (const candidate of [garbage, mutated]) {
          try {
            decodeBody(candidate, read, what);
          } catch (error) {
            assert.ok(protocolError(error), `${what}: ${String(error)}`);
          }
        }
      }), { numRuns: 2000 });
  });

  it('refuses enum values, flags and counts that cannot be', () => {
    const writer = new ByteWriter(64);
    containerInfoWrite(writer, infoOf(rowSchema));
    const good = writer.finish().slice();
    const typeAt = 1 + rowSchema.name.length; // after the name's size byte and bytes
    const badType = good.slice();
    badType[typeAt] = 7;
    assert.throws(() => decodeBody(badType, containerInfoRead, 'info'), protocolError);
    const batch = bodyOf((w) => { w.varuint(1_000_000); w.u32(3); w.bytes(new Uint8Array(3)); });
    assert.throws(() => decodeBody(batch, (r) => RowBatch.read(r), 'rows'), protocolError);
    const zeroStatement = bodyOf((w) => { w.varuint(0); w.varuint(0); w.u32(0); w.string('x'); });
    assert.throws(() => decodeBody(zeroStatement, CONTAINER_DROP.readRequest, 'drop'),
      protocolError);
    const badBool = bodyOf((w) => w.u8(2));
    assert.throws(() => decodeBody(badBool, CONTAINER_DROP.readReply, 'drop reply'), protocolError);
  });

  it('random row bytes decode, with any schema, to rows or PROTOCOL_ERROR', () => {
    fc.assert(fc.property(schemaArbitrary, fc.uint8Array({ maxLength: 80 }), fc.nat(5),
      (schema, bytes, count) => {
        const body = bodyOf((w) => { w.varuint(count); w.u32(bytes.length); w.bytes(bytes); });
        try {
          decodeBody(body, (r) => RowBatch.read(r), 'rows').decode(schema);
        } catch (error) {
          assert.ok(protocolError(error), String(error));
        }
      }), { numRuns: 1000 });
  });

  it('rows that do not fit the schema fail at decode with PROTOCOL_ERROR', () => {
    const other = validateContainerDefinition({ name: 'o', type: 'COLLECTION',
      columns: [{ name: 'x', type: 'BOOL' }] }, limits);
    const batch = RowBatch.of(rowSchema, [['abc', 1n]]);
    const read = decodeBody(bodyOf((w) => batch.write(w)), (r) => RowBatch.read(r), 'rows');
    assert.throws(() => read.decode(other), protocolError);
    assert.deepStrictEqual(read.decode(rowSchema), [['abc', 1n]]);
  });
});
