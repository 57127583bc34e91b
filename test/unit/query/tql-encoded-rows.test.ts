// A plain SELECT * asked with encodeRows (as the node's server asks) comes encoded straight from
// the row blocks' columns ('encodedRows'): the bytes of exactly the rows the row path gives, in
// its order, with its OFFSET and LIMIT; every query that needs rows keeps the row path.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { ContainerHandle } from '../../../lib/engine/session.ts';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { openTestStore, type TestStore } from '../engine/engine-test-helpers.ts';

const ROW_COUNT = 3000;
const T0_US = 1_767_225_600_000_000n;

function rowOf(i: number): Row {
  return [
    i,
    i % 5 === 0 ? null : `text ${i} ${'é'.repeat(i % 7)}`,
    i / 3,
    i % 2 === 0,
    i % 4 === 0 ? null : [BigInt(i), -BigInt(i) * 1_000_000_000_000n],
    T0_US + BigInt(i),
    (T0_US + BigInt(i)) * 1000n + BigInt(i % 1000),
    i % 3 === 0 ? null : Uint8Array.from({ length: i % 50 }, (_, b) => b),
    i % 6 === 0 ? null : `POINT(${i} 2)`,
    i % 9 === 0 ? null : -0,
  ];
}

/** The bytes of every row of an 'encodedRows' result. */
function encodedBytes(result: TqlResult): Uint8Array {
  assert.equal(result.kind, 'encodedRows');
  if (result.kind !== 'encodedRows') return new Uint8Array(0);
  const page = result.rows.take(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  return new Uint8Array(Buffer.concat(page.parts));
}

/** The same query on the row path, its rows encoded with the row codec. */
async function rowPathBytes(
  container: ContainerHandle, tql: string,
): Promise<{ bytes: Uint8Array; result: TqlResult }> {
  const result = await container.query(tql);
  assert.equal(result.kind, 'rows');
  if (result.kind !== 'rows') throw new Error('not rows');
  const writer = new ByteWriter(8);
  rowCodec(resultSchemaOf(result.columns), 'wire').writeRows(writer, result.rows);
  return { bytes: writer.finish().slice(), result };
}

describe('TQL results encoded from row blocks', () => {
  let test: TestStore;

  before(async () => {
    test = await openTestStore();
    await test.store.createContainer({
      name: 'wide', type: 'COLLECTION', rowKey: true,
      columns: [
        { name: 'id', type: 'INTEGER' },
        { name: 's', type: 'STRING' },
        { name: 'd', type: 'DOUBLE', notNull: true },
        { name: 'b', type: 'BOOL' },
        { name: 'la', type: 'LONG', array: true },
        { name: 'us', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' },
        { name: 'ns', type: 'TIMESTAMP', timePrecision: 'NANOSECOND' },
        { name: 'blob', type: 'BLOB' },
        { name: 'g', type: 'GEOMETRY' },
        { name: 'f', type: 'FLOAT' },
      ],
    });
    const rows = Array.from({ length: ROW_COUNT }, (_, i) => rowOf(i));
    await test.store.session().container('wide').multiPut(rows);
    await test.store.createContainer({
      name: 'log', type: 'COLLECTION', rowKey: false,
      columns: [{ name: 'n', type: 'INTEGER' }, { name: 'text', type: 'STRING' }],
    });
    await test.store.session().container('log')
      .multiPut(Array.from({ length: ROW_COUNT }, (_, n) => [n, `line ${n}`]));
  });

  after(async () => {
    await test.store.close();
  });

  for (const [name, tql] of [
    ['wide', 'SELECT *'],
    ['wide', 'SELECT * WHERE id >= 100 AND id < 2500'],
    ['wide', 'SELECT * ORDER BY id DESC'],
    ['wide', 'SELECT * WHERE id > 10 ORDER BY id DESC LIMIT 700 OFFSET 30'],
    ['wide', 'SELECT * LIMIT 5 OFFSET 2990'],
    ['wide', 'SELECT * LIMIT 0'],
    ['wide', 'SELECT * WHERE id > 5000'],
    ['log', 'SELECT *'],
    ['log', 'SELECT * LIMIT 1000 OFFSET 1500'],
  ] as const) {
    it(`${name}: ${tql} gives the row path's rows, byte for byte`, async () => {
      const container = test.store.session().container(name);
      const expected = await rowPathBytes(container, tql);
      const result = await container.query(tql, { encodeRows: true });
      assert.deepStrictEqual(encodedBytes(result), expected.bytes);
      assert.equal(result.scannedRowCount, expected.result.scannedRowCount);
      assert.deepStrictEqual(result.kind === 'encodedRows' && result.columns,
        expected.result.kind === 'rows' && expected.result.columns);
    });
  }

  it('keeps the row path where rows are needed', async () => {
    const wide = test.store.session().container('wide');
    for (const tql of ['SELECT * WHERE d > 10', 'SELECT * ORDER BY d DESC', 'SELECT COUNT(*)',
      'EXPLAIN SELECT *']) {
      const result = await wide.query(tql, { encodeRows: true });
      assert.notEqual(result.kind, 'encodedRows', tql);
    }
    const partial = await wide.query('SELECT *',
      { encodeRows: true, partialExecution: true, fetchSizeRows: 10 });
    assert.equal(partial.kind, 'rows');
  });

  it('the node\'s TQL handler hands a plain SELECT * to the server encoded, fetch(forUpdate) rows',
    async () => {
      const session = test.store.session();
      const container = session.container('wide');
      const request = {
        session, containerName: 'wide', schema: test.store.getContainerInfo('wide')!,
        container, tql: 'SELECT * WHERE id < 100', fetchSize: 10, partialExecution: false,
        forUpdate: false, rowLimit: undefined,
      };
      const plain = await tqlQueryHandler(request);
      assert.equal(plain.encoded?.count, 100);
      plain.close();
      await container.setAutoCommit(false);
      const forUpdate = await tqlQueryHandler({ ...request, forUpdate: true });
      assert.equal(forUpdate.encoded, undefined);
      assert.equal((await forUpdate.next(1000)).rows.length, 10);
      forUpdate.close();
      await container.abort();
      await container.setAutoCommit(true);
    });

  it('keeps the row path for a session with changes of its own, which it sees', async () => {
    const wide = test.store.session().container('wide');
    await wide.setAutoCommit(false);
    await wide.put(rowOf(ROW_COUNT));
    const result = await wide.query('SELECT *', { encodeRows: true });
    assert.equal(result.kind, 'rows');
    assert.equal(result.kind === 'rows' && result.rows.length, ROW_COUNT + 1);
    await wide.abort();
  });
});
