// The slow-query log's handler: a query that runs the threshold or longer is reported once, with
// its container, its execution time and its text cut to the byte limit at a character's end; a
// faster one is not; the inner handler's result passes through unchanged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueryHandler, QueryRequest, QueryResult } from '../../../lib/server/query-handler.ts';
import {
  cutToBytes, slowQueryHandler, type SlowQueryRecord,
} from '../../../lib/server/slow-query-handler.ts';

describe('slowQueryHandler', () => {
  function harness(durationMs: number, textBytesMax = 1000) {
    let nowMs = 1_000;
    const result = { marker: true } as unknown as QueryResult;
    const inner: QueryHandler = async () => {
      nowMs += durationMs;
      return result;
    };
    const records: SlowQueryRecord[] = [];
    const handler = slowQueryHandler(inner, {
      thresholdMs: 100, textBytesMax, monotonicMs: () => nowMs,
      onSlow: (record) => records.push(record),
    });
    return { handler, records, result };
  }
  const request = (tql: string) => ({ containerName: 'Meter', tql } as unknown as QueryRequest);

  it('reports a query at or over the threshold, not one under it', async () => {
    const slow = harness(100);
    assert.equal(await slow.handler(request('SELECT *')), slow.result);
    assert.deepEqual(slow.records,
      [{ containerName: 'Meter', query: 'SELECT *', executionTimeMs: 100 }]);
    const fast = harness(99);
    assert.equal(await fast.handler(request('SELECT *')), fast.result);
    assert.deepEqual(fast.records, []);
  });

  it('cuts the text to the byte limit at a character\'s end', async () => {
    const slow = harness(500, 10);
    await slow.handler(request('SELECT * WHERE name = \'ééé\''));
    assert.equal(slow.records[0]!.query, 'SELECT * W');
    assert.equal(cutToBytes('aé€', 3), 'aé');
    assert.equal(cutToBytes('aé€', 5), 'aé');
    assert.equal(cutToBytes('aé€', 6), 'aé€');
    assert.equal(cutToBytes('abc', 0), '');
  });
});
