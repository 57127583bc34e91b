// The container statements' body decoders (GET_CONTAINER_PROPERTIES, PUT_CONTAINER,
// DROP_CONTAINER and the binary container key) and the session statements' (CREATE_SESSION,
// CLOSE_SESSION, COMMIT_TRANSACTION, ABORT_TRANSACTION, CLOSE_MULTIPLE_SESSIONS) and the query
// statements' (QUERY_TQL, FETCH_ROW_SET, CLOSE_ROW_SET, UPDATE_ROW_BY_ID, DELETE_ROW_BY_ID,
// EXECUTE_MULTIPLE_QUERIES, CREATE_MULTIPLE_SESSIONS, PUT/GET_MULTIPLE_CONTAINER_ROWS) and the
// time-series statements (131, 132, 133, 135, 136), CREATE/DROP_INDEX_DETAIL, a partial
// execution's continuation, composite key predicates and the users and databases statements
// (156, 158-161) against random and mutated bodies: a
// decoder either reads a body or refuses it with GridDB's error (GriddbFrameError, GriddbError),
// never anything else; and on a node, a logged-in connection sent such statements (row statements
// in a session's transaction too) gets an error reply or is closed, the node reports no bug, and a
// well-formed statement still works afterwards.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  griddbAccessSql, griddbAccessStatementDecode,
} from '../../../../lib/server/griddb/griddb-access-statements.ts';
import { ByteReader } from '../../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import {
  griddbContainerKeyRead, griddbContainerKeyWrite,
} from '../../../../lib/server/griddb/griddb-container-key.ts';
import { containerPropertiesDecode } from '../../../../lib/server/griddb/griddb-container-properties.ts';
import { multiGetDecode } from '../../../../lib/server/griddb/griddb-multi-get.ts';
import {
  containerDropDecode, containerPutDecode,
} from '../../../../lib/server/griddb/griddb-container-put.ts';
import { GriddbError } from '../../../../lib/server/griddb/griddb-error.ts';
import {
  GRIDDB_PART_BYTES_TARGET, queryTqlDecode,
} from '../../../../lib/server/griddb/griddb-query.ts';
import { griddbRowsRead, griddbRowsWrite } from '../../../../lib/server/griddb/griddb-rows.ts';
import {
  closeMultipleSessionsDecode, sessionStatementDecode,
} from '../../../../lib/server/griddb/griddb-sessions.ts';
import type { ColumnSchema } from '../../../../lib/schema/container-schema.ts';
import { GriddbFrameError, griddbDecode } from '../../../../lib/server/griddb/griddb-frame.ts';
import { tqlQueryHandler } from '../../../../lib/server/tql-query-handler.ts';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_LOGIN, griddbExchange,
} from './recorded-handshake.ts';

const PARTITION_NUM = 128;
const RUNS = 300;
const NODE_RUNS = 60;
const GET_CONTAINER_PROPERTIES = 140;
const PUT_CONTAINER = 107;
const DROP_CONTAINER = 144;
const PUT_ROW = 124;
const CREATE_SESSION = 111;
const CLOSE_SESSION = 112;
const COMMIT_TRANSACTION = 118;
const ABORT_TRANSACTION = 119;
const CLOSE_MULTIPLE_SESSIONS = 146;
const QUERY_TQL = 121;
const UPDATE_ROW_BY_ID = 126;
const DELETE_ROW_BY_ID = 128;
const CREATE_MULTIPLE_SESSIONS = 145;
const EXECUTE_MULTIPLE_QUERIES = 147;
const GET_MULTIPLE_CONTAINER_ROWS = 148;
const PUT_MULTIPLE_CONTAINER_ROWS = 149;
const CLOSE_ROW_SET = 150;
const FETCH_ROW_SET = 151;
const INT64_MAX = 2n ** 63n - 1n;
/** The columns of putBody's collection. */
const QUERY_COLUMNS: ColumnSchema[] = [
  { name: 'id', type: 'INTEGER', array: false, notNull: true },
  { name: 's', type: 'STRING', array: false, notNull: false },
  { name: 'la', type: 'LONG', array: true, notNull: false },
];
const SESSION_STATEMENTS = [CREATE_SESSION, CLOSE_SESSION, COMMIT_TRANSACTION, ABORT_TRANSACTION];

/** Columns of every type GridDB's client encodes in rows. */
const ROW_COLUMNS: ColumnSchema[] = [
  { name: 'id', type: 'INTEGER', array: false, notNull: true },
  { name: 's', type: 'STRING', array: false, notNull: false },
  { name: 'b', type: 'BOOL', array: false, notNull: false },
  { name: 'by', type: 'BYTE', array: false, notNull: false },
  { name: 'sh', type: 'SHORT', array: false, notNull: false },
  { name: 'l', type: 'LONG', array: false, notNull: false },
  { name: 'f', type: 'FLOAT', array: false, notNull: false },
  { name: 'd', type: 'DOUBLE', array: false, notNull: false },
  { name: 't', type: 'TIMESTAMP', array: false, notNull: false },
  { name: 'tu', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'MICROSECOND' },
  { name: 'tn', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'NANOSECOND' },
  { name: 'bl', type: 'BLOB', array: false, notNull: false },
  { name: 'la', type: 'LONG', array: true, notNull: false },
  { name: 'sa', type: 'STRING', array: true, notNull: false },
];
const ROW: unknown[] = [7, 'x\u00e9', true, -1, 2, -(2n ** 63n), 1.5, -0, 1700000000123, 1700000000123456n,
  1700000000123456789n, Uint8Array.from([1, 2]), [1n, -1n], ['', 'ab']];

function rowsBytes(rows: unknown[][]): Buffer {
  const writer = new ByteWriter(256);
  griddbRowsWrite(writer, ROW_COLUMNS, rows as never);
  return Buffer.from(writer.finish());
}

const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}(@[A-Za-z0-9]{1,8})?$/);

function keyBytes(containerName: string): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, containerName);
  return Buffer.from(writer.finish());
}

function str(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const size = Buffer.alloc(4);
  size.writeInt32LE(bytes.byteLength);
  return Buffer.concat([size, bytes]);
}

const EMPTY_OPTIONS = Buffer.alloc(4);

function propertiesBody(containerName: string): Buffer {
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName),
    Buffer.from([7, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6])]);
}

/** A collection: id INTEGER key, s STRING, la LONG[] (as the C client lays it out). */
function putBody(containerName: string): Buffer {
  const count = Buffer.alloc(4);
  count.writeInt32LE(3);
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName), Buffer.from([0, 0]), count,
    str('id'), Buffer.from([4, 4]), str('s'), Buffer.from([0, 0]), str('la'), Buffer.from([5, 1]),
    Buffer.from([1, 0, 0, 0]), str('')]);
}

function dropBody(containerName: string): Buffer {
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName), Buffer.from([0xff])]);
}

/** A whole request frame of `type` (client head, statement id 1). */
function frame(type: number, partitionId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(36);
  head.writeInt32LE(0x03e02478, 0);
  head.writeInt32LE(-1, 12);
  head.writeInt32LE(16 + body.byteLength, 16);
  head.writeInt32LE(type, 20);
  head.writeInt32LE(partitionId, 24);
  head.writeBigInt64LE(1n, 28);
  return Buffer.concat([head, body]);
}

const mutation = fc.record({
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
  cutAt: fc.option(fc.nat(), { nil: undefined }),
}, { noNullPrototype: true });

function mutate(body: Buffer, { flips, cutAt }: { flips: Array<[number, number]>;
  cutAt: number | undefined }): Buffer {
  const copy = Buffer.from(body);
  for (const [at, value] of flips) copy[at % copy.byteLength] = value;
  return cutAt === undefined ? copy : copy.subarray(0, cutAt % (copy.byteLength + 1));
}

/**
 * A session statement's body: container id, session id, UUID (zeros, as PUT_ROW's head below),
 * empty optional request.
 */
function sessionBody(containerId: bigint, sessionId: bigint): Buffer {
  const body = Buffer.alloc(8 + 8 + 16 + 4);
  body.writeBigInt64LE(containerId, 0);
  body.writeBigInt64LE(sessionId, 8);
  return body;
}

/** CLOSE_MULTIPLE_SESSIONS of sessions 3 and 4: UUID (zeros), options, count, entries. */
function closeMultipleBody(containerId: bigint): Buffer {
  const body = Buffer.alloc(16 + 4 + 4 + 2 * 24);
  body.writeInt32LE(2, 20);
  for (const [i, sessionId] of [3n, 4n].entries()) {
    body.writeBigInt64LE(1n, 24 + i * 24);
    body.writeBigInt64LE(containerId, 32 + i * 24);
    body.writeBigInt64LE(sessionId, 40 + i * 24);
  }
  return body;
}

/** QUERY_TQL's part after the row statement head: fetch limit and size, partial execution, TQL. */
function queryPart(tql: string, fetchSize = INT64_MAX, fetchLimit = INT64_MAX): Buffer {
  const fixed = Buffer.alloc(8 + 8 + 1 + 4);
  fixed.writeBigInt64LE(fetchLimit, 0);
  fixed.writeBigInt64LE(fetchSize, 8);
  return Buffer.concat([fixed, str(tql)]);
}

/** A QUERY_TQL part continuing a partial execution (griddb-partial-executions.ts). */
function continuationPart(tql: string, executionId: bigint, partIndex: bigint): Buffer {
  const fixed = Buffer.alloc(8 + 8 + 1 + 4 + 1 + 4);
  fixed.writeBigInt64LE(INT64_MAX, 0);
  fixed.writeBigInt64LE(INT64_MAX, 8);
  fixed.writeInt8(1, 16);
  fixed.writeInt32LE(1, 17);
  fixed.writeInt8(0, 21);
  fixed.writeInt32LE(16, 22);
  return Buffer.concat([fixed, i64s(executionId, partIndex), str(tql)]);
}

function i64s(...values: bigint[]): Buffer {
  const bytes = Buffer.alloc(8 * values.length);
  values.forEach((value, i) => bytes.writeBigInt64LE(value, 8 * i));
  return bytes;
}

const DECODERS = [containerPropertiesDecode, containerPutDecode, containerDropDecode];
const BODIES = [propertiesBody, putBody, dropBody];

function decodesOrRefuses(decode: (body: Uint8Array) => unknown, body: Uint8Array): void {
  try {
    decode(body);
  } catch (error) {
    assert.ok(error instanceof GriddbFrameError || error instanceof GriddbError,
      `${decode.name} threw ${String(error)}`);
  }
}

describe('GridDB protocol: container statement decoders', () => {
  it('reads back every container key it writes, case and affinity included', () => {
    fc.assert(fc.property(name, (containerName) => {
      const reader = new ByteReader(keyBytes(containerName));
      assert.equal(griddbContainerKeyRead(reader), containerName);
      assert.equal(reader.remainingBytes, 0);
    }), { numRuns: RUNS });
  });

  it('decodes the well-formed bodies', () => {
    assert.deepEqual(containerPropertiesDecode(propertiesBody('Col01')),
      { name: 'Col01', kinds: [0, 1, 2, 3, 4, 5, 6] });
    assert.deepEqual(containerPutDecode(putBody('Col01')), {
      modifiable: false,
      definition: { name: 'Col01', type: 'COLLECTION', rowKey: 1, columns: [
        { name: 'id', type: 'INTEGER', array: false, notNull: true },
        { name: 's', type: 'STRING', array: false, notNull: false },
        { name: 'la', type: 'LONG', array: true, notNull: false },
      ] },
    });
    assert.deepEqual(containerDropDecode(dropBody('x@rack2')), { name: 'x@rack2', type: undefined });
  });

  it('reads back the rows it writes, NULLs included', () => {
    const rows = [ROW, ROW.map((_value, i) => (i === 0 ? 8 : null))];
    assert.deepEqual(griddbRowsRead(rowsBytes(rows), ROW_COLUMNS, 2), rows);
  });

  it('reads or refuses random and mutated rows, with GridDB errors only', () => {
    // As the row statements call it: inside griddbDecode, which turns a read past the end into
    // GridDB's frame error.
    const read = (bytes: Uint8Array) => griddbDecode(() => griddbRowsRead(bytes, ROW_COLUMNS, 2));
    fc.assert(fc.property(mutation, (change) => decodesOrRefuses(read,
      mutate(rowsBytes([ROW, ROW]), change))), { numRuns: RUNS });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }),
      (bytes) => decodesOrRefuses(read, bytes)), { numRuns: RUNS });
  });

  it('reads or refuses random and mutated session statements, with GridDB errors only', () => {
    assert.equal(sessionStatementDecode(3n, sessionBody(5n, 9n)).session.sessionId, 9n);
    const decode = (body: Uint8Array) => sessionStatementDecode(1n, body);
    fc.assert(fc.property(mutation, (change) =>
      decodesOrRefuses(decode, mutate(sessionBody(5n, 9n), change))), { numRuns: RUNS });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 60 }),
      (bytes) => decodesOrRefuses(decode, bytes)), { numRuns: RUNS });
    assert.equal(closeMultipleSessionsDecode(closeMultipleBody(5n)).length, 2);
    fc.assert(fc.property(mutation, (change) => decodesOrRefuses(closeMultipleSessionsDecode,
      mutate(closeMultipleBody(5n), change))), { numRuns: RUNS });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }),
      (bytes) => decodesOrRefuses(closeMultipleSessionsDecode, bytes)), { numRuns: RUNS });
  });

  it('reads or refuses random and mutated QUERY_TQL parts, with GridDB errors only', () => {
    assert.deepEqual(queryTqlDecode(queryPart('SELECT *', 3n, 10n)),
      { fetchLimit: 10n, fetchSize: 3n, partialExecution: false, continuation: undefined,
        tql: 'SELECT *' });
    assert.deepEqual(queryTqlDecode(continuationPart('SELECT *', 7n, 2n)).continuation,
      { executionId: 7n, partIndex: 2n });
    fc.assert(fc.property(mutation, (change) => decodesOrRefuses(queryTqlDecode,
      mutate(continuationPart('SELECT *', 7n, 2n), change))), { numRuns: RUNS });
    fc.assert(fc.property(mutation, (change) => decodesOrRefuses(queryTqlDecode,
      mutate(queryPart('SELECT * WHERE id > 1'), change))), { numRuns: RUNS });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }),
      (bytes) => decodesOrRefuses(queryTqlDecode, bytes)), { numRuns: RUNS });
  });

  it('reads or refuses random and mutated composite key predicates of GET_MULTIPLE_CONTAINER_ROWS', () => {
    // One DISTINCT predicate on a key (INTEGER, STRING) with the keys (1, "a") and (2, "b"), for
    // the container "MC".
    const keyColumns: ColumnSchema[] = [
      { name: 'a', type: 'INTEGER', array: false, notNull: true },
      { name: 'b', type: 'STRING', array: false, notNull: true },
    ];
    const rows = new ByteWriter(64);
    rows.i32(2);
    griddbRowsWrite(rows, keyColumns, [[1, 'a'], [2, 'b']]);
    const keys = Buffer.from(rows.finish());
    const size = Buffer.alloc(4);
    size.writeInt32LE(keys.byteLength);
    const body = Buffer.concat([Buffer.alloc(16), EMPTY_OPTIONS, Buffer.from([1, 0, 0, 0]),
      Buffer.from([0xff, 1, 2, 0, 0, 0, 4, 0]), size, keys, Buffer.from([1, 0, 0, 0]),
      EMPTY_OPTIONS, keyBytes('MC'), Buffer.alloc(4)]);
    assert.deepEqual(multiGetDecode(body).predicates,
      [{ kind: 'distinct', keys: [[1, 'a'], [2, 'b']], composite: 2 }]);
    fc.assert(fc.property(mutation, (change) => decodesOrRefuses(multiGetDecode,
      mutate(body, change))), { numRuns: RUNS });
  });

  it('reads or refuses random and mutated users and databases statements, with GridDB errors only', () => {
    const grant = Buffer.concat([EMPTY_OPTIONS, str('db1'), Buffer.from([0]),
      Buffer.from([1, 0, 0, 0]), str('u1'), str('READ')]);
    assert.equal(griddbAccessSql(griddbAccessStatementDecode(160, grant)),
      'GRANT SELECT ON db1 TO u1');
    for (const type of [156, 158, 159, 160, 161]) {
      const decode = (body: Uint8Array) => griddbAccessSql(griddbAccessStatementDecode(type, body));
      fc.assert(fc.property(mutation, (change) => decodesOrRefuses(decode, mutate(grant, change))),
        { numRuns: RUNS });
      fc.assert(fc.property(fc.uint8Array({ maxLength: 60 }),
        (bytes) => decodesOrRefuses(decode, bytes)), { numRuns: RUNS });
    }
  });

  it('reads or refuses random and mutated bodies, with GridDB errors only', () => {
    fc.assert(fc.property(fc.nat({ max: 2 }), name, mutation, (which, containerName, change) => {
      decodesOrRefuses(DECODERS[which]!, mutate(BODIES[which]!(containerName), change));
    }), { numRuns: RUNS });
    fc.assert(fc.property(fc.nat({ max: 2 }), fc.uint8Array({ maxLength: 120 }),
      (which, bytes) => decodesOrRefuses(DECODERS[which]!, bytes)), { numRuns: RUNS });
  });
});

describe('GridDB protocol: container statements fuzzed on a node', { timeout: 240_000 }, () => {
  let test: TestServer;
  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user), handshakeTimeoutMs: 2_000,
      queryHandler: tqlQueryHandler },
    { partitionNum: PARTITION_NUM });
  });
  after(async () => test.stop());

  it('answers or closes every malformed statement, and keeps serving', async () => {
    const types = [GET_CONTAINER_PROPERTIES, PUT_CONTAINER, DROP_CONTAINER];
    await fc.assert(fc.asyncProperty(fc.nat({ max: 2 }), name, mutation,
      async (which, containerName, change) => {
        const body = mutate(BODIES[which]!(containerName), change);
        const pId = containerPartitionId(containerName, PARTITION_NUM);
        const { replies, closedByNode } = await griddbExchange(test.port,
          [RECORDED_CONNECT, RECORDED_LOGIN, frame(types[which]!, pId, body)]);
        assert.ok(replies.length === 3 || closedByNode);
        assert.deepEqual(test.internalErrors, []);
      }), { numRuns: NODE_RUNS });
    const pId = containerPartitionId('Col01', PARTITION_NUM);
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, putBody('Col01')),
      frame(GET_CONTAINER_PROPERTIES, pId, propertiesBody('Col01')),
      frame(DROP_CONTAINER, pId, dropBody('Col01'))]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0, 0, 0]);
    assert.equal(replies[3]!.payload[0], 1); // exists
  });

  it('answers or closes every malformed PUT_ROW, and keeps serving', async () => {
    const count = Buffer.alloc(4);
    count.writeInt32LE(ROW_COLUMNS.length);
    const columns = ROW_COLUMNS.map((column) => Buffer.concat([str(column.name), Buffer.from([
      column.timePrecision === 'MICROSECOND' ? 11 : column.timePrecision === 'NANOSECOND' ? 12
        : { INTEGER: 4, STRING: 0, BOOL: 1, BYTE: 2, SHORT: 3, LONG: 5, FLOAT: 6, DOUBLE: 7,
          TIMESTAMP: 8, BLOB: 10 }[column.type as 'INTEGER'],
      (column.array ? 1 : 0) | (column.notNull ? 4 : 0)])]));
    const put = Buffer.concat([EMPTY_OPTIONS, keyBytes('Rows01'), Buffer.from([0, 0]), count,
      ...columns, Buffer.from([1, 0, 0, 0]), str('')]);
    const pId = containerPartitionId('Rows01', PARTITION_NUM);
    const created = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, put)]);
    assert.equal(created.replies[2]!.result, 0);
    const schemaVersion = created.replies[2]!.payload.readInt32LE(0);
    const containerId = created.replies[2]!.payload.readBigInt64LE(4);
    const head = Buffer.alloc(8 + 8 + 16 + 4 + 2);
    head.writeBigInt64LE(containerId, 0);
    head.writeInt32LE(schemaVersion, 32);
    head[36] = 2; // session mode AUTO
    const putRow = (row: Buffer) => frame(PUT_ROW, pId, Buffer.concat([head, EMPTY_OPTIONS, row]));
    await fc.assert(fc.asyncProperty(mutation, async (change) => {
      const { replies, closedByNode } = await griddbExchange(test.port,
        [RECORDED_CONNECT, RECORDED_LOGIN, putRow(mutate(rowsBytes([ROW]), change))]);
      assert.ok(replies.length === 3 || closedByNode, JSON.stringify(replies.map((reply) =>
        [reply.result, Buffer.from(reply.payload).toString('latin1')])));
      assert.deepEqual(test.internalErrors, []);
    }), { numRuns: NODE_RUNS });
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      putRow(rowsBytes([ROW]))]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0]);

    // Session statements and transactional PUT_ROWs (BEGIN, CONTINUE), mutated head and all.
    const inSession = (mode: number) => {
      const session = Buffer.from(head);
      session.writeBigInt64LE(3n, 8);
      session[37] = mode;
      return Buffer.concat([session, EMPTY_OPTIONS, rowsBytes([ROW])]);
    };
    const bodies = [sessionBody(containerId, 3n), inSession(1), inSession(2),
      closeMultipleBody(containerId)];
    await fc.assert(fc.asyncProperty(fc.nat({ max: 3 }), fc.nat({ max: 3 }), mutation,
      async (which, statement, change) => {
        const type = which === 0 ? SESSION_STATEMENTS[statement]!
          : which === 3 ? CLOSE_MULTIPLE_SESSIONS : PUT_ROW;
        const { replies, closedByNode } = await griddbExchange(test.port, [RECORDED_CONNECT,
          RECORDED_LOGIN, frame(PUT_ROW, pId, inSession(1)),
          frame(type, pId, mutate(bodies[which]!, change))]);
        assert.ok(replies.length === 4 || closedByNode);
        assert.deepEqual(test.internalErrors, []);
      }), { numRuns: NODE_RUNS });
    const session = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(CREATE_SESSION, pId, sessionBody(containerId, 3n)), frame(PUT_ROW, pId, inSession(1)),
      frame(PUT_ROW, pId, inSession(2)),
      frame(COMMIT_TRANSACTION, pId, sessionBody(containerId, 3n)),
      frame(ABORT_TRANSACTION, pId, sessionBody(containerId, 3n)),
      frame(CLOSE_SESSION, pId, sessionBody(containerId, 3n)),
      frame(CLOSE_MULTIPLE_SESSIONS, pId, closeMultipleBody(containerId))]);
    assert.deepEqual(session.replies.map((reply) => reply.result), [0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('answers or closes every malformed query statement, and keeps serving', async () => {
    const pId = containerPartitionId('Query01', PARTITION_NUM);
    const created = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, putBody('Query01'))]);
    assert.equal(created.replies[2]!.result, 0);
    const schemaVersion = created.replies[2]!.payload.readInt32LE(0);
    const containerId = created.replies[2]!.payload.readBigInt64LE(4);
    const head = Buffer.alloc(8 + 8 + 16 + 4 + 2);
    head.writeBigInt64LE(containerId, 0);
    head.writeInt32LE(schemaVersion, 32);
    head[36] = 2; // session mode AUTO
    const statement = (type: number, part: Buffer) =>
      frame(type, pId, Buffer.concat([head, EMPTY_OPTIONS, part]));
    const rowBytes = (id: number, s: string) => {
      const writer = new ByteWriter(64);
      griddbRowsWrite(writer, QUERY_COLUMNS, [[id, s, [1n]]]);
      return Buffer.from(writer.finish());
    };
    const puts = [1, 2, 3].map((id) => statement(PUT_ROW, rowBytes(id, `r${id}`)));
    const put = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN, ...puts]);
    assert.deepEqual(put.replies.map((reply) => reply.result), [0, 0, 0, 0, 0]);

    // The well-formed exchange: a partial fetch of 1 row of 3 (row set 1, row ids 1..3), the
    // next row, the row set closed early, a fetch of it refused; a row updated by its id.
    const close = frame(CLOSE_ROW_SET, pId, Buffer.concat([i64s(containerId), EMPTY_OPTIONS,
      i64s(1n)]));
    const wellFormed = [statement(QUERY_TQL, queryPart('SELECT * ORDER BY id', 1n)),
      statement(FETCH_ROW_SET, i64s(1n, 1n, 1n)), close,
      statement(FETCH_ROW_SET, i64s(1n, 2n, 1n)),
      statement(UPDATE_ROW_BY_ID, Buffer.concat([i64s(2n), rowBytes(2, 'updated')])),
      statement(DELETE_ROW_BY_ID, i64s(1n)),
      statement(QUERY_TQL, queryPart('SELECT * ORDER BY id'))];
    // EXECUTE_MULTIPLE_QUERIES: the session UUID once, then (type, statement id, head without
    // UUID, query) per query; CREATE_MULTIPLE_SESSIONS: (container id, session id) per session.
    const noUuidHead = Buffer.concat([head.subarray(0, 16), head.subarray(32), EMPTY_OPTIONS]);
    const count = (n: number) => {
      const bytes = Buffer.alloc(4);
      bytes.writeInt32LE(n);
      return bytes;
    };
    const multiQuery = (type: number, tql: string, fetchSize?: bigint) =>
      Buffer.concat([count(type), i64s(0n), noUuidHead, queryPart(tql, fetchSize)]);
    const multi = frame(EXECUTE_MULTIPLE_QUERIES, pId, Buffer.concat([Buffer.alloc(16),
      EMPTY_OPTIONS, count(2), multiQuery(QUERY_TQL, 'SELECT COUNT(*)'),
      multiQuery(QUERY_TQL, 'SELECT * ORDER BY id', 1n)]));
    const sessions = frame(CREATE_MULTIPLE_SESSIONS, pId, Buffer.concat([Buffer.alloc(16),
      EMPTY_OPTIONS, Buffer.from([1]), count(1), i64s(containerId, 7n)]));
    // gsPutMultipleContainerRows: CREATE_MULTIPLE_SESSIONS by name (answers the container id),
    // then PUT_MULTIPLE_CONTAINER_ROWS with the schema (as PUT_CONTAINER's) and row 4.
    const sessionsByName = frame(CREATE_MULTIPLE_SESSIONS, pId, Buffer.concat([Buffer.alloc(16),
      EMPTY_OPTIONS, Buffer.from([0]), count(1), EMPTY_OPTIONS, keyBytes('Query01'), i64s(8n)]));
    const schema = Buffer.concat([count(3), str('id'), Buffer.from([4, 4]), str('s'),
      Buffer.from([0, 0]), str('la'), Buffer.from([5, 1]), Buffer.from([1, 0, 0, 0])]);
    const list = Buffer.concat([i64s(1n), rowBytes(4, 'multi')]);
    const multiPut = frame(PUT_MULTIPLE_CONTAINER_ROWS, pId, Buffer.concat([Buffer.alloc(16),
      EMPTY_OPTIONS, count(1), Buffer.from([0]), schema, count(1), i64s(1n, containerId, 8n),
      Buffer.from([1, 0]), EMPTY_OPTIONS, count(0), count(list.byteLength), list]));
    wellFormed.push(multi, sessions, frame(EXECUTE_MULTIPLE_QUERIES, pId, Buffer.concat([
      Buffer.alloc(16), EMPTY_OPTIONS, count(1), multiQuery(122, 'SELECT *')])), sessionsByName,
    multiPut, statement(QUERY_TQL, queryPart('SELECT COUNT(*)')));
    // GET_MULTIPLE_CONTAINER_ROWS: a DISTINCT predicate of INTEGER keys 3 and 4, a RANGE one
    // from 3 on (no finish), both on Query01.
    const multiGet = frame(GET_MULTIPLE_CONTAINER_ROWS, pId, Buffer.concat([Buffer.alloc(16),
      EMPTY_OPTIONS, count(2), Buffer.from([4, 1]), count(2), count(3), count(4),
      Buffer.from([4, 0, 1]), count(3), Buffer.from([0]), count(2),
      EMPTY_OPTIONS, keyBytes('Query01'), count(0), EMPTY_OPTIONS, keyBytes('Query01'),
      count(1)]));
    wellFormed.push(multiGet);
    const { replies } = await griddbExchange(test.port,
      [RECORDED_CONNECT, RECORDED_LOGIN, ...wellFormed]);
    assert.deepEqual(replies.map((reply) => reply.result),
      [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
    const got = Buffer.from(replies[15]!.payload);
    assert.equal(got.readInt32LE(0), 2);
    assert.ok(got.includes(Buffer.from('multi')) && got.includes(Buffer.from('r3')));
    assert.deepEqual([replies[12]!.payload.readInt32LE(0), replies[12]!.payload.readBigInt64LE(4)],
      [1, containerId]);
    const counted = replies[14]!.payload;
    assert.equal(counted.readBigInt64LE(counted.byteLength - 8), 3n); // rows 2, 3 and 4
    const multiReply = replies[9]!.payload;
    assert.equal(multiReply.readInt32LE(0), 2);
    const countSize = Number(multiReply.readBigInt64LE(4));
    assert.deepEqual([multiReply.readInt32LE(12), multiReply[16]], [1, 1]); // one AGGREGATION
    assert.equal(multiReply.readBigInt64LE(12 + countSize - 8), 2n); // COUNT(*): rows 2 and 3
    const rowsReply = multiReply.subarray(12 + countSize + 8);
    assert.deepEqual([rowsReply.readInt32LE(0), rowsReply[4], rowsReply.readBigInt64LE(9)],
      [2, 3, 2n]); // a partial fetch of the 2 rows
    assert.equal(replies[10]!.payload.readInt32LE(0), 1);
    const first = replies[2]!.payload;
    assert.equal(first.readInt32LE(0), 2); // entries: partial fetch state, row set
    assert.equal(first[4], 3);
    assert.deepEqual([first.readBigInt64LE(9), first.readBigInt64LE(17)], [3n, 1n]);
    const fetched = replies[3]!.payload;
    assert.deepEqual([fetched[0], fetched.readBigInt64LE(9), fetched.readBigInt64LE(17)],
      [0, 1n, 2n]); // not closed, one row, row id 2
    const last = replies[8]!.payload;
    assert.equal(last.readInt32LE(0), 1);
    assert.equal(last.readBigInt64LE(9), 2n); // rows 2 and 3 remain
    assert.ok(Buffer.from(last).includes(Buffer.from('updated')));

    const bodies = wellFormed.map((request) => request.subarray(36));
    const types = [QUERY_TQL, FETCH_ROW_SET, CLOSE_ROW_SET, FETCH_ROW_SET, UPDATE_ROW_BY_ID,
      DELETE_ROW_BY_ID, QUERY_TQL, EXECUTE_MULTIPLE_QUERIES, CREATE_MULTIPLE_SESSIONS,
      EXECUTE_MULTIPLE_QUERIES, CREATE_MULTIPLE_SESSIONS, PUT_MULTIPLE_CONTAINER_ROWS, QUERY_TQL,
      GET_MULTIPLE_CONTAINER_ROWS];
    await fc.assert(fc.asyncProperty(fc.nat({ max: types.length - 1 }), mutation,
      async (which, change) => {
        const sent = [RECORDED_CONNECT, RECORDED_LOGIN, wellFormed[0]!,
          frame(types[which]!, pId, mutate(bodies[which]!, change))];
        const exchange = await griddbExchange(test.port, sent);
        assert.ok(exchange.replies.length === 4 || exchange.closedByNode);
        assert.deepEqual(test.internalErrors, []);
      }), { numRuns: NODE_RUNS });
    const again = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      statement(QUERY_TQL, queryPart('SELECT COUNT(*)'))]);
    assert.equal(again.replies[2]!.result, 0);
  });

  it('sends a result over GRIDDB_PART_BYTES_TARGET in parts, fetch size or not', async () => {
    const pId = containerPartitionId('Query02', PARTITION_NUM);
    const created = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, putBody('Query02'))]);
    const containerId = created.replies[2]!.payload.readBigInt64LE(4);
    const head = Buffer.alloc(8 + 8 + 16 + 4 + 2);
    head.writeBigInt64LE(containerId, 0);
    head.writeInt32LE(created.replies[2]!.payload.readInt32LE(0), 32);
    head[36] = 2; // session mode AUTO
    const statement = (type: number, part: Buffer) =>
      frame(type, pId, Buffer.concat([head, EMPTY_OPTIONS, part]));
    const text = 'x'.repeat(20_000);
    const rowCount = Math.ceil(1.25 * GRIDDB_PART_BYTES_TARGET / text.length);
    const puts = Array.from({ length: rowCount }, (_row, id) => {
      const writer = new ByteWriter(text.length + 64);
      griddbRowsWrite(writer, QUERY_COLUMNS, [[id, text, []]]);
      return statement(PUT_ROW, Buffer.from(writer.finish()));
    });
    const put = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN, ...puts]);
    assert.ok(put.replies.every((reply) => reply.result === 0));
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      statement(QUERY_TQL, queryPart('SELECT *')),
      statement(FETCH_ROW_SET, i64s(1n, 1n, INT64_MAX))]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0, 0]);
    const first = replies[2]!.payload;
    assert.equal(first.readInt32LE(0), 2);
    assert.equal(first[4], 3); // partial fetch state: total, row set 1
    assert.deepEqual([first.readBigInt64LE(9), first.readBigInt64LE(17)], [BigInt(rowCount), 1n]);
    const firstCount = Number(first.readBigInt64LE(30));
    assert.ok(firstCount > 1 && firstCount < rowCount, String(firstCount));
    assert.ok(first.byteLength < 1.1 * GRIDDB_PART_BYTES_TARGET);
    // The fetch asked all rows from 1: it gets a part, not closed, unless the part is the rest.
    const fetched = replies[3]!.payload;
    const fetchedCount = Number(fetched.readBigInt64LE(9));
    assert.ok(fetchedCount < rowCount - 1);
    assert.equal(fetched[0], 0);
    assert.ok(fetched.byteLength < 1.1 * GRIDDB_PART_BYTES_TARGET);
  });

  it('answers or closes malformed time-series and index statements, keeps serving', async () => {
    const pId = containerPartitionId('TsFuzz', PARTITION_NUM);
    const four = (n: number) => {
      const bytes = Buffer.alloc(4);
      bytes.writeInt32LE(n);
      return bytes;
    };
    const created = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, Buffer.concat([EMPTY_OPTIONS, keyBytes('TsFuzz'),
        Buffer.from([1, 0]), four(2), str('ts'), Buffer.from([8, 4]), str('v'),
        Buffer.from([7, 0]), Buffer.from([1, 0, 0, 0]), str(''), Buffer.from([0])]))]);
    assert.equal(created.replies[2]!.result, 0);
    const containerId = created.replies[2]!.payload.readBigInt64LE(4);
    const head = Buffer.alloc(8 + 8 + 16 + 4 + 2);
    head.writeBigInt64LE(containerId, 0);
    head.writeInt32LE(created.replies[2]!.payload.readInt32LE(0), 32);
    head[36] = 2; // session mode AUTO
    const statement = (type: number, part: Buffer) =>
      frame(type, pId, Buffer.concat([head, EMPTY_OPTIONS, part]));
    const columns: ColumnSchema[] = [
      { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
      { name: 'v', type: 'DOUBLE', array: false, notNull: false }];
    const puts = [1, 2, 3].map((i) => {
      const writer = new ByteWriter(64);
      griddbRowsWrite(writer, columns, [[i * 1000, i * 1.5]]);
      return statement(PUT_ROW, Buffer.from(writer.finish()));
    });
    const fixed = Buffer.concat([i64s(INT64_MAX, INT64_MAX), Buffer.alloc(5)]);
    const wellFormed = [
      statement(131, Buffer.concat([i64s(1500n), Buffer.from([2])])), // NEXT: row at 2 s
      statement(132, Buffer.concat([i64s(1500n), four(1)])), // v half-way: 2.25
      statement(133, Buffer.concat([i64s(0n, 5000n), four(1), Buffer.from([2])])), // SUM 9
      statement(135, Buffer.concat([fixed, i64s(2000n, INT64_MAX), Buffer.from([1])])),
      statement(136, Buffer.concat([fixed, i64s(1000n, 3000n), four(1), four(1), four(500),
        Buffer.from([6, 0])]))];
    const { replies } = await griddbExchange(test.port,
      [RECORDED_CONNECT, RECORDED_LOGIN, ...puts, ...wellFormed]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const [related, interpolated, sum, range, sampled] = replies.slice(5).map((r) => r.payload);
    assert.deepEqual([related![0], related!.readBigInt64LE(2)], [1, 2000n]);
    assert.deepEqual([interpolated![0], interpolated!.readDoubleLE(10)], [1, 2.25]);
    assert.deepEqual([sum![0], sum![1], sum!.readDoubleLE(2)], [1, 7, 9]);
    assert.equal(range!.readBigInt64LE(9), 2n); // rows 3 s and 2 s
    assert.equal(sampled!.readBigInt64LE(9), 5n); // 1, 1.5, 2, 2.5, 3 s
    // CREATE_INDEX_DETAIL / DROP_INDEX_DETAIL: container id, schema version, options, the index
    // info (name, columns, type), and for a drop anyName, anyType.
    const schemaVersion = head.subarray(32, 36);
    const indexInfo = Buffer.concat([str('ixv'), four(1), four(1), Buffer.from([0])]);
    const index = (type: number, tail: Buffer) => frame(type, pId, Buffer.concat([
      i64s(containerId), schemaVersion, EMPTY_OPTIONS, four(indexInfo.byteLength), indexInfo,
      tail]));
    const indexes = [index(162, Buffer.alloc(0)), index(162, Buffer.alloc(0)),
      index(163, Buffer.from([0, 1]))];
    const indexed = await griddbExchange(test.port,
      [RECORDED_CONNECT, RECORDED_LOGIN, ...indexes]);
    assert.deepEqual(indexed.replies.map((reply) => reply.result), [0, 0, 0, 0, 0]);
    // GET_PARTITION_CONTAINER_NAMES of TsFuzz's partition: options, start 0, no limit.
    const names = frame(143, pId, Buffer.concat([EMPTY_OPTIONS, i64s(0n, INT64_MAX)]));
    const listed = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN, names]);
    assert.equal(listed.replies[2]!.result, 0);
    assert.ok(Buffer.from(listed.replies[2]!.payload).includes(Buffer.from('tsfuzz')));
    wellFormed.push(...indexes, names);
    await fc.assert(fc.asyncProperty(fc.nat({ max: wellFormed.length - 1 }), mutation,
      async (which, change) => {
        const request = wellFormed[which]!;
        const mutated = frame(request.readInt32LE(20), pId,
          mutate(request.subarray(36), change));
        const exchange = await griddbExchange(test.port,
          [RECORDED_CONNECT, RECORDED_LOGIN, mutated]);
        assert.ok(exchange.replies.length === 3 || exchange.closedByNode);
        assert.deepEqual(test.internalErrors, []);
      }), { numRuns: NODE_RUNS });
  });
});
