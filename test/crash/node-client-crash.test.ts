// A crash through the client: several clients write to a real node process (logWriteMode 0, so an
// acknowledged write is durable); the node is SIGKILLed at a random moment (by the pid in
// GS_HOME/conf/store.pid) and started again with gs_startnode -w. Every acknowledged row must be
// there after each restart. Bounded: a few rounds of about a second of writing each.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { processAlive } from '../../tools/store-node-process.ts';
import { Prng } from '../sim/prng.ts';
import { freePorts, newNodeHome, removeHome, runTool } from '../unit/node/node-process.ts';

const ROUND_COUNT = 4;
const WRITER_COUNT = 4;
const SEED = Number(process.env['STORE_CRASH_SEED'] ?? 20261121);

async function tool(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const result = await runTool(name, args, env);
  if (result.code !== 0) throw new Error(`${name}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

describe('crash through the client', { timeout: 300_000 }, () => {
  const [home] = [newNodeHome()];
  after(() => removeHome(home));

  it(`keeps every acknowledged row through ${ROUND_COUNT} SIGKILLs`, async () => {
    const [system, transaction, sql, cluster, sync] = await freePorts(5);
    writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify({
      dataStore: { logWriteMode: 0 }, checkpoint: { checkpointInterval: '1s' },
      system: { servicePort: system }, transaction: { servicePort: transaction },
      sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
    }));
    const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
    const random = new Prng(SEED);
    const acknowledged = Array.from({ length: WRITER_COUNT }, () => new Set<number>());
    const connect = () => getStore({
      notificationMember: `127.0.0.1:${transaction}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 5000,
    });
    for (let round = 0; round < ROUND_COUNT; round++) {
      await tool('gs_startnode.ts', ['-u', 'admin/admin', '-w', '60'], env);
      const checker = connect();
      await verify(checker, acknowledged);
      const clients = Array.from({ length: WRITER_COUNT }, connect);
      let stop = false;
      const writers = clients.map(async (client, w) => {
        const container = await client.putContainer({
          name: `crash_${w}`, type: 'COLLECTION', rowKey: true,
          columns: [{ name: 'seq', type: 'INTEGER' }, { name: 'round', type: 'INTEGER' }],
        });
        let seq = Math.max(-1, ...acknowledged[w]!) + 1;
        while (!stop) {
          const batch = seq % 3 === 0 ? 20 : 1;
          const rows = Array.from({ length: batch }, (_, i) => [seq + i, round]);
          try {
            if (batch === 1) await container.put(rows[0]!);
            else await container.multiPut(rows);
          } catch {
            return; // the node is gone
          }
          for (let i = 0; i < batch; i++) acknowledged[w]!.add(seq + i);
          seq += batch;
        }
      });
      await sleep(400 + random.nextIndex(1200));
      const pid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
      stop = true;
      await Promise.all(writers);
      await Promise.all([checker, ...clients].map((client) => client.close().catch(() => undefined)));
      await waitGone(pid);
    }
    await tool('gs_startnode.ts', ['-u', 'admin/admin', '-w', '60'], env);
    const checker = connect();
    await verify(checker, acknowledged);
    const total = acknowledged.reduce((sum, set) => sum + set.size, 0);
    assert.ok(total > 100, `only ${total} rows were acknowledged: the test wrote too little`);
    await checker.close();
    await tool('gs_stopnode.ts', ['-u', 'admin/admin', '-s', `127.0.0.1:${system}`, '-w', '60'], env);
  });
});

async function verify(client: ClientStore, acknowledged: ReadonlyArray<Set<number>>): Promise<void> {
  for (let w = 0; w < acknowledged.length; w++) {
    if (acknowledged[w]!.size === 0) continue;
    const container = await client.getContainer(`crash_${w}`);
    assert.ok(container !== undefined, `crash_${w} is gone`);
    const rows = await (await container.query('SELECT *').fetch()).toArray();
    const present = new Set(rows.map((row) => Number(row[0])));
    const missing = [...acknowledged[w]!].filter((seq) => !present.has(seq));
    assert.deepEqual(missing.slice(0, 10), [], `writer ${w} lost ${missing.length} acknowledged rows`);
  }
}

async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && processAlive(pid); i++) await sleep(50);
  if (processAlive(pid)) throw new Error(`process ${pid} did not exit`);
}
