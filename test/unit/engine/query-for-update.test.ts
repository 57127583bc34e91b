// fetch(forUpdate) in the engine (ContainerHandle.query with forUpdate): the rows of the result are
// locked for the session's transaction until commit or abort; other sessions' writes to them wait
// and time out with LOCK_TIMEOUT; a query that waited for a lock runs again and sees what was
// committed; auto-commit mode, aggregates and EXPLAIN are refused. Time is virtual.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import {
  openTestStore, SENSORS, storageError, track, type TestStore,
} from './engine-test-helpers.ts';

/** A store with `sensors` holding a = 1, b = 2 and c = 3, committed. */
async function storeWithSensors(): Promise<TestStore> {
  const test = await openTestStore();
  await test.store.createContainer(SENSORS);
  await test.store.session().container('sensors').multiPut([['a', 1n], ['b', 2n], ['c', 3n]]);
  return test;
}

function rowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

describe('queries for update', () => {
  it('locks the rows of the result until commit; writes to other rows go ahead', async () => {
    const test = await storeWithSensors();
    const locker = test.store.session().container('sensors');
    const writer = test.store.session({ transactionTimeoutMs: 500 }).container('sensors');
    await locker.setAutoCommit(false);
    const result = await locker.query('SELECT * WHERE value >= 2', { forUpdate: true });
    assert.deepStrictEqual(rowsOf(result), [['b', 2n], ['c', 3n]]);
    await writer.put(['a', 10n]); // not in the result: not locked
    const put = writer.put(['b', 20n]);
    const waited = track(put);
    await test.advanceMs(100);
    assert.equal(waited.settled, false, 'a write to a locked row waits');
    await locker.commit();
    await test.advanceMs(0);
    await put;
    assert.deepStrictEqual(await writer.get('b'), ['b', 20n]);
    await test.store.close();
  });

  it('locks only the rows within the LIMIT fetch option (rowLimit), as a TQL LIMIT', async () => {
    const test = await storeWithSensors();
    const locker = test.store.session().container('sensors');
    const writer = test.store.session({ transactionTimeoutMs: 50 }).container('sensors');
    await locker.setAutoCommit(false);
    const result = await locker.query('SELECT * ORDER BY value', { forUpdate: true, rowLimit: 2 });
    assert.deepStrictEqual(rowsOf(result), [['a', 1n], ['b', 2n]]);
    await writer.put(['c', 30n]); // past the limit: neither returned nor locked
    const put = writer.put(['b', 20n]);
    const waited = track(put);
    await test.advanceMs(50);
    assert.equal(waited.settled, true);
    await assert.rejects(put, storageError('LOCK_TIMEOUT'));
    // The smaller of the TQL's LIMIT and rowLimit wins; aggregates are not limited.
    assert.deepStrictEqual(rowsOf(await locker.query('SELECT * ORDER BY value LIMIT 1',
      { rowLimit: 2 })), [['a', 1n]]);
    const count = await locker.query('SELECT COUNT(*)', { rowLimit: 0 });
    assert.equal(count.kind === 'aggregate' ? count.value : undefined, 3n);
    await locker.abort();
    await test.store.close();
  });

  it('times a write to a locked row out with LOCK_TIMEOUT; abort lets the rows go', async () => {
    const test = await storeWithSensors();
    const locker = test.store.session().container('sensors');
    const writer = test.store.session({ transactionTimeoutMs: 50 }).container('sensors');
    const manualWriter = test.store.session({ transactionTimeoutMs: 50 }).container('sensors');
    await locker.setAutoCommit(false);
    await manualWriter.setAutoCommit(false);
    await locker.query("SELECT * WHERE id = 'a'", { forUpdate: true });
    const autoRemove = writer.remove('a');
    const manualPut = manualWriter.put(['a', 5n]);
    const [autoWait, manualWait] = [track(autoRemove), track(manualPut)];
    await test.advanceMs(49);
    assert.equal(autoWait.settled || manualWait.settled, false);
    await test.advanceMs(1);
    await assert.rejects(autoRemove, storageError('LOCK_TIMEOUT'));
    await assert.rejects(manualPut, storageError('LOCK_TIMEOUT'));
    await locker.abort();
    assert.equal(await writer.remove('a'), true);
    await test.store.close();
  });

  it('waits for rows another transaction holds, then runs again on what it committed', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const locker = test.store.session().container('sensors');
    await holder.setAutoCommit(false);
    await locker.setAutoCommit(false);
    await holder.put(['b', 7n]);
    const query = locker.query('SELECT * WHERE value >= 2', { forUpdate: true });
    const waited = track(query);
    await test.advanceMs(10);
    assert.equal(waited.settled, false, 'b is held by the other transaction');
    await holder.put(['d', 9n]);
    await holder.commit();
    await test.advanceMs(0);
    // The second run sees the committed b = 7 and the new d, and locks d too.
    assert.deepStrictEqual(rowsOf(await query), [['b', 7n], ['c', 3n], ['d', 9n]]);
    const other = test.store.session({ transactionTimeoutMs: 20 }).container('sensors');
    const put = other.put(['d', 1n]);
    track(put);
    await test.advanceMs(20);
    await assert.rejects(put, storageError('LOCK_TIMEOUT'));
    await locker.commit();
    await test.store.close();
  });

  it('sees and keeps its own writes, and locks every row of a paged result', async () => {
    const test = await storeWithSensors();
    const locker = test.store.session().container('sensors');
    const other = test.store.session({ transactionTimeoutMs: 10 }).container('sensors');
    await locker.setAutoCommit(false);
    await locker.put(['e', 5n]);
    const first = await locker.query('SELECT *', { forUpdate: true, fetchSizeRows: 1 });
    assert.deepStrictEqual(rowsOf(first), [['a', 1n]]);
    assert.ok(first.kind === 'rows' && first.cursor !== undefined);
    for (const key of ['c', 'e']) {
      const put = other.put([key, 0n]);
      track(put);
      await test.advanceMs(10);
      await assert.rejects(put, storageError('LOCK_TIMEOUT'), `row ${key} is locked`);
    }
    await locker.commit();
    await other.put(['c', 0n]);
    await test.store.close();
  });

  it('refuses auto-commit mode, aggregates and EXPLAIN, and leaves nothing locked', async () => {
    const test = await storeWithSensors();
    const handle = test.store.session().container('sensors');
    await assert.rejects(handle.query('SELECT *', { forUpdate: true }),
      storageError('ILLEGAL_COMMIT_MODE', /auto-commit/));
    await handle.setAutoCommit(false);
    await assert.rejects(handle.query('SELECT COUNT(*)', { forUpdate: true }),
      storageError('TQL_SEMANTIC', /aggregate/));
    await assert.rejects(handle.query('EXPLAIN SELECT *', { forUpdate: true }),
      storageError('TQL_SEMANTIC', /EXPLAIN/));
    await assert.rejects(handle.query('SELECT * WHERE nope = 1', { forUpdate: true }),
      storageError('COLUMN_NOT_FOUND'));
    const other = test.store.session({ transactionTimeoutMs: 10 }).container('sensors');
    await other.put(['a', 100n]);
    assert.deepStrictEqual(await other.get('a'), ['a', 100n]);
    await test.store.close();
  });

  it('holds a keyless collection against a drop until commit', async () => {
    const test = await openTestStore();
    await test.store.createContainer({
      name: 'log', type: 'COLLECTION', rowKey: false,
      columns: [{ name: 'text', type: 'STRING' }],
    });
    await test.store.session().container('log').multiPut([['x'], ['y']]);
    const locker = test.store.session().container('log');
    await locker.setAutoCommit(false);
    assert.deepStrictEqual(rowsOf(await locker.query('SELECT *', { forUpdate: true })),
      [['x'], ['y']]);
    const drop = test.store.dropContainer('log');
    const dropped = track(drop);
    await test.advanceMs(10);
    assert.equal(dropped.settled, false, 'the drop waits for the transaction');
    await locker.commit();
    await test.advanceMs(0);
    assert.equal(await drop, true);
    await test.store.close();
  });
});
