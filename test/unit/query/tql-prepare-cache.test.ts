// The prepared-TQL cache (lib/query/tql/prepare-cache.ts): a statement run again on the same
// schema is prepared once, and a schema change (a column added, the container made again with
// other types) is never answered with a statement prepared for the schema before it.

import assert from 'node:assert/strict';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import { describe, it } from 'node:test';
import type { TqlResult } from '../../../lib/query/tql/execute.ts';
import { PreparedTqlCache, preparedTqlCache } from '../../../lib/query/tql/prepare-cache.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';
import { openTestStore, SENSORS, storageError } from '../engine/engine-test-helpers.ts';

function rowsOf(result: TqlResult): Row[] {
  assert.equal(result.kind, 'rows');
  return result.kind === 'rows' ? result.rows : [];
}

const NOW_MS = Date.UTC(2026, 0, 1);
const LIMITS = blockSizeLimits(64 * 1024);

describe('prepared TQL cache', () => {
  const schema: ContainerSchema = validateContainerDefinition(structuredClone(SENSORS), LIMITS);

  it('prepares a statement once per schema; not NOW(), EXPLAIN or failures', () => {
    const cache = new PreparedTqlCache(2);
    const first = cache.prepare('SELECT * WHERE value > 1', schema, { nowMs: NOW_MS });
    assert.equal(cache.prepare('SELECT * WHERE value > 1', schema, { nowMs: NOW_MS }), first);
    const other = validateContainerDefinition(structuredClone(SENSORS), LIMITS);
    assert.notEqual(cache.prepare('SELECT * WHERE value > 1', other, { nowMs: NOW_MS }), first);
    assert.equal(cache.size, 2);
    cache.prepare('SELECT * WHERE value > 2', schema, { nowMs: NOW_MS });
    assert.equal(cache.size, 2, 'the least recently used goes');
    const timed = "SELECT * WHERE TIMESTAMP('2026-01-01T00:00:00Z') < NOW()";
    assert.notEqual(cache.prepare(timed, schema, { nowMs: NOW_MS }),
      cache.prepare(timed, schema, { nowMs: NOW_MS + 1 }));
    const explain = 'EXPLAIN SELECT * WHERE value > 3';
    assert.notEqual(cache.prepare(explain, schema, { nowMs: NOW_MS }),
      cache.prepare(explain, schema, { nowMs: NOW_MS }));
    assert.throws(() => cache.prepare('SELECT * WHERE nothing > 1', schema, { nowMs: NOW_MS }));
    assert.throws(() => cache.prepare('SELECT * WHERE nothing > 1', schema, { nowMs: NOW_MS }));
  });

  it('parses a text once for every schema it is prepared on, the statement frozen', () => {
    const cache = new PreparedTqlCache(8, 2);
    const text = 'SELECT MAX(value) WHERE value > 1';
    const first = cache.prepare(text, schema, { nowMs: NOW_MS });
    const other = validateContainerDefinition(structuredClone(SENSORS), LIMITS);
    const second = cache.prepare(text, other, { nowMs: NOW_MS });
    assert.notEqual(second, first, 'bound per schema');
    assert.equal(second.schema, other);
    // The clauses' text is the parsed statement's own object: one parse served both.
    assert.equal(second.clauses, first.clauses);
    assert.ok(Object.isFrozen(first.clauses));
    assert.equal(cache.parsedSize, 1);
    cache.prepare('SELECT * WHERE value > 2', schema, { nowMs: NOW_MS });
    cache.prepare('SELECT * WHERE value > 3', schema, { nowMs: NOW_MS });
    assert.equal(cache.parsedSize, 2, 'the least recently used goes');
    assert.throws(() => cache.prepare('SELECT * WHERE', schema, { nowMs: NOW_MS }));
    assert.equal(cache.parsedSize, 2, 'a text that does not parse is not kept');
    const third = validateContainerDefinition(structuredClone(SENSORS), LIMITS);
    assert.notEqual(cache.prepare(text, third, { nowMs: NOW_MS }).clauses, first.clauses);
  });

  it('parses a statement with a BLOB literal, whose bytes cannot be frozen, as any other', () => {
    const cache = new PreparedTqlCache();
    const blobs = validateContainerDefinition({ name: 'blobs', type: 'COLLECTION', rowKey: false,
      columns: [{ name: 'b', type: 'BLOB' }] }, LIMITS);
    // Parsed (and kept) before binding refuses it: the node's own TQL error, not a TypeError.
    for (let i = 0; i < 2; i++) {
      assert.throws(() => cache.prepare("SELECT * WHERE b = X'00ff'", blobs, { nowMs: NOW_MS }),
        storageError('TQL_SEMANTIC'));
    }
    assert.equal(cache.parsedSize, 1);
  });

  it('answers a statement run again after a column is added with the new schema', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    await sensors.multiPut([['a', 1n], ['b', 2n]]);
    const statement = 'SELECT * WHERE value >= 2';
    assert.deepStrictEqual(rowsOf(await sensors.query(statement)), [['b', 2n]]);
    assert.deepStrictEqual(rowsOf(await sensors.query(statement)), [['b', 2n]]);
    await test.store.addColumn('sensors',
      { name: 'note', type: 'STRING', array: false, notNull: false });
    await sensors.put(['c', 3n, 'new']);
    const result = await sensors.query(statement);
    assert.deepEqual(result.kind === 'rows' ? result.columns.map((c) => c.name) : [],
      ['id', 'value', 'note']);
    assert.deepStrictEqual(rowsOf(result), [['b', 2n, null], ['c', 3n, 'new']]);
    await test.store.close();
  });

  it('binds a statement run again on a container made again with other types afresh', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    await test.store.session().container('sensors').put(['a', 5n]);
    const statement = 'SELECT * WHERE value > 1';
    assert.deepStrictEqual(rowsOf(await test.store.session().container('sensors')
      .query(statement)), [['a', 5n]]);
    await test.store.dropContainer('sensors');
    await test.store.createContainer({ ...structuredClone(SENSORS),
      columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'STRING' }] });
    await test.store.session().container('sensors').put(['a', 'five']);
    // A STRING compared with a number is a TQL error, found at preparation.
    await assert.rejects(test.store.session().container('sensors').query(statement),
      storageError('TQL_SEMANTIC'));
    await test.store.close();
  });

  it('is the cache the engine uses', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    const before = preparedTqlCache.size;
    await sensors.query('SELECT * WHERE value > 41 AND id = \'cache-check\'');
    assert.equal(preparedTqlCache.size, Math.min(before + 1, 1024));
    await test.store.close();
  });
});
