// End to end: MATCH_RECOGNIZE's classic V shape over a stock's prices through a real node process,
// once through the TypeScript client (store.sql, the SQL_EXECUTE protocol) and once through the
// PostgreSQL port with node-postgres: both give the same two matches, and a refused construct
// comes back as an error with its SQLSTATE while the node keeps serving.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';
import { clientOf } from '../node/sql-node-helpers.ts';

const V_SHAPE_SQL = 'SELECT symbol, start_ts, bottom, top, m FROM stock MATCH_RECOGNIZE (' +
  ' PARTITION BY symbol ORDER BY ts' +
  ' MEASURES FIRST(ts) AS start_ts, LAST(DOWN.price) AS bottom, LAST(UP.price) AS top, MATCH_NUMBER() AS m' +
  ' ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW' +
  ' PATTERN (STRT DOWN+ UP+)' +
  ' DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price))';

const PRICES = [10, 8, 6, 9, 12, 11, 7, 5, 8, 13, 13];
const T0_MS = Date.UTC(2024, 0, 1);

/** Values as text, so the client's and node-postgres's types compare (LONG, Date, number). */
function texts(rows: readonly (readonly unknown[])[]): string[][] {
  return rows.map((row) => row.map((value) => (value instanceof Date ? String(value.getTime()) : String(value))));
}

describe('MATCH_RECOGNIZE through the client and the PostgreSQL port', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;
  let db: pg.Client;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    store = clientOf(node, 'e2e-match-recognize');
    await store.sql('CREATE TABLE stock (symbol STRING, ts TIMESTAMP, price DOUBLE, PRIMARY KEY (symbol, ts))');
    const values = PRICES.map((price, i) =>
      `('ACME', TIMESTAMP_ADD(SECOND, TIMESTAMP('2024-01-01T00:00:00Z'), ${i}), ${price})`);
    await store.sql(`INSERT INTO stock VALUES ${values.join(', ')}`);
    db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
      database: 'public', application_name: 'pg-match-recognize' });
    await db.connect();
  });

  after(async () => {
    await db?.end().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  const expected = [['ACME', String(T0_MS), '6', '12', '1'], ['ACME', String(T0_MS + 5000), '5', '13', '2']];

  it('finds the two V shapes through the client', async () => {
    const rows = await (await store.sql(V_SHAPE_SQL)).toArray();
    assert.deepStrictEqual(texts(rows as unknown[][]), expected);
  });

  it('finds the same V shapes through node-postgres, and refuses SKIP TO with 0A000', async () => {
    const result = await db.query({ text: V_SHAPE_SQL, rowMode: 'array' });
    assert.deepStrictEqual(texts(result.rows as unknown[][]), expected);
    await assert.rejects(db.query(V_SHAPE_SQL.replace('AFTER MATCH SKIP PAST LAST ROW', 'AFTER MATCH SKIP TO NEXT ROW')),
      (error: { code?: string; message?: string }) => {
        assert.match(error.message ?? '', /AFTER MATCH SKIP TO is not supported/);
        assert.equal(error.code, '0A000');
        return true;
      });
    assert.equal((await db.query('SELECT COUNT(*) FROM stock')).rows.length, 1);
  });
});
