// GEOMETRY and spatial search end to end: a real node process, the web API over HTTP and the client
// library over TCP. WKT goes in as a client writes it and comes out as GridDB prints it; bad WKT is
// refused with a clear message; ST_MBRIntersects answers the same through the web API's /tql and
// the client, with the SPATIAL index created by either and read (EXPLAIN through the client).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { assertError, startWebApiFixture, type WebApiFixture } from './webapi-test-helpers.ts';

interface TqlAnswer {
  columns: Array<{ name: string; type: string }>;
  results: unknown[][];
}

const WINDOW = "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')";

describe('GEOMETRY through the web API and the client', { timeout: 120_000 }, () => {
  let fixture: WebApiFixture;
  let client: ClientStore;

  before(async () => {
    fixture = await startWebApiFixture();
    client = getStore({
      notificationMember: `127.0.0.1:${fixture.node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'spatial-e2e',
    });
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await fixture?.stop();
  });

  it('stores WKT as GridDB prints it and refuses what is not WKT', async () => {
    const { http, base } = fixture;
    const created = await http.call('POST', `${base}/containers`, { body: {
      container_name: 'places', container_type: 'COLLECTION', rowkey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'g', type: 'GEOMETRY',
        index: ['SPATIAL'] }] } });
    assert.equal(created.status, 201, created.text);
    const put = await http.call('PUT', `${base}/containers/places/rows`, { body: [
      [1, 'point( 1.50 2 )'], [2, 'POINT(50 50)'], [3, 'LINESTRING(-5 5, 5 -5)'],
      [4, 'POLYGON((9 9,20 9,20 20,9 9);4326)'], [5, 'POINT(EMPTY)'], [6, 'POINT(5 5 100)'],
    ] });
    assert.equal(put.status, 200, put.text);
    assertError(await http.call('PUT', `${base}/containers/places/rows`,
      { body: [[7, 'POINT(1 NaN)']] }), 400, /not a GEOMETRY.*NaN and INF/);
    assertError(await http.call('PUT', `${base}/containers/places/rows`,
      { body: [[7, 'POLYGON((0 0,1 0,1 1))']] }), 400, /4 or more points/);
    const rows = await http.json('POST', `${base}/containers/places/rows`, { body: { limit: 10 } }) as
      { rows: unknown[][] };
    assert.deepEqual(rows.rows, [[1, 'POINT(1.5 2)'], [2, 'POINT(50 50)'],
      [3, 'LINESTRING(-5 5,5 -5)'], [4, 'POLYGON((9 9,20 9,20 20,9 9);4326)'],
      [5, 'POINT(EMPTY)'], [6, 'POINT(5 5 100)']]);
  });

  it('answers spatial TQL through /tql', async () => {
    const { http, base } = fixture;
    const answer = await http.json('POST', `${base}/tql`, { body: [
      { name: 'places', stmt: `select * where ST_MBRIntersects(g, ${WINDOW})` },
      { name: 'places', stmt: 'select * where ST_GetSrId(g) = 4326' },
      { name: 'places', stmt: 'select * where ST_MBRIntersects(g, ST_MakeBox(0, 0, 0, 10, 10, 10))' },
    ] }) as TqlAnswer[];
    assert.deepEqual(answer[0]!.results.map((row) => row[0]), [1, 3, 4, 6]);
    assert.deepEqual(answer[0]!.columns, [{ name: 'id', type: 'INTEGER' },
      { name: 'g', type: 'GEOMETRY' }]);
    assert.deepEqual(answer[1]!.results, [[4, 'POLYGON((9 9,20 9,20 20,9 9);4326)']]);
    assert.deepEqual(answer[2]!.results.map((row) => row[0]), [1, 3, 4]);
    assertError(await http.call('POST', `${base}/tql`, { body: [
      { name: 'places', stmt: 'select * where ST_MBRIntersects(g, ST_MakeRect(1, 0, 1, 5))' },
    ] }), 400, /ST_MAKERECT needs different coordinates/);
  });

  it('the client reads and writes the same WKT and reads through the index', async () => {
    const places = (await client.getContainer('places'))!;
    await places.put([8, 'linestring(0 0,2 2)']);
    assert.deepEqual(await places.get(8), [8, 'LINESTRING(0 0,2 2)']);
    await assert.rejects(places.put([9, 'QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)']),
      /cannot be stored/);
    const tql = `SELECT * WHERE ST_MBRIntersects(g, ${WINDOW})`;
    const rows = await (await places.query(tql).fetch()).toArray();
    assert.deepEqual(rows.map((row) => row[0]), [1, 3, 4, 6, 8]);
    const explain = await (await places.query(`EXPLAIN ${tql}`).fetch()).toArray();
    assert.ok(explain.some((row) => row[2] === 'INDEX' && row[3] === 'RTREE'),
      JSON.stringify(explain));
    assert.equal(await places.dropIndex('g', 'SPATIAL'), 1);
    const scanned = await (await places.query(`EXPLAIN ${tql}`).fetch()).toArray();
    assert.ok(scanned.some((row) => row[2] === 'INDEX' && row[4] === 'ROWMAP'));
    assert.equal(await places.createIndex('g', 'SPATIAL'), true);
    const again = await (await places.query(tql).fetch()).toArray();
    assert.deepEqual(again, rows);
  });
});
