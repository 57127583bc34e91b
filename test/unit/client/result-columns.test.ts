// Result column lists kept once per process (lib/client/result-columns.ts): equal lists are one
// frozen object, any difference makes another, the cache stays within its size, and two queries
// of a client get the same columns (so one result schema and one row codec) for the same shape.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ResultColumnsCache } from '../../../lib/client/result-columns.ts';
import type { ClientStore } from '../../../lib/client/client-store.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { startServer, type TestServer } from '../server/server-test-helpers.ts';
import { clientOf } from './client-test-helpers.ts';

const columnArbitrary = fc.record({
  name: fc.string({ minLength: 1, maxLength: 6 }),
  type: fc.constantFrom('LONG', 'DOUBLE', 'STRING', 'TIMESTAMP' as const),
  array: fc.boolean(),
  notNull: fc.boolean(),
}, { noNullPrototype: true }).map((column): ColumnSchema => (column.type === 'TIMESTAMP'
  ? { ...column, array: false, timePrecision: 'MICROSECOND' } : column) as ColumnSchema);

const copyOf = (columns: readonly ColumnSchema[]) => columns.map((column) => ({ ...column }));

describe('client result columns', () => {
  it('interns equal lists to one frozen object and different lists to different ones', () => {
    fc.assert(fc.property(fc.array(columnArbitrary, { minLength: 1, maxLength: 5 }),
      fc.nat(), (columns, at) => {
        const cache = new ResultColumnsCache(16);
        const first = cache.intern(copyOf(columns));
        assert.equal(cache.intern(copyOf(columns)), first);
        assert.deepEqual(first, columns);
        assert.ok(Object.isFrozen(first) && first.every((column) => Object.isFrozen(column)));
        const changed = copyOf(columns);
        const index = at % changed.length;
        const column = changed[index]!;
        switch (at % 4) {
          case 0: column.name = `${column.name}x`; break;
          case 1: column.notNull = !column.notNull; break;
          case 2: column.type = column.type === 'LONG' ? 'DOUBLE' : 'LONG'; break;
          default: changed.push({ name: 'extra', type: 'BOOL', array: false, notNull: false });
        }
        const other = cache.intern(changed);
        assert.notEqual(other, first);
        assert.deepEqual(other, changed);
      }));
  });

  it('tells names apart that a separator inside them would run together', () => {
    const cache = new ResultColumnsCache(16);
    const one = cache.intern(
      [{ name: 'a\u00000\u0001b', type: 'LONG', array: false, notNull: false }]);
    const two = cache.intern([{ name: 'a', type: 'LONG', array: false, notNull: false },
      { name: 'b', type: 'LONG', array: false, notNull: false }]);
    assert.notEqual(one, two);
    assert.equal(two.length, 2);
  });

  it('keeps at most its size, the least recently used going first', () => {
    const cache = new ResultColumnsCache(2);
    const list = (name: string): ColumnSchema[] =>
      [{ name, type: 'LONG', array: false, notNull: false }];
    const a = cache.intern(list('a'));
    cache.intern(list('b'));
    assert.equal(cache.intern(list('a')), a);
    cache.intern(list('c'));
    assert.equal(cache.size, 2);
    assert.equal(cache.intern(list('a')), a);
    assert.notEqual(cache.intern(list('b')), undefined);
    assert.equal(cache.size, 2);
  });

  describe('against a node', () => {
    let test: TestServer;
    let store: ClientStore;
    before(async () => {
      test = await startServer({ queryHandler: tqlQueryHandler });
      store = clientOf(test);
    });
    after(async () => {
      await store.close();
      await test.stop();
    });

    it('gives two queries of one shape the same columns and result schema', async () => {
      const readings = await store.putContainer({ name: 'readings', type: 'TIME_SERIES',
        columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }] });
      await readings.multiPut([[1000, 1.5], [2000, 2.5]]);
      const first = await readings.query('SELECT MAX(value)').fetch();
      const second = await readings.query('SELECT MAX(value) WHERE value > 0').fetch();
      assert.equal(first.aggregationValue(), 2.5);
      assert.equal(second.aggregationValue(), 2.5);
      assert.equal(second.columns, first.columns);
      assert.equal(resultSchemaOf(second.columns as ColumnSchema[]),
        resultSchemaOf(first.columns as ColumnSchema[]));
      const rows = await readings.query('SELECT *').fetch();
      const again = await readings.query('SELECT * WHERE value > 2').fetch();
      assert.equal(again.columns, rows.columns);
      assert.notEqual(rows.columns, first.columns);
      assert.deepEqual(await again.toArray(), [[2000, 2.5]]);
      await rows.close();
    });
  });
});
