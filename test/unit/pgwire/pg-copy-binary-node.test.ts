// COPY in binary format end to end, through pg-copy-streams: every store type with NULLs and edge
// values from a real node and back into it, cut into small CopyData; a bad tuple's SQLSTATE and the
// tuple and column it names; and the round trip with a real PostgreSQL 15: PostgreSQL's own
// `COPY ... TO STDOUT (FORMAT binary)` loads into the store, the store's COPY TO gives the same
// bytes, and those load back into PostgreSQL with the same values.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { PG_COPY_BINARY_SIGNATURE } from '../../../lib/pgwire/pg-copy-binary.ts';
import { postgresMissing } from '../../support/postgres-cluster.ts';
import { postgresClientForSuite } from '../../support/postgres-suite.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

async function copyInBytes(db: pg.Client, sql: string, bytes: Buffer, size: number): Promise<void> {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.subarray(at, at + size));
  await pipeline(Readable.from(out), db.query(copyFrom(sql)));
}

async function copyOutBytes(db: pg.Client, sql: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of db.query(copyTo(sql))) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

async function copyOutText(db: pg.Client, sql: string): Promise<string> {
  return (await copyOutBytes(db, sql)).toString('utf8');
}

const EVERY_COLUMNS = 'id LONG PRIMARY KEY, i INTEGER, s SHORT, y BYTE, f FLOAT, d DOUBLE, b BOOL, ' +
  't STRING, ts TIMESTAMP, us TIMESTAMP(6), ns TIMESTAMP(9), bl BLOB';
// Every type at its extremes; binary has µs, so the TIMESTAMP(9) values are whole µs here.
const EVERY_TEXT = [
  '-9223372036854775808\t-2147483648\t-32768\t-128\tNaN\t-Infinity\tf\t\t1970-01-01 00:00:00+00\t' +
    '1970-01-01 00:00:00.000001+00\t1970-01-01 00:00:00.000001+00\t\\\\x',
  '3\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t2024-01-01 00:00:00+00\t\\N\t\\N\t\\N',
  '9223372036854775807\t2147483647\t32767\t127\t3.4028235e+38\t1.7976931348623157e+308\tt\t' +
    'tab\\there\\nnew line \\\\ back, "quoted" é日本\t9999-12-31 23:59:59.999+00\t2024-05-06 07:08:09.123456+00\t' +
    '2024-05-06 07:08:09.123456+00\t\\\\x00ff10',
].map((line) => `${line}\n`).join('');

// The same rows in PostgreSQL 15, in the types the store's columns are described with.
const PG_COLUMNS = 'id int8 PRIMARY KEY, i int4, s int2, y int2, f float4, d float8, b bool, t text, ' +
  'ts timestamptz, us timestamptz, ns timestamptz, bl bytea';

describe('COPY in binary format over the PostgreSQL protocol', { timeout: 300_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let db: pg.Client;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin', database: 'public' });
    await db.connect();
    await db.query(`CREATE TABLE every_text (${EVERY_COLUMNS})`);
    await pipeline(Readable.from([Buffer.from(EVERY_TEXT)]), db.query(copyFrom('COPY every_text FROM STDIN')));
  });

  after(async () => {
    await db?.end().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('every type out in binary and back in, cut into 3-byte CopyData, reads the same rows', async () => {
    const bytes = await copyOutBytes(db, 'COPY (SELECT * FROM every_text ORDER BY id) TO STDOUT (FORMAT binary)');
    assert.ok(bytes.subarray(0, 11).equals(PG_COPY_BINARY_SIGNATURE));
    assert.equal(bytes.readInt16BE(19), 12);
    assert.equal(bytes.readInt16BE(bytes.byteLength - 2), -1);
    await db.query(`CREATE TABLE every_binary (${EVERY_COLUMNS})`);
    await copyInBytes(db, 'COPY every_binary FROM STDIN WITH (FORMAT binary)', bytes, 3);
    assert.equal(await copyOutText(db, 'COPY (SELECT * FROM every_binary ORDER BY id) TO STDOUT'), EVERY_TEXT);
    assert.ok((await copyOutBytes(db, 'COPY every_binary TO STDOUT BINARY')).equals(bytes));
    // A column list, in another order.
    await db.query('CREATE TABLE pair (k INTEGER PRIMARY KEY, v STRING)');
    const pair = await copyOutBytes(db, 'COPY (SELECT t, i FROM every_text WHERE i IS NOT NULL) TO STDOUT (FORMAT binary)');
    await copyInBytes(db, 'COPY pair (v, k) FROM STDIN (FORMAT binary)', pair, 1000);
    assert.deepEqual((await db.query('SELECT k, v FROM pair ORDER BY k')).rows.map((row) => row.k), [-2147483648, 2147483647]);
  });

  it('a bad tuple is refused naming its tuple and column; the connection goes on', async () => {
    await db.query('CREATE TABLE bad_binary (k INTEGER PRIMARY KEY, v DOUBLE)');
    const good = await copyOutBytes(db, 'COPY (SELECT i, d FROM every_text WHERE i IS NOT NULL ORDER BY id) TO STDOUT (FORMAT binary)');
    const header = good.subarray(0, 19);
    const tuple = (k: Buffer, v: Buffer) => Buffer.concat([Buffer.of(0, 2), Buffer.from([0, 0, 0, k.byteLength]), k,
      Buffer.from([0, 0, 0, v.byteLength]), v]);
    const int32 = (n: number) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
    const double = (n: number) => { const b = Buffer.alloc(8); b.writeDoubleBE(n); return b; };
    const trailer = Buffer.of(0xff, 0xff);
    for (const [body, state, where] of [
      [[tuple(int32(1), double(1)), tuple(int32(2), Buffer.of(1, 2, 3)), trailer], '22P03', /^COPY bad_binary, line 2, column v$/],
      [[tuple(int32(1), double(1)), Buffer.of(0, 1, 0, 0, 0, 4), int32(2), trailer], '22P04', /^COPY bad_binary, line 2$/],
      [[tuple(int32(1), double(1))], '22P04', /^COPY bad_binary, line 2$/],
      [[tuple(int32(1), double(1)), tuple(Buffer.of(0, 0, 1, 0, 0, 0, 0, 0), double(1)), trailer], '22003', /line 2, column k/],
    ] as const) {
      await assert.rejects(copyInBytes(db, 'COPY bad_binary FROM STDIN (FORMAT binary)',
        Buffer.concat([header, ...body]), 7),
      (error: { code?: string; where?: string }) => {
        assert.equal(error.code, state);
        assert.match(error.where ?? '', where);
        return true;
      });
    }
    await assert.rejects(copyInBytes(db, 'COPY bad_binary FROM STDIN (FORMAT binary)', Buffer.from('1\t2\n'), 10),
      (error: { code?: string }) => error.code === '22P04');
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM bad_binary')).rows[0].n, '0');
    assert.equal((await db.query('SELECT 1 AS one')).rows[0].one, '1');
  });

  describe('with PostgreSQL 15', { skip: postgresMissing() }, () => {
    const postgres = postgresClientForSuite('store-copy-binary-', "SET TimeZone = 'UTC'");

    it('PostgreSQL\'s binary COPY loads into the store, which gives the same bytes back, which load into PostgreSQL', async () => {
      const theirs = postgres.client;
      await theirs.query(`CREATE TABLE every_pg (${PG_COLUMNS})`);
      await pipeline(Readable.from([Buffer.from(EVERY_TEXT)]), theirs.query(copyFrom('COPY every_pg FROM STDIN')));
      const fromPostgres = await copyOutBytes(theirs, 'COPY (SELECT * FROM every_pg ORDER BY id) TO STDOUT (FORMAT binary)');
      await db.query(`CREATE TABLE every_from_pg (${EVERY_COLUMNS})`);
      await copyInBytes(db, 'COPY every_from_pg FROM STDIN (FORMAT binary)', fromPostgres, 64);
      assert.equal(await copyOutText(db, 'COPY (SELECT * FROM every_from_pg ORDER BY id) TO STDOUT'), EVERY_TEXT);
      const fromStore = await copyOutBytes(db, 'COPY (SELECT * FROM every_from_pg ORDER BY id) TO STDOUT (FORMAT binary)');
      assert.ok(fromStore.equals(fromPostgres), 'the store\'s binary COPY is byte for byte PostgreSQL\'s');
      await theirs.query(`CREATE TABLE every_back (${PG_COLUMNS})`);
      await copyInBytes(theirs, 'COPY every_back FROM STDIN (FORMAT binary)', fromStore, 64);
      assert.equal(await copyOutText(theirs, 'COPY (SELECT * FROM every_back ORDER BY id) TO STDOUT'),
        await copyOutText(theirs, 'COPY (SELECT * FROM every_pg ORDER BY id) TO STDOUT'));
    });
  });
});
