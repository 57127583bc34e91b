// The web API keeps a caller's store, its credentials accepted once, between requests
// (http/store-pool.ts). GridDB's web API logs in anew with each request, so a password changed or
// a user dropped refuses the very next request with the old credentials; so must the web API in
// the node's process (the mode `npm start` runs), whose pool sees the node's access catalog: a
// store made before the catalog changed logs in again. (A web API process in front of a node is
// not told of changes: store-pool.ts says so; this test runs the embedded mode only.)

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { startWebApiFixture, type WebApiFixture } from './webapi-test-helpers.ts';

describe('web API: credentials changed on the node', { timeout: 120_000 }, () => {
  let fixture: WebApiFixture;
  let admin: ClientStore;

  before(async () => {
    fixture = await startWebApiFixture({}, 'embedded');
    admin = getStore({ notificationMember: `127.0.0.1:${fixture.node.transactionPort}`,
      clusterName: 'myCluster', username: 'admin', password: 'admin' });
  });
  after(async () => {
    await admin?.close();
    await fixture?.stop();
  });

  const check = (user: string, password: string) => fixture.http.call('GET',
    `${fixture.base}/checkConnection`, { auth: { user, password } });
  const tql = (user: string, password: string) => fixture.http.call('POST',
    `${fixture.base}/tql`, { auth: { user, password }, body: [{ name: 'c1', stmt: 'select *' }] });

  it('refuses the old password right after SET PASSWORD, and a dropped user', async () => {
    await admin.sql("CREATE USER u1 IDENTIFIED BY 'old1'");
    await admin.sql('CREATE TABLE c1 (id INTEGER PRIMARY KEY, v LONG)');
    for (let i = 0; i < 3; i++) {
      assert.equal((await check('u1', 'old1')).status, 200);
      assert.equal((await tql('u1', 'old1')).status, 200);
    }
    await admin.sql("SET PASSWORD FOR u1 = 'new1'");
    assert.equal((await tql('u1', 'old1')).status, 401);
    assert.equal((await check('u1', 'old1')).status, 401);
    assert.equal((await tql('u1', 'new1')).status, 200);
    await admin.sql('CREATE DATABASE d1');
    await admin.sql('GRANT SELECT ON d1 TO u1');
    const inD1 = () => fixture.http.call('GET', '/store/v2/myCluster/dbs/d1/checkConnection',
      { auth: { user: 'u1', password: 'new1' } });
    assert.equal((await inD1()).status, 200);
    await admin.sql('REVOKE SELECT ON d1 FROM u1');
    assert.equal((await inD1()).status, 401);
    await admin.sql('DROP USER u1');
    assert.equal((await tql('u1', 'new1')).status, 401);
    assert.equal((await tql('admin', 'admin')).status, 200);
  });
});
