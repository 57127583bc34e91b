// The pool of client stores: one per (cluster, database, user, password), at most sizeMax of
// them (the least recently used goes first), none handed out once the pool is closed. Nothing
// here connects: a store connects at its first request.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import type { RepositoryCluster } from '../../../lib/webapi/config/repository.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { StorePool } from '../../../lib/webapi/http/store-pool.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';

const CLUSTER: RepositoryCluster = { name: 'c', mode: 'FIXED_LIST',
  transactionMember: '127.0.0.1:1', sqlMember: '' };
const target = (user: string, password = 'p', database = 'public') =>
  ({ cluster: CLUSTER, database, credentials: { user, password } });

describe('store pool', () => {
  it('keeps one store per key and at most sizeMax, dropping the least recently used', async () => {
    const pool = new StorePool(WEBAPI_SETTINGS_DEFAULT, 2);
    const a = await pool.use(target('a'), async (store) => store);
    assert.equal(await pool.use(target('a'), async (store) => store), a);
    assert.notEqual(await pool.use(target('a', 'other'), async (store) => store), a);
    assert.notEqual(await pool.use(target('a', 'p', 'db2'), async (store) => store), a);
    assert.equal(pool.size, 2);
    // `a` was the least recently used: a new store takes its place.
    assert.notEqual(await pool.use(target('a'), async (store) => store), a);
    await pool.close();
    await assert.rejects(pool.use(target('a'), async (store) => store),
      (error: unknown) => isStorageError(error, 'CLOSED'));
  });

  it('refuses an empty user and a MULTICAST cluster before connecting', async () => {
    const pool = new StorePool(WEBAPI_SETTINGS_DEFAULT);
    await assert.rejects(pool.use(target(''), async () => 1),
      (error: unknown) => isStorageError(error, 'AUTHENTICATION_FAILED'));
    await assert.rejects(pool.use({ ...target('a'), cluster: { name: 'm', mode: 'MULTICAST',
      address: '239.0.0.1', port: 31999, jdbcAddress: '', jdbcPort: 0 } }, async () => 1),
    (error: unknown) => error instanceof WebApiError && error.status === 500);
    assert.equal(pool.size, 0);
    await pool.close();
  });
});
