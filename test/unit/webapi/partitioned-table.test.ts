// Over real HTTP against a real node: a partitioned table made with SQL seen through the web API's
// row endpoints as GridDB's are. Rows PUT to the table land in the data partitions of their keys
// (SQL and "#table_partitions" see them there), a row query with a condition reads them back, and
// sorting (TQL ORDER BY on a partitioned table, §3.8) is refused.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWebApiFixture, type HttpCaller, type WebApiFixture } from './webapi-test-helpers.ts';

describe('web API: a partitioned table', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let base: string;

  before(async () => {
    fixture = await startWebApiFixture({});
    http = fixture.http;
    base = fixture.base;
  });
  after(async () => {
    await fixture?.stop();
  });

  it('puts rows into the data partitions of their keys and reads them back', async () => {
    const ddl = await http.json('POST', `${base}/sql/ddl`, { body: [
      { stmt: 'CREATE TABLE wp (id INTEGER PRIMARY KEY, v DOUBLE) PARTITION BY RANGE (id) EVERY (100)' }] }) as
      Array<{ status: number }>;
    assert.equal(ddl[0]!.status, 1);
    const rows = Array.from({ length: 250 }, (_v, i) => [i, i / 2]);
    const put = await http.call('PUT', `${base}/containers/wp/rows`, { body: rows });
    assert.equal(put.status, 200, put.text);
    const answers = await http.json('POST', `${base}/sql/dml/query`, { body: [
      { stmt: 'SELECT PARTITION_BOUNDARY_VALUE FROM "#table_partitions" WHERE TABLE_NAME = \'wp\'' },
      { stmt: 'SELECT COUNT(*), SUM(id) FROM wp WHERE id >= 100 AND id < 200' }] }) as Array<{ results: unknown[][] }>;
    assert.deepEqual(answers[0]!.results, [['0'], ['100'], ['200']]);
    assert.deepEqual(answers[1]!.results, [[100, 14950]]);
    const page = await http.json('POST', `${base}/containers/wp/rows`, { body: { limit: 10, condition: 'id >= 195 AND id < 205' } }) as
      { rows: unknown[][]; total: number };
    assert.deepEqual(page.rows.map(([id]) => id), [195, 196, 197, 198, 199, 200, 201, 202, 203, 204]);
    const sorted = await http.call('POST', `${base}/containers/wp/rows`, { body: { limit: 10, sort: 'id desc' } });
    assert.notEqual(sorted.status, 200, 'ORDER BY on a partitioned table is refused (§3.8)');
  });
});
