// Schema changes through the engine: a column added at the end and a column renamed are xlog records,
// existing rows take NULL (or the empty value for NOT NULL) in an added column, rows written before and
// after the change survive a restart and a crash, and a change waits for open transactions.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Store } from '../../../lib/engine/store.ts';
import { openTestStore, SENSORS, storageError, track } from './engine-test-helpers.ts';

describe('schema changes', () => {
  it('adds columns at the end: old rows get NULL or the empty value; all survive a restart', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    await sensors.multiPut([['a', 1n], ['b', 2n]]);
    const added = await test.store.addColumn('sensors',
      { name: 'Note', type: 'STRING', array: false, notNull: false });
    assert.equal(added.schemaVersion, 2);
    assert.deepEqual(added.columns.map((c) => c.name), ['id', 'value', 'Note']);
    await test.store.addColumn('SENSORS',
      { name: 'flags', type: 'INTEGER', array: true, notNull: true });
    assert.deepStrictEqual(await sensors.get('a'), ['a', 1n, null, []]);
    await sensors.put(['c', 3n, 'new', [1, 2]]);
    await assert.rejects(sensors.put(['d', 4n]), storageError('ROW_INVALID'));
    const expected = [['a', 1n, null, []], ['b', 2n, null, []], ['c', 3n, 'new', [1, 2]]];
    assert.deepStrictEqual(await sensors.scan(), expected);
    const reopened = await test.reopen();
    assert.equal(reopened.getContainerInfo('sensors')!.schemaVersion, 3);
    assert.deepStrictEqual(await reopened.session().container('sensors').scan(), expected);
    await reopened.close();
  });

  it('renames a column, keeps the rows, and replays the rename after a crash', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    await sensors.put(['a', 1n]);
    const renamed = await test.store.renameColumn('sensors', { fromName: 'value', toName: 'reading' });
    assert.deepEqual(renamed.columns.map((c) => c.name), ['id', 'reading']);
    await sensors.put(['b', 2n]);
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    const info = store.getContainerInfo('sensors')!;
    assert.deepEqual(info.columns.map((c) => c.name), ['id', 'reading']);
    assert.deepStrictEqual(await store.session().container('sensors').scan(),
      [['a', 1n], ['b', 2n]]);
    await store.close();
  });

  it('waits for a transaction that holds rows, then applies; the transaction commits first', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['a', 1n]);
    const change = test.store.addColumn('sensors',
      { name: 'extra', type: 'DOUBLE', array: false, notNull: false });
    const waiting = track(change);
    await test.advanceMs(10);
    assert.equal(waiting.settled, false);
    await writer.commit();
    await change;
    assert.deepStrictEqual(await test.store.session().container('sensors').scan(),
      [['a', 1n, null]]);
    await test.store.close();
  });
});
