// End to end: COPY over the PostgreSQL protocol of a real node process, with psql's \copy (in
// and out, CSV with a header) and pg-copy-streams (every store type with NULLs and edge values in
// text and CSV, both ways; COPY (query) TO STDOUT; a malformed line's SQLSTATE and the line it
// names; a COPY over several batches that fails late leaves exactly its earlier batches).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { PG_COPY_BATCH_ROW_COUNT } from '../../../lib/pgwire/pg-copy.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

const PSQL_TIMEOUT_MS = 60_000;

function psql(node: NodeProcess, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-X', '-h', '127.0.0.1', '-p', String(node.sqlPort), '-U', 'admin', '-d', 'public',
      '-v', 'ON_ERROR_STOP=1', ...args], {
      env: { ...process.env, PGPASSWORD: 'admin', PGCONNECT_TIMEOUT: '10' }, timeout: PSQL_TIMEOUT_MS,
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

async function copyIn(db: pg.Client, sql: string, chunks: readonly string[]): Promise<void> {
  await pipeline(Readable.from(chunks.map((chunk) => Buffer.from(chunk, 'utf8'))), db.query(copyFrom(sql)));
}

async function copyOut(db: pg.Client, sql: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of db.query(copyTo(sql))) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Cuts text into pieces of `size` bytes, splitting lines and UTF-8 characters across CopyData. */
function pieces(text: string, size: number): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.subarray(at, at + size));
  return out.map((piece) => piece.toString('latin1'));
}

async function copyInBytes(db: pg.Client, sql: string, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.subarray(at, at + size));
  await pipeline(Readable.from(out), db.query(copyFrom(sql)));
}

// Every store type, in PostgreSQL's text format: extremes, NaN and infinities, escapes, an empty
// string (not NULL), a multi-byte string, and a row of NULLs. COPY TO writes these lines back.
const EVERY_COLUMNS = 'id LONG PRIMARY KEY, i INTEGER, s SHORT, y BYTE, f FLOAT, d DOUBLE, b BOOL, ' +
  't STRING, ts TIMESTAMP, us TIMESTAMP(6), ns TIMESTAMP(9), bl BLOB';
const EVERY_TEXT = [
  '-9223372036854775808\t-2147483648\t-32768\t-128\tNaN\t-Infinity\tf\t\t1970-01-01 00:00:00+00\t' +
    '1970-01-01 00:00:00.000001+00\t1970-01-01 00:00:00.000000001+00\t\\\\x',
  '3\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t2024-01-01 00:00:00+00\t\\N\t\\N\t\\N',
  '9223372036854775807\t2147483647\t32767\t127\t3.4028235e+38\t1.7976931348623157e+308\tt\t' +
    'tab\\there\\nnew line \\\\ back, "quoted" é日本\t9999-12-31 23:59:59.999+00\t2024-05-06 07:08:09.123456+00\t' +
    '2024-05-06 07:08:09.123456789+00\t\\\\x00ff10',
].map((line) => `${line}\n`).join('');
const EVERY_CSV = [
  '-9223372036854775808,-2147483648,-32768,-128,NaN,-Infinity,f,"",1970-01-01 00:00:00+00,' +
    '1970-01-01 00:00:00.000001+00,1970-01-01 00:00:00.000000001+00,\\x',
  '3,,,,,,,,2024-01-01 00:00:00+00,,,',
  '9223372036854775807,2147483647,32767,127,3.4028235e+38,1.7976931348623157e+308,t,' +
    '"tab\there\nnew line \\ back, ""quoted"" é日本",9999-12-31 23:59:59.999+00,2024-05-06 07:08:09.123456+00,' +
    '2024-05-06 07:08:09.123456789+00,\\x00ff10',
].map((line) => `${line}\n`).join('');

describe('COPY over the PostgreSQL protocol', { timeout: 300_000 }, () => {
  let home: string;
  let files: string;
  let node: NodeProcess;
  let db: pg.Client;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    files = mkdtempSync(join(tmpdir(), 'store-copy-'));
    node = await startNodeProcess(home);
    db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin', database: 'public' });
    await db.connect();
  });

  after(async () => {
    await db?.end().catch(() => undefined);
    await node?.kill();
    removeHome(home);
    rmSync(files, { recursive: true, force: true });
  });

  it('pg-copy-streams: every type in text format, in and out, byte for byte', async () => {
    await db.query(`CREATE TABLE every_text (${EVERY_COLUMNS})`);
    await copyInBytes(db, 'COPY every_text FROM STDIN', EVERY_TEXT, 7);
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM every_text')).rows[0].n, '3');
    const nullRow = (await db.query('SELECT * FROM every_text WHERE id = 3')).rows[0];
    assert.equal(nullRow.t, null);
    assert.equal(nullRow.i, null);
    const empty = (await db.query('SELECT t FROM every_text WHERE id < 0')).rows[0];
    assert.equal(empty.t, '');
    assert.equal(await copyOut(db, 'COPY (SELECT * FROM every_text ORDER BY id) TO STDOUT'), EVERY_TEXT);
    assert.equal((await copyOut(db, 'COPY every_text (id, t) TO STDOUT WITH (FORMAT csv, HEADER)'))
      .split('\n')[0], 'id,t');
  });

  it('pg-copy-streams: every type in CSV, in and out, byte for byte', async () => {
    await db.query(`CREATE TABLE every_csv (${EVERY_COLUMNS})`);
    await copyInBytes(db, "COPY every_csv FROM STDIN WITH (FORMAT csv, HEADER true, NULL '')",
      `${'id,i,s,y,f,d,b,t,ts,us,ns,bl'}\n${EVERY_CSV}`, 5);
    assert.equal(await copyOut(db, 'COPY (SELECT * FROM every_csv ORDER BY id) TO STDOUT WITH CSV'), EVERY_CSV);
    // the same rows as text: the two formats read the same values
    assert.equal(await copyOut(db, 'COPY (SELECT * FROM every_csv ORDER BY id) TO STDOUT'), EVERY_TEXT);
  });

  it('options: a column list, DELIMITER, NULL, QUOTE and ESCAPE', async () => {
    await db.query('CREATE TABLE opts (k INTEGER PRIMARY KEY, a STRING, b DOUBLE)');
    await copyIn(db, "COPY opts (k, b, a) FROM STDIN WITH DELIMITER AS '|' NULL AS 'nil'", ['1|2.5|x\\|y\n2|nil|nil\n']);
    await copyIn(db, "COPY opts (a, k) FROM STDIN (FORMAT csv, DELIMITER ';', QUOTE '''', ESCAPE '\\')", ["'it\\'s; ok';3\n"]);
    const { rows } = await db.query('SELECT k, a, b FROM opts ORDER BY k');
    assert.deepEqual(rows, [{ k: 1, a: 'x|y', b: 2.5 }, { k: 2, a: null, b: null }, { k: 3, a: "it's; ok", b: null }]);
  });

  it('a malformed line is 22P02 or 22P04 naming its line; the connection goes on', async () => {
    await db.query('CREATE TABLE bad (k INTEGER PRIMARY KEY, v DOUBLE)');
    for (const [text, state, where] of [
      ['1\t1.5\n2\tabc\n', '22P02', /COPY bad, line 2, column v: "abc"/],
      ['1\t1.5\n\n', '22P04', /COPY bad, line 2, column v/],
      ['1\t1.5\t9\n', '22P04', /COPY bad, line 1/],
      ['99999999999\t1\n', '22003', /COPY bad, line 1, column k/],
    ] as const) {
      await assert.rejects(copyIn(db, 'COPY bad FROM STDIN', [text]), (error: { code?: string; where?: string }) => {
        assert.equal(error.code, state);
        assert.match(error.where ?? '', where);
        return true;
      });
    }
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM bad')).rows[0].n, '0');
    await assert.rejects(copyIn(db, 'COPY nowhere FROM STDIN', ['1\n']), (error: { code?: string }) => error.code === '42P01');
    await assert.rejects(copyIn(db, "COPY bad FROM '/etc/passwd'", []), (error: { code?: string }) => error.code === '0A000');
    assert.equal((await db.query('SELECT 1 AS one')).rows[0].one, '1');
  });

  it('a COPY that fails after two batches leaves exactly those two batches written', async () => {
    await db.query('CREATE TABLE many (k INTEGER PRIMARY KEY, v DOUBLE)');
    const good = PG_COPY_BATCH_ROW_COUNT * 2 + PG_COPY_BATCH_ROW_COUNT / 2;
    const lines = Array.from({ length: good }, (_v, i) => `${i}\t${i / 2}\n`);
    await assert.rejects(copyIn(db, 'COPY many FROM STDIN', [...pieces(lines.join(''), 65_536), 'x\t1\n']),
      (error: { code?: string; where?: string; detail?: string }) => {
        assert.equal(error.code, '22P02');
        assert.match(error.where ?? '', new RegExp(`line ${good + 1}, column k`));
        assert.match(error.detail ?? '', new RegExp(`^${PG_COPY_BATCH_ROW_COUNT * 2} rows of this COPY were written`));
        return true;
      });
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM many')).rows[0].n, String(PG_COPY_BATCH_ROW_COUNT * 2));
    await copyIn(db, 'COPY many FROM STDIN', pieces(lines.join(''), 65_536));
    assert.equal((await db.query('SELECT COUNT(*) AS n, MAX(v) AS m FROM many')).rows[0].n, String(good));
    const out = await copyOut(db, 'COPY (SELECT k, v FROM many ORDER BY k) TO STDOUT');
    assert.equal(out, lines.join(''));
  });

  it('psql \\copy in from a CSV file with a header, and out to a file', async () => {
    await db.query('CREATE TABLE cpu_copy (ts TIMESTAMP PRIMARY KEY, host STRING, usage DOUBLE)');
    const input = join(files, 'in.csv');
    writeFileSync(input, 'ts,host,usage\n2024-01-01 00:00:00+00,h1,0.5\n2024-01-01 00:00:01.25+00,"h,2",\n');
    const output = join(files, 'out.csv');
    const run = await psql(node, [
      '-c', `\\copy cpu_copy from '${input}' with (format csv, header)`,
      '-c', `\\copy (SELECT * FROM cpu_copy ORDER BY ts) to '${output}' with csv header`,
      '-c', '\\copy cpu_copy (host) to stdout']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /COPY 2/);
    assert.match(run.stdout, /h1\nh,2\n/);
    assert.equal(readFileSync(output, 'utf8'),
      'ts,host,usage\n2024-01-01 00:00:00+00,h1,0.5\n2024-01-01 00:00:01.25+00,"h,2",\n');
  });
});
