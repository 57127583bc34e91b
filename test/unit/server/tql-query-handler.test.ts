// The TQL query handler's aggregate answers: one column typed as the aggregate's result, and the
// same column list for the same function and type, so the result's schema (resultSchemaOf) and
// the row codec the server makes of it are made once, not for every aggregate query.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import type { QueryRequest } from '../../../lib/server/query-handler.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';

function aggregateRequest(fn: string, type: string, value: number | null,
  timePrecision?: string): QueryRequest {
  const answer = { kind: 'aggregate', function: fn, value, scannedRowCount: 1,
    type: timePrecision === undefined ? { type } : { type, timePrecision } };
  return { container: { query: () => Promise.resolve(answer) }, tql: 'select max(x)',
    fetchSize: 0, partialExecution: false, forUpdate: false, rowLimit: undefined,
  } as unknown as QueryRequest;
}

describe('TQL query handler', () => {
  it('answers aggregates of one function and type with one column list, schema and codec', async () => {
    const first = await tqlQueryHandler(aggregateRequest('MAX', 'DOUBLE', 1.5));
    const second = await tqlQueryHandler(aggregateRequest('MAX', 'DOUBLE', null));
    assert.equal(first.kind, 'AGGREGATION');
    assert.deepEqual(first.columns, [{ name: 'MAX', type: 'DOUBLE', array: false, notNull: false }]);
    assert.deepEqual((await first.next(10)).rows, [[1.5]]);
    assert.deepEqual((await second.next(10)).rows, []);
    assert.equal(second.columns, first.columns);
    assert.equal(resultSchemaOf(second.columns), resultSchemaOf(first.columns));
    assert.equal(rowCodec(resultSchemaOf(second.columns), 'wire'),
      rowCodec(resultSchemaOf(first.columns), 'wire'));
    const other = await tqlQueryHandler(aggregateRequest('MIN', 'DOUBLE', 1));
    assert.notEqual(other.columns, first.columns);
    const time = await tqlQueryHandler(aggregateRequest('MAX', 'TIMESTAMP', 5, 'MICROSECOND'));
    assert.deepEqual(time.columns, [{ name: 'MAX', type: 'TIMESTAMP', array: false,
      notNull: false, timePrecision: 'MICROSECOND' }]);
    assert.equal((await tqlQueryHandler(aggregateRequest('MAX', 'TIMESTAMP', 5))).columns[0]!
      .timePrecision, undefined);
  });
});
