// End to end: the PostgreSQL protocol of a real node process (tools/store-node.ts) with real
// clients: psql (Debian's postgresql-client, driven with -c and PGPASSWORD) and node-postgres
// (`pg`): connect with SCRAM, \dt, \d, \l, SELECT, INSERT, SQLSTATEs of errors, parameters of
// every store type, binary results, Execute with a row limit, cancel, TLS with a certificate
// made here, and a wrong password's 28P01.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { getStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';
import { msg, RawConnection, type BackendMessage } from './pg-raw-client.ts';

const PSQL_TIMEOUT_MS = 30_000;

function psql(node: NodeProcess, args: readonly string[], password = 'admin'):
  Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-X', '-h', '127.0.0.1', '-p', String(node.sqlPort), '-U', 'admin', '-d', 'public',
      '-v', 'ON_ERROR_STOP=1', ...args], {
      env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' }, timeout: PSQL_TIMEOUT_MS,
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function client(node: NodeProcess, extra: Partial<pg.ClientConfig> = {}): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
    database: 'public', application_name: 'pg-e2e', ...extra });
}

describe('PostgreSQL protocol end to end', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let db: pg.Client;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    db = client(node);
    await db.connect();
  });

  after(async () => {
    await db?.end().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('psql connects with a password, creates, inserts, selects and lists tables', async () => {
    const run = await psql(node, [
      '-c', 'CREATE TABLE cpu (ts TIMESTAMP PRIMARY KEY, host STRING, usage DOUBLE)',
      '-c', "INSERT INTO cpu VALUES (TIMESTAMP('2024-01-01T00:00:00Z'), 'h1', 0.5), " +
        "(TIMESTAMP('2024-01-01T00:00:01.250Z'), 'h2', 1.25)",
      '-c', 'SELECT host, usage, ts FROM cpu ORDER BY ts', '-c', 'CREATE INDEX cpu_host ON cpu (host)',
      '-c', '\\dt', '-c', '\\d cpu', '-c', '\\l', '-c', '\\conninfo', '-c', '\\di']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /INSERT 0 2/);
    assert.match(run.stdout, /h1\s+\|\s+0\.5\s+\|\s+2024-01-01 00:00:00\+00/);
    assert.match(run.stdout, /h2\s+\|\s+1\.25\s+\|\s+2024-01-01 00:00:01\.25\+00/);
    assert.match(run.stdout, /public \| cpu\s+\| table \| admin/);
    assert.match(run.stdout, /Table "public\.cpu"[\s\S]*ts\s+\| timestamp\(3\) with time zone[\s\S]*host\s+\| text[\s\S]*usage\s+\| double precision/);
    assert.doesNotMatch(run.stdout, /Inherits|child tables/);
    assert.match(run.stdout, /ts\s+\| timestamp\(3\) with time zone \|\s+\| not null \|/, run.stdout);
    // The row key is the primary key; psql reads both from pg_index and pg_constraint.
    assert.match(run.stdout, /Indexes:\n {4}"cpu_pkey" PRIMARY KEY, btree \(ts\)\n {4}"cpu_host" btree \(host\)\n/,
      run.stdout);
    assert.match(run.stdout, /public \| cpu_host\s+\| index \| admin \| cpu\n public \| cpu_pkey \| index \| admin \| cpu\n/,
      run.stdout);
    assert.match(run.stdout, /public \| admin \| UTF8/);
    assert.match(run.stdout, /connected to database "public" as user "admin"/);
  });

  it('psql shows the SQLSTATE of a syntax error, an unknown table and an unknown column', async () => {
    for (const [sql, state] of [['SELEC 1', '42601'], ['SELECT * FROM nowhere', '42P01'],
      ['SELECT nothing FROM cpu', '42703']] as const) {
      const run = await psql(node, ['-c', '\\set VERBOSITY verbose', '-c', sql]);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, new RegExp(`ERROR:  ${state}:`), run.stderr);
    }
  });

  it('psql with a wrong password gets 28P01', async () => {
    const run = await psql(node, ['-c', '\\set VERBOSITY verbose', '-c', 'SELECT 1'], 'wrong');
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /password authentication failed for user "admin"/);
  });

  it('pg: a wrong password is 28P01, and the node goes on serving', async () => {
    const bad = client(node, { password: 'wrong' });
    await assert.rejects(bad.connect(), (error: { code?: string }) => error.code === '28P01');
    assert.equal((await db.query('SELECT 1 AS one')).rows[0].one, '1');
  });

  it('pg: application_name is in "#sockets" and in the event log', async () => {
    const { rows } = await db.query('SELECT APPLICATION_NAME FROM "#sockets"');
    assert.ok(rows.some((row) => row.APPLICATION_NAME === 'pg-e2e'), JSON.stringify(rows));
    const log = readdirSync(join(home, 'log')).map((name) => readFileSync(join(home, 'log', name), 'utf8')).join('');
    assert.match(log, /"applicationName":"pg-e2e"[^\n]*"msg":"client connected"/);
  });

  it('pg: simple queries with several statements, and session functions', async () => {
    const results = await db.query('SELECT 1 AS a; SELECT 2 AS b') as unknown as pg.QueryResult[];
    assert.equal(results.length, 2);
    assert.equal(results[1]!.rows[0].b, '2');
    assert.match((await db.query('SELECT version()')).rows[0].version, /^15\.0 \(store /);
    assert.equal((await db.query("SELECT current_setting('application_name')")).rows[0].current_setting, 'pg-e2e');
    await db.query("SET search_path TO 'public'");
    assert.equal((await db.query('SHOW search_path')).rows[0].search_path, 'public');
  });

  it('pg: parameters of every type, read back in text and binary', async () => {
    await db.query('CREATE TABLE every (id LONG PRIMARY KEY, i INTEGER, s SHORT, y BYTE, f FLOAT, ' +
      'd DOUBLE, b BOOL, t STRING, ts TIMESTAMP, us TIMESTAMP(6), bl BLOB)');
    const insert = 'INSERT INTO every VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)';
    const when = new Date('2024-05-06T07:08:09.123Z');
    await db.query(insert, ['9007199254740993', 7, -3, 1, 1.5, 2.25, true, 'hé', when,
      '2024-05-06 07:08:09.123456+00', Buffer.from([0, 1, 255])]);
    await db.query(insert, ['2', null, null, null, 'NaN', 'Infinity', false, '', when, null, null]);
    await db.query(insert, ['3', null, null, null, null, '-Infinity', null, null, when, null, null]);
    // Without parameters pg sends a simple Query, whose results are text even with `binary`; binary
    // results are checked byte exact in 'binary results' below (pg 8.23 misreads them).
    for (const binary of [false, true]) {
      const { rows } = await db.query({ text: 'SELECT * FROM every ORDER BY id', binary } as pg.QueryConfig);
      assert.equal(rows.length, 3);
      const [two, three, big] = rows;
      assert.equal(String(big.id), '9007199254740993');
      assert.deepEqual([big.i, big.s, big.y, big.f, big.d, big.b, big.t], [7, -3, 1, 1.5, 2.25, true, 'hé']);
      assert.equal((big.ts as Date).toISOString(), '2024-05-06T07:08:09.123Z');
      assert.ok(Buffer.from([0, 1, 255]).equals(big.bl), `binary ${binary}`);
      assert.ok(Number.isNaN(two.f));
      assert.equal(two.d, Infinity);
      assert.equal(three.d, -Infinity);
      assert.equal(two.b, false);
      assert.equal(two.i, null);
    }
    const text = await db.query("SELECT us FROM every WHERE id = $1", ['9007199254740993']);
    assert.equal(text.rows[0].us.toISOString(), '2024-05-06T07:08:09.123Z');
    const raw = await db.query({ text: 'SELECT us FROM every WHERE id = 9007199254740993', types: {
      getTypeParser: () => (value: string) => value } });
    assert.equal(raw.rows[0].us, '2024-05-06 07:08:09.123456+00');
  });

  it('binary results: pg\'s binary parsers read the store client\'s values, in portions of 1,000 rows', async () => {
    await db.query('CREATE TABLE scan (id LONG PRIMARY KEY, host STRING, ts TIMESTAMP, us TIMESTAMP(6), d DOUBLE, ' +
      'f FLOAT, i INTEGER, s SHORT, y BYTE, b BOOL)');
    const doubles = [0.1 + 0.2, -0, NaN, Infinity, -Infinity, 1e300, 5e-324, 43.21890547857493];
    const rowCount = 2_500;
    const rowsPerInsert = 100;
    for (let from = 0; from < rowCount; from += rowsPerInsert) {
      const values: unknown[] = [];
      const tuples: string[] = [];
      for (let r = from; r < from + rowsPerInsert; r++) {
        const at = values.length;
        tuples.push(`(${Array.from({ length: 10 }, (_v, c) => `$${at + c + 1}`).join(', ')})`);
        const nulls = r % 7 === 3;
        values.push(String(r), `h${r % 3}é`, new Date(Date.UTC(2000, 0, 1) + r * 1_234_567_891 + (r % 1000)),
          nulls ? null : `2016-01-01 00:00:00.${String(r).padStart(6, '0')}+00`, nulls ? null : String(doubles[r % doubles.length]),
          nulls ? null : String(r / 8), nulls ? null : -r * 1000, nulls ? null : r - 1250, nulls ? null : (r % 256) - 128,
          nulls ? null : r % 2 === 0);
      }
      await db.query(`INSERT INTO scan VALUES ${tuples.join(', ')}`, values);
    }
    const select = 'SELECT * FROM scan ORDER BY id';
    // node-postgres 8.23 reads every DataRow cell as UTF-8 text, binary ones too (brianc/node-postgres
    // #3495): its `binary: true` gets bytes ≥ 0x80 replaced. So the cells are read here, byte exact,
    // and given to pg's own binary parsers (pg-types), as a fixed pg would; doubles as IEEE bits.
    const raw = await RawConnection.open(node.sqlPort);
    await raw.login('admin', 'admin');
    // Execute with a row limit of 1,000: three portions, each a page of its own.
    raw.send(Buffer.concat([msg.parse('', select), msg.bind('', '', [], [1]), msg.describe('P', ''),
      msg.execute('', 1000), msg.flush()]));
    const messages: BackendMessage[] = [];
    for (let message = await raw.next(); message !== undefined; message = await raw.next()) {
      messages.push(message);
      if (message.type === 'C' || message.type === 'E') break;
      if (message.type === 's') raw.send(Buffer.concat([msg.execute('', 1000), msg.flush()]));
    }
    raw.send(msg.sync());
    messages.push(...await raw.until('Z'));
    raw.end();
    assert.equal(messages.filter((m) => m.type === 's').length, 2, 'two PortalSuspended');
    const description = messages.find((m) => m.type === 'T')!.body;
    const oids: number[] = [];
    let at = 2;
    for (let c = 0; c < description.readInt16BE(0); c++) {
      at = description.indexOf(0, at) + 1;
      oids.push(description.readInt32BE(at + 6));
      assert.equal(description.readInt16BE(at + 16), 1, 'binary format');
      at += 18;
    }
    const binaryRows = messages.filter((m) => m.type === 'D').map(({ body }) => {
      let offset = 2;
      return oids.map((oid) => {
        const size = body.readInt32BE(offset);
        offset += 4;
        if (size < 0) return null;
        const cell = body.subarray(offset, offset + size);
        offset += size;
        // pg-types' float parsers misread NaN (as Infinity), -0 and subnormals (as 0): the IEEE bits.
        if (oid === 701) return cell.readDoubleBE(0);
        if (oid === 700) return cell.readFloatBE(0);
        return pg.types.getTypeParser(oid, 'binary')(cell as never) as unknown;
      });
    });
    const store = getStore({ notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'pg-e2e-binary' });
    try {
      const own = await (await store.sql(select)).toArray();
      const text = (await db.query(select)).rows;
      assert.equal(binaryRows.length, rowCount);
      assert.equal(own.length, rowCount);
      for (let r = 0; r < rowCount; r++) {
        const [id, host, ts, us, d, f, i, s, y, b] = own[r]!;
        const [bId, bHost, bTs, bUs, ...rest] = binaryRows[r]!;
        // int8 is a string in pg (text and binary alike); a timestamptz a Date of its ms.
        assert.deepEqual([bId, bHost, (bTs as Date).getTime(), ...rest], [String(id), host, ts, d, f, i, s, y, b], `row ${r}`);
        assert.equal(bUs === null ? null : (bUs as Date).getTime(), us === null ? null : Number(BigInt(us as bigint) / 1000n));
        assert.ok(Object.is(rest[0], d), `row ${r}: -0 kept`);
        // The same values as pg gives for the text format.
        const times = (row: unknown[]) => row.map((v) => (v instanceof Date ? v.getTime() : v));
        assert.deepEqual(times(binaryRows[r]!), times(Object.values(text[r])), `row ${r} text`);
      }
    } finally {
      await store.close();
    }
  });

  it('pg: errors carry SQLSTATEs and the connection goes on', async () => {
    await assert.rejects(db.query('SELECT * FROM nowhere WHERE x = $1', [1]), { code: '42P01' });
    await assert.rejects(db.query('SELEC $1', [1]), { code: '42601' });
    await assert.rejects(db.query("SELECT id + 'x' FROM every"), (e: { code?: string }) => e.code === '42804');
    await db.query('BEGIN');
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM every')).rows[0].n, '3');
    await assert.rejects(db.query('INSERT INTO cpu VALUES (NOW(), $1, 1)', ['h']), { code: '0A000' });
    await assert.rejects(db.query('SELECT 1'), { code: '25P02' });
    await db.query('ROLLBACK');
    assert.equal((await db.query('SELECT COUNT(*) AS n FROM every')).rows[0].n, '3');
  });

  it('pg: Execute with a row limit suspends the portal and resumes it', async () => {
    for (let i = 0; i < 50; i++) {
      await db.query('INSERT INTO cpu VALUES ($1, $2, $3)', [new Date(Date.UTC(2024, 1, 1, 0, 0, i)), 'r', i]);
    }
    const rows: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const query = new pg.Query({ text: 'SELECT usage FROM cpu WHERE host = $1 ORDER BY ts', values: ['r'],
        rows: 7 } as pg.QueryConfig);
      query.on('row', (row: { usage: number }) => rows.push(row.usage));
      query.on('end', () => resolve());
      query.on('error', reject);
      db.query(query);
    });
    assert.deepEqual(rows, Array.from({ length: 50 }, (_v, i) => i));
  });

  it('pg: TLS with a configured certificate, SCRAM inside it', async () => {
    const certificate = selfSignedCertificate();
    writeFileSync(join(home, 'conf', 'server.crt'), certificate.cert);
    writeFileSync(join(home, 'conf', 'server.key'), certificate.key);
    const tlsHome = newNodeHome({ sql: { servicePort: 0, pgTlsCertificatePath: join(home, 'conf', 'server.crt'),
      pgTlsKeyPath: join(home, 'conf', 'server.key') } });
    const tlsNode = await startNodeProcess(tlsHome);
    try {
      const secure = client(tlsNode, { ssl: { rejectUnauthorized: false } });
      await secure.connect();
      assert.equal((await secure.query('SELECT 40 + 2 AS answer')).rows[0].answer, '42');
      await secure.end();
      const plain = client(node, { ssl: { rejectUnauthorized: false } });
      await assert.rejects(plain.connect(), /does not support SSL/);
      const run = await psql(tlsNode, ['-c', 'SELECT 1'], 'admin');
      assert.equal(run.code, 0, run.stderr);
    } finally {
      await tlsNode.kill();
      removeHome(tlsHome);
    }
  });
});

/** A self-signed certificate for 127.0.0.1, made with openssl. */
function selfSignedCertificate(): { cert: string; key: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyPath = join(mkdtempSync(join(tmpdir(), 'pg-tls-')), 'server.key');
  writeFileSync(keyPath, key);
  const cert = execFileSync('openssl', ['req', '-new', '-x509', '-key', keyPath, '-days', '1',
    '-subj', '/CN=127.0.0.1']).toString();
  rmSync(join(keyPath, '..'), { recursive: true, force: true });
  return { cert, key };
}

describe('PostgreSQL protocol: CancelRequest', { timeout: 120_000 }, () => {
  let home: string;
  let node: NodeProcess;

  before(async () => {
    // The RANGE below holds its 950,401 groups in work memory.
    home = newNodeHome({ dataStore: { logWriteMode: 0 }, sql: { servicePort: 0, workMemoryLimit: '512MB' } });
    node = await startNodeProcess(home);
  });

  after(async () => {
    await node?.kill();
    removeHome(home);
  });

  it('cancels a running SELECT between its pages with 57014, and the connection serves on', async () => {
    const db = client(node);
    await db.connect();
    await db.query('CREATE TABLE r (ts TIMESTAMP PRIMARY KEY, v LONG)');
    await db.query("INSERT INTO r VALUES (TIMESTAMP('2024-01-01T00:00:00Z'), 1)");
    const { processID, secretKey } = db as unknown as { processID: number; secretKey: number };
    const stream = (db as unknown as { connection: { stream: { pause(): void; resume(): void } } }).connection.stream;
    let cancelled = false;
    const error = await new Promise<{ code?: string }>((resolve) => {
      // 950,401 rows of about 40 bytes, more than the socket's buffers and the node's reply queue
      // hold: the node is still sending pages when the cancel arrives, as the client reads none
      // until the node has taken the cancel (its cancel connection is closed).
      const query = new pg.Query("SELECT ts, MAX(v) FROM r WHERE ts BETWEEN TIMESTAMP('2024-01-01T00:00:00Z') " +
        "AND TIMESTAMP('2024-01-12T00:00:00Z') GROUP BY RANGE(ts) EVERY(1, SECOND) FILL(NULL)");
      query.on('row', () => {
        if (cancelled) return;
        cancelled = true;
        stream.pause();
        void sendCancel(node.sqlPort, processID, secretKey).then(() => stream.resume());
      });
      query.on('error', (e: Error) => resolve(e as { code?: string }));
      query.on('end', () => resolve({}));
      db.query(query);
    });
    assert.equal(error.code, '57014');
    assert.equal((await db.query('SELECT COUNT(*) AS c FROM r')).rows[0].c, '1');
    await db.end();
  });
});

/** A CancelRequest on a connection of its own, as libpq sends it. */
async function sendCancel(port: number, processId: number, secretKey: number): Promise<void> {
  const { connect } = await import('node:net');
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80_877_102, 4);
  message.writeInt32BE(processId, 8);
  message.writeInt32BE(secretKey, 12);
  await new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(message));
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}
