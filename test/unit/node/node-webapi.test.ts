// The web API inside the node's process (lib/node/node-webapi.ts): its stores reach the node
// through in-process sockets, with the node's own checks. The repository here names 127.0.0.1:1,
// where nothing listens, so every answer that needs the node proves the in-process path. Then
// the node's authentication, its errors, its connectionLimit (in-process connections count as
// any client's), and a node stopped while requests are in flight: the requests under way finish
// and are durable, the node stops cleanly, and a restart finds exactly the rows acknowledged.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import type { StoreNode } from '../../../lib/node/store-node.ts';
import {
  assertError, CLUSTER, HttpCaller, startEmbeddedNode,
} from '../webapi/webapi-test-helpers.ts';
import { newNodeHome, removeHome } from './node-process.ts';

const BASE = `/store/v2/${CLUSTER}/dbs/public`;
const SETTINGS = { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' };
const CONNECTION_LIMIT = 3;
/** Requests in flight when the node is asked to stop. */
const IN_FLIGHT_COUNT = 12;
const ROWS_PER_PUT = 500;

const TS_CONTAINER = {
  container_name: 'ts', container_type: 'TIME_SERIES', rowkey: true,
  columns: [{ name: 't', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
};

function rowsFrom(firstMs: number, count: number): unknown[][] {
  return Array.from({ length: count }, (_, i) =>
    [new Date(firstMs + i * 1000).toISOString(), i / 4]);
}

describe('the web API inside the node (in-process transport)', { timeout: 240_000 }, () => {
  const homes: string[] = [];
  const nodes: StoreNode[] = [];
  const stores: ClientStore[] = [];

  after(async () => {
    for (const store of stores) await store.close();
    for (const node of nodes) await node.stop().catch(() => undefined);
    for (const home of homes) removeHome(home);
  });

  async function start(home: string): Promise<{ node: StoreNode; http: HttpCaller }> {
    const node = await startEmbeddedNode(home, { settings: SETTINGS });
    nodes.push(node);
    return { node, http: new HttpCaller(node.embeddedWebApi!.server.port) };
  }

  it('serves the node\'s cluster in-process, with the node\'s authentication and errors',
    async () => {
      const home = newNodeHome({ dataStore: { logWriteMode: 0 } });
      homes.push(home);
      const { node, http } = await start(home);
      assert.equal((await http.call('GET', `${BASE}/checkConnection`)).status, 200);
      assertError(await http.call('GET', `${BASE}/checkConnection`,
        { auth: { user: 'admin', password: 'wrong' } }), 401, /AUTHENTICATION_FAILED/);
      assertError(await http.call('GET', `${BASE}/checkConnection`,
        { auth: { user: 'nobody', password: 'x' } }), 401);
      assert.equal((await http.call('POST', `${BASE}/containers`, { body: TS_CONTAINER }))
        .status, 201);
      assert.deepEqual(await http.json('PUT', `${BASE}/containers/ts/rows`,
        { body: rowsFrom(0, 3) }), { count: 3 });
      const answer = await http.json('POST', `${BASE}/tql`,
        { body: [{ name: 'ts', stmt: 'select max(v)' }] }) as Array<{ results: unknown[][] }>;
      assert.deepEqual(answer[0]!.results, [[0.5]]);
      assertError(await http.call('POST', `${BASE}/tql`,
        { body: [{ name: 'absent', stmt: 'select *' }] }), 404, /^Container not existed/);
      assertError(await http.call('POST', `${BASE}/tql`,
        { body: [{ name: 'ts', stmt: 'select nonsense(' }] }), 400);
      // A cluster repository.json does not list is GridDB's 400, as in a web API process.
      assertError(await http.call('GET', '/store/v2/otherCluster/dbs/public/checkConnection'),
        400, /^Cluster not found in repository: 'otherCluster'/);
      await node.stop();
    });

  it('counts its connections against the node\'s connectionLimit', async () => {
    const home = newNodeHome({ dataStore: { logWriteMode: 0 },
      transaction: { servicePort: 0, connectionLimit: CONNECTION_LIMIT } });
    homes.push(home);
    const { node, http } = await start(home);
    const member = `127.0.0.1:${node.transactionEndpoint.port}`;
    const clients: ClientStore[] = [];
    for (let i = 0; i < CONNECTION_LIMIT; i++) {
      const store = getStore({ notificationMember: member, clusterName: CLUSTER,
        username: 'admin', password: 'admin', connectionPoolSize: 1 });
      stores.push(store);
      clients.push(store);
      await store.connect();
    }
    assertError(await http.call('GET', `${BASE}/checkConnection`), 400,
      /LIMIT_EXCEEDED.*connectionLimit/);
    await clients[0]!.close();
    // The node notices the close when the socket's end arrives; the web API's next try gets in.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await http.call('GET', `${BASE}/checkConnection`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(status, 200);
    await node.stop();
  });

  it('lets requests in flight finish when the node stops, and keeps what it acknowledged',
    async () => {
      const home = newNodeHome({ dataStore: { logWriteMode: 0 } });
      homes.push(home);
      const first = await start(home);
      assert.equal((await first.http.call('POST', `${BASE}/containers`,
        { body: TS_CONTAINER })).status, 201);
      const puts = Array.from({ length: IN_FLIGHT_COUNT }, (_, i) =>
        first.http.call('PUT', `${BASE}/containers/ts/rows`,
          { body: rowsFrom(i * ROWS_PER_PUT * 1000, ROWS_PER_PUT) })
          .then((answer) => answer, (error: Error) => error));
      // Stop as soon as the first put has been answered: the others are in flight or queued.
      await Promise.race(puts);
      await first.node.stop();
      const outcomes = await Promise.all(puts);
      let acknowledgedRows = 0;
      for (const outcome of outcomes) {
        if (outcome instanceof Error) {
          // Never answered: refused or cut at the stop, before the web API took it.
          assert.match(outcome.message, /ECONNREFUSED|ECONNRESET|socket hang up/);
          continue;
        }
        assert.equal(outcome.status, 200, outcome.text);
        acknowledgedRows += (JSON.parse(outcome.text) as { count: number }).count;
      }
      assert.ok(acknowledgedRows >= ROWS_PER_PUT);
      // The stop was clean: a restart finds exactly the acknowledged rows.
      const second = await start(home);
      const answer = await second.http.json('POST', `${BASE}/tql`,
        { body: [{ name: 'ts', stmt: 'select count(*)' }] }) as Array<{ results: unknown[][] }>;
      assert.deepEqual(answer[0]!.results, [[acknowledgedRows]]);
      await second.node.stop();
    });
});
