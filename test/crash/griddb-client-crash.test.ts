// A crash under GridDB's own C client: writer processes (griddb-crash-writer.c, built against the
// client from ../shared/vendor by test/support/griddb-c-client.ts) put rows into a real node
// process with logWriteMode 0 and print every row the node acknowledged. The node is SIGKILLed
// ROUND_COUNT times at random moments (by the pid in GS_HOME/conf/store.pid), left down a moment,
// and started again on the same ports with gs_startnode -w; the writers are never restarted: the
// C client's own failover (failoverTimeout 60 s) reconnects and retries. After each restart every
// writer must acknowledge more rows (so the failover did reconnect), and at the end every row
// acknowledged to a C program must be in the node, read back through store's own client.
//
// Bounded: the writers stop by themselves after WRITER_SECONDS_MAX and are SIGKILLed by pid at
// the end, and a node left running by a failure is SIGKILLed by its pid; each wait has its own
// limit. Seen red: a node that answered one PUT_ROW in 50 without writing it ("writer 0 lost 9 of
// 4820 acknowledged rows"), and one that forgot container ids at a restart (the writers' retries
// failed with TXN_CONTAINER_NOT_FOUND).
// Skips with the reason where the C client cannot be built (no source or build tools).

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { processAlive } from '../../tools/store-node-process.ts';
import { compileProgram, griddbCClient } from '../support/griddb-c-client.ts';
import { Prng } from '../sim/prng.ts';
import { freePorts, newNodeHome, removeHome, runTool } from '../unit/node/node-process.ts';

const WRITER_C = fileURLToPath(new URL('griddb-crash-writer.c', import.meta.url));
const ROUND_COUNT = 4;
const WRITER_COUNT = 3;
/** The writers' own bound, should the test not end them. */
const WRITER_SECONDS_MAX = 240;
/** How long a writer may take to acknowledge its next row after a (re)start of the node. */
const PROGRESS_MS_MAX = 60_000;
const SEED = Number(process.env['STORE_CRASH_SEED'] ?? 20261126);
/** Writer w's rows are seq w × SEQ_SPAN onwards, in container griddb_crash_<w>. */
const SEQ_SPAN = 10_000_000;

class Writer {
  readonly acknowledged = new Set<number>();
  private stderr = '';
  private pending = '';
  private readonly exited: Promise<void>;

  constructor(readonly index: number, private readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.pending + chunk).split('\n');
      this.pending = lines.pop()!;
      for (const line of lines) {
        const match = /^ack (\d+)$/.exec(line);
        if (match !== null) this.acknowledged.add(Number(match[1]));
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { this.stderr += chunk; });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Fails the test when the writer has ended on its own (a put failed for good). */
  checkRunning(): void {
    assert.equal(this.child.exitCode, null,
      `writer ${this.index} exited with ${this.child.exitCode}: ${this.stderr}`);
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      process.kill(this.child.pid!, 'SIGKILL');
    }
    await this.exited;
  }
}

async function tool(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const result = await runTool(name, args, env);
  if (result.code !== 0) throw new Error(`${name}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** Waits until every writer has acknowledged more rows than `counts` says it had. */
async function progressed(writers: readonly Writer[], counts: readonly number[]): Promise<void> {
  const deadline = performance.now() + PROGRESS_MS_MAX;
  for (const writer of writers) {
    while (writer.acknowledged.size <= counts[writer.index]!) {
      writer.checkRunning();
      assert.ok(performance.now() < deadline, `writer ${writer.index} acknowledged nothing ` +
        `within ${PROGRESS_MS_MAX} ms of the node's start`);
      await sleep(50);
    }
  }
}

async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 200 && processAlive(pid); i++) await sleep(50);
  if (processAlive(pid)) throw new Error(`process ${pid} did not exit`);
}

async function verify(client: ClientStore, writers: readonly Writer[]): Promise<void> {
  for (const writer of writers) {
    const container = await client.getContainer(`griddb_crash_${writer.index}`);
    assert.ok(container !== undefined, `griddb_crash_${writer.index} is gone`);
    const rows = await (await container.query('SELECT *').fetch()).toArray();
    const present = new Set(rows.map((row) => Number(row[0])));
    const missing = [...writer.acknowledged].filter((seq) => !present.has(seq));
    assert.deepEqual(missing.slice(0, 10), [],
      `writer ${writer.index} lost ${missing.length} of ${writer.acknowledged.size} acknowledged rows`);
  }
}

describe('crash under GridDB\'s C client', { timeout: 480_000 }, () => {
  const home = newNodeHome();
  const writers: Writer[] = [];
  /** Set once gs_stopnode has stopped the node: after that its pid may be anyone's. */
  let nodeStopped = false;
  after(async () => {
    for (const writer of writers) await writer.kill();
    const pidPath = join(home, 'conf', 'store.pid');
    if (!nodeStopped && existsSync(pidPath)) {
      const pid = Number(readFileSync(pidPath, 'utf8'));
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
      await waitGone(pid);
    }
    removeHome(home);
  });

  it(`keeps every row acknowledged to the C client through ${ROUND_COUNT} SIGKILLs, ` +
    'and the client\'s failover reconnects', async (t) => {
    const client = await griddbCClient();
    if ('skip' in client) return t.skip(client.skip);
    const program = await compileProgram(client, WRITER_C);
    const [system, transaction, sql, clusterPort, sync] = await freePorts(5);
    writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify({
      dataStore: { logWriteMode: 0 }, checkpoint: { checkpointInterval: '1s' },
      system: { servicePort: system }, transaction: { servicePort: transaction },
      sql: { servicePort: sql }, cluster: { servicePort: clusterPort }, sync: { servicePort: sync },
    }));
    const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
    const random = new Prng(SEED);
    await tool('gs_startnode.ts', ['-u', 'admin/admin', '-w', '60'], env);
    for (let w = 0; w < WRITER_COUNT; w++) {
      writers.push(new Writer(w, spawn(program, [String(transaction), 'myCluster',
        `griddb_crash_${w}`, String(w * SEQ_SPAN), String(WRITER_SECONDS_MAX)],
      { stdio: ['ignore', 'pipe', 'pipe'] })));
    }
    await progressed(writers, writers.map(() => 0));
    for (let round = 0; round < ROUND_COUNT; round++) {
      await sleep(300 + random.nextIndex(1200));
      const pid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
      await waitGone(pid);
      // Rows acknowledged until now; the client retries while the node is down.
      const counts = writers.map((writer) => writer.acknowledged.size);
      await sleep(random.nextIndex(1000));
      await tool('gs_startnode.ts', ['-u', 'admin/admin', '-w', '60'], env);
      await progressed(writers, counts);
    }
    for (const writer of writers) {
      writer.checkRunning();
      await writer.kill();
    }
    const checker = getStore({
      notificationMember: `127.0.0.1:${transaction}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      await verify(checker, writers);
    } finally {
      await checker.close();
    }
    const total = writers.reduce((sum, writer) => sum + writer.acknowledged.size, 0);
    assert.ok(total > 100, `only ${total} rows were acknowledged: the test wrote too little`);
    await tool('gs_stopnode.ts', ['-u', 'admin/admin', '-s', `127.0.0.1:${system}`, '-w', '60'], env);
    nodeStopped = true;
  });
});
