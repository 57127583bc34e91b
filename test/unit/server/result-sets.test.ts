import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { FETCH_ROW_COUNT_MAX, PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import {
  FETCH, QUERY, RESULT_SET_ID_NONE, type FetchReply, type QueryReply,
} from '../../../lib/protocol/messages-query.ts';
import { RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import {
  queryResultOfEncodedRows, type QueryResult,
} from '../../../lib/server/query-handler.ts';
import { ResultSets } from '../../../lib/server/result-sets.ts';
import { encodedOf, storeOf } from '../encoding/encoded-rows-helpers.ts';
import { rowsArbitrary, schemaArbitrary } from '../encoding/row-arbitraries.ts';

/**
 * A result that hands out `rows` in the chunk sizes of `chunks` (0: an empty page that is not the
 * end), then as many as asked.
 */
function chunkedResult(schema: ContainerSchema, rows: Row[], chunks: number[]): QueryResult {
  let offset = 0;
  let call = 0;
  return {
    kind: 'ROWS',
    columns: schema.columns,
    next(rowCountMax) {
      const chunk = Math.min(chunks[call++] ?? rowCountMax, rowCountMax);
      const page = rows.slice(offset, offset + chunk);
      offset += page.length;
      return Promise.resolve({ rows: page, done: offset >= rows.length });
    },
    close() {},
  };
}

/**
 * The pages as the node cut and encoded them before: each row encoded on its own into a writer
 * of the page's, until the fetch size or the byte target, and the page's bytes sent as they are.
 */
async function referencePages(
  result: QueryResult,
  fetchSize: number,
  pageBytesTarget: number,
): Promise<FetchReply[]> {
  const rowCountMax = fetchSize === 0
    ? FETCH_ROW_COUNT_MAX : Math.min(fetchSize, FETCH_ROW_COUNT_MAX);
  const codec = rowCodec(resultSchemaOf(result.columns), 'wire');
  let buffered: Row[] = [];
  let bufferedIndex = 0;
  let handlerDone = false;
  const pages: FetchReply[] = [];
  for (;;) {
    const writer = new ByteWriter(8);
    let count = 0;
    while (count < rowCountMax && writer.lengthBytes < pageBytesTarget) {
      if (bufferedIndex >= buffered.length) {
        if (handlerDone) break;
        const next = await result.next(rowCountMax - count);
        buffered = next.rows;
        bufferedIndex = 0;
        handlerDone = next.done;
        if (next.rows.length === 0 && !next.done) break;
        continue;
      }
      codec.writeRows(writer, [buffered[bufferedIndex++]!]);
      count++;
    }
    const done = handlerDone && bufferedIndex >= buffered.length;
    pages.push({ done, rows: RowBatch.encoded(count, writer.finish()) });
    if (done) return pages;
  }
}

function queryFrame(reply: QueryReply): Uint8Array {
  return encodeFrame({ messageType: QUERY.type, status: FrameStatus.REPLY, requestId: 1 },
    (writer) => QUERY.writeReply(writer, reply), PROTOCOL_MESSAGE_BYTES_MAX);
}

function fetchFrame(reply: FetchReply): Uint8Array {
  return encodeFrame({ messageType: FETCH.type, status: FrameStatus.REPLY, requestId: 2 },
    (writer) => FETCH.writeReply(writer, reply), PROTOCOL_MESSAGE_BYTES_MAX);
}

const pagingCase = schemaArbitrary.chain((schema) => fc.record({
  schema: fc.constant(schema),
  rows: rowsArbitrary(schema, 40),
  chunks: fc.array(fc.nat(12), { maxLength: 6 }),
  fetchSize: fc.nat(12),
  pageBytesTarget: fc.integer({ min: 1, max: 600 }),
}, { noNullPrototype: true }));

describe('ResultSets pages', () => {
  it('give the frames of the old page encoder, byte for byte, page by page', async () => {
    await fc.assert(fc.asyncProperty(pagingCase, async (c) => {
      const expected = await referencePages(chunkedResult(c.schema, c.rows, c.chunks),
        c.fetchSize, c.pageBytesTarget);
      const sets = new ResultSets(PROTOCOL_MESSAGE_BYTES_MAX, c.pageBytesTarget);
      const first = await sets.first(chunkedResult(c.schema, c.rows, c.chunks), c.fetchSize);
      const [firstExpected, ...restExpected] = expected;
      assert.equal(first.resultSetId === RESULT_SET_ID_NONE, firstExpected!.done);
      assert.deepStrictEqual(queryFrame(first),
        queryFrame({ ...first, rows: firstExpected!.rows }));
      for (const pageExpected of restExpected) {
        const page = await sets.fetch(first.resultSetId, c.fetchSize);
        assert.equal(page.done, pageExpected.done);
        assert.deepStrictEqual(fetchFrame(page), fetchFrame(pageExpected));
      }
      assert.equal(sets.openCount, 0);
    }), { numRuns: 500 });
  });

  it('of a result encoded from row blocks (no rows made) are the row path\'s frames', async () => {
    const encodedCase = schemaArbitrary.chain((schema) => fc.record({
      schema: fc.constant(schema),
      rows: fc.array(rowsArbitrary(schema, 20), { maxLength: 10, size: 'max' })
        .map((parts) => parts.flat()),
      fetchSize: fc.nat(40),
      pageBytesTarget: fc.integer({ min: 1, max: 3000 }),
      chunkBytesTarget: fc.integer({ min: 1, max: 3000 }),
    }, { noNullPrototype: true }));
    await fc.assert(fc.asyncProperty(encodedCase, async (c) => {
      const store = storeOf(c.schema, c.rows);
      const rows = store.scan({ direction: 'asc' });
      const expected = await referencePages(chunkedResult(c.schema, rows, []),
        c.fetchSize, c.pageBytesTarget);
      const encoded = queryResultOfEncodedRows('ROWS', c.schema.columns,
        encodedOf(store, 'asc', c.chunkBytesTarget));
      const sets = new ResultSets(PROTOCOL_MESSAGE_BYTES_MAX, c.pageBytesTarget);
      const first = await sets.first(encoded, c.fetchSize);
      const [firstExpected, ...restExpected] = expected;
      assert.equal(first.resultSetId === RESULT_SET_ID_NONE, firstExpected!.done);
      assert.deepStrictEqual(queryFrame(first),
        queryFrame({ ...first, rows: firstExpected!.rows }));
      for (const pageExpected of restExpected) {
        const page = await sets.fetch(first.resultSetId, c.fetchSize);
        assert.equal(page.done, pageExpected.done);
        assert.deepStrictEqual(fetchFrame(page), fetchFrame(pageExpected));
      }
      assert.equal(sets.openCount, 0);
    }), { numRuns: 200 });
  });

  it('a row larger than the message limit fails the page (LIMIT_EXCEEDED) and closes', async () => {
    const schema = resultSchemaOf([{ name: 's', type: 'STRING', array: false, notNull: true }]);
    const sets = new ResultSets(64);
    await assert.rejects(sets.first(chunkedResult(schema, [['x'.repeat(100)]], []), 0),
      (error: unknown) => isStorageError(error, 'LIMIT_EXCEEDED'));
    assert.equal(sets.openCount, 0);
  });
});
