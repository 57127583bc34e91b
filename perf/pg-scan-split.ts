// Where a large scan's time through the PostgreSQL port goes: the scan-2-hosts query of
// `npm run bench -- pgwire` (17,280 TSBS rows, 12 columns) run against one node process by
//
//   pg        node-postgres as it comes (simple query, text results; pg-types parse every cell)
//   pg-raw    the same pg client with every type parser the identity (cells stay strings)
//   bytes     the same connection's socket read by a byte counter, no parsing: the node's side alone
//   store     the store client's store.sql(…).toArray()
//
// alternating, RUNS rounds, medians of wall time, this process's CPU and the node's CPU (10 ms
// ticks, so summed over the rounds and divided). `node --import tsx perf/pg-scan-split.ts [runs]`
// after `npm run build` (the node runs as dist); BENCH_CPU_PROF_DIR profiles the node.

import { join } from 'node:path';
import pg from 'pg';
import { getStore } from '../lib/client/store-factory.ts';
import { withTempHome } from './bench-files.ts';
import { loadAverage1m } from './bench-meta.ts';
import { withNodeProcess } from './node-process.ts';
import { ownCpuMs, processCpuMs } from './process-cpu.ts';
import { median, timeAsyncMs } from './stats.ts';
import { TSBS_CPU_FIELDS, tsbsDataset } from './tsbs.ts';

const RUNS = Number(process.argv[2] ?? 15);
const HOST_COUNT = 2;

/** The simple Query message of `text`, and the bytes up to ReadyForQuery counted without parsing. */
function rawQuery(socket: import('node:net').Socket, text: string): Promise<number> {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const message = Buffer.alloc(5 + body.length);
  message[0] = 0x51;
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  const listeners = socket.listeners('data') as Array<(chunk: Buffer) => void>;
  socket.removeAllListeners('data');
  return new Promise((resolve) => {
    let total = 0;
    let last = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      total += chunk.length;
      last = Buffer.concat([last, chunk]).subarray(-6);
      // ReadyForQuery: 'Z' int32 5 status, the last message of the answer.
      if (last.length === 6 && last[0] === 0x5a && last.readInt32BE(1) === 5) {
        socket.removeAllListeners('data');
        for (const listener of listeners) socket.on('data', listener);
        resolve(total);
      }
    });
    socket.write(message);
  });
}

await withTempHome('pg-scan-split', (root) => withNodeProcess(join(root, 'node'), { logWriteMode: 1 }, async (node) => {
  const dataset = tsbsDataset({ hostCount: HOST_COUNT, durationMs: 86_400_000, intervalMs: 10_000,
    batchRowCountMax: 5000, seed: 20_160_101 });
  const store = getStore({ ...node.storeProperties, applicationName: 'pg-scan-split' });
  const connect = async (config: Partial<pg.ClientConfig> = {}) => {
    const client = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
      database: 'public', ...config });
    await client.connect();
    return client;
  };
  const db = await connect();
  const dbRaw = await connect({ types: { getTypeParser: () => (x: string) => x } } as pg.ClientConfig);
  const dbBytes = await connect();
  try {
    await db.query(`CREATE TABLE cpu (hostname STRING, ts TIMESTAMP, ${TSBS_CPU_FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, ` +
      'PRIMARY KEY (hostname, ts))');
    const table = (await store.getContainer('cpu'))!;
    for (const batch of dataset.batches) {
      const host = dataset.hosts[batch.hostIndex]!.tags['hostname']!;
      await table.multiPut(batch.rows.map((row) => [host, ...row] as never));
    }
    const hosts = dataset.hosts.map((h) => `'${h.tags['hostname']!}'`).join(', ');
    const text = `SELECT * FROM cpu WHERE hostname IN (${hosts})`;
    const socket = (dbBytes as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream;
    const sides = {
      pg: async () => (await db.query(text)).rows.length,
      'pg-raw': async () => (await dbRaw.query(text)).rows.length,
      bytes: async () => rawQuery(socket, text),
      store: async () => (await (await store.sql(text)).toArray()).length,
    };
    type Side = keyof typeof sides;
    const names = Object.keys(sides) as Side[];
    const wall: Record<string, number[]> = {};
    const client: Record<string, number[]> = {};
    const nodeCpu: Record<string, number> = {};
    const answer: Record<string, number> = {};
    for (const name of names) {
      wall[name] = [];
      client[name] = [];
      nodeCpu[name] = 0;
      await sides[name]();
    }
    const load = loadAverage1m();
    for (let i = 0; i < RUNS; i++) {
      for (const name of names) {
        const nodeBefore = processCpuMs(node.pid)!;
        const before = ownCpuMs();
        wall[name]!.push(await timeAsyncMs(async () => { answer[name] = await sides[name](); }));
        client[name]!.push(ownCpuMs() - before);
        nodeCpu[name]! += processCpuMs(node.pid)! - nodeBefore;
      }
    }
    console.log(`${text.slice(0, 40)}…, ${RUNS} rounds, load ${load.toFixed(1)} → ${loadAverage1m().toFixed(1)}`);
    for (const name of names) {
      console.log(`  ${name.padEnd(7)} ${median(wall[name]!).toFixed(1).padStart(6)} ms wall, client CPU ` +
        `${median(client[name]!).toFixed(1).padStart(5)} ms, node CPU ${(nodeCpu[name]! / RUNS).toFixed(1).padStart(5)} ms ` +
        `(answer ${answer[name]})`);
    }
  } finally {
    await db.end();
    await dbRaw.end();
    await dbBytes.end();
    await store.close();
  }
}));
