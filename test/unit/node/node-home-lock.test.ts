// Two nodes on one GS_HOME (issue 12, point 5): real node processes. The second start, on ports of
// its own (port 0), as a node in another network namespace or container would be, must exit 3
// naming the first's pid and leave every file of the home as it was, while the first keeps
// serving; gs_startnode says the same even when the pid file names a pid it cannot see (another
// PID namespace). After a SIGKILL of the first, a new start takes the lock over and recovers.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, runTool, startNodeProcess } from './node-process.ts';

const NODE_ENTRY = fileURLToPath(new URL('../../../tools/store-node.ts', import.meta.url));
const SECOND_START_TIMEOUT_MS = 60_000;
/** A pid no process has: pids stop at 2^22 on Linux. */
const PID_UNSEEN = 4_194_999;

/** Every file under `directory`: its size and modification time. */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else {
        const stat = statSync(child);
        files[relative(directory, child)] = `${stat.size} bytes, mtime ${stat.mtimeMs}`;
      }
    }
  };
  walk(directory);
  return files;
}

/** Starts a second node on `env`'s home: its exit code and output, or a failure if it serves. */
async function secondStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; text: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_ENTRY],
    { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`second node still running: ${text}`)),
        SECOND_START_TIMEOUT_MS);
      child.stdout.on('data', () => {
        if (!/node started on /.test(text)) return;
        clearTimeout(timer);
        reject(new Error(`a second node started on the same home: ${text}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, text });
      });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * gs_startnode started a node in the background (it should not have): wait for the pid it writes
 * and kill it, so a failing run leaves no process behind.
 */
async function killStartedNode(pidPath: string): Promise<void> {
  for (let waitedMs = 0; waitedMs < SECOND_START_TIMEOUT_MS; waitedMs += 100) {
    const pid = Number(readFileSync(pidPath, 'utf8').trim());
    if (pid !== PID_UNSEEN && Number.isSafeInteger(pid) && pid > 1) {
      process.kill(pid, 'SIGKILL');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function connect(transactionPort: number): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
  });
}

const COLUMNS = [{ name: 'id', type: 'INTEGER' }, { name: 'note', type: 'STRING' }] as const;

describe('two nodes on one home', { timeout: 240_000 }, () => {
  // No periodic checkpoint while the files are compared: an idle node writes nothing then.
  const home = newNodeHome({
    dataStore: { logWriteMode: 0 }, checkpoint: { checkpointInterval: '3600s' },
  });
  after(() => removeHome(home));

  it('a second node exits 3 naming the first, touches nothing; the first serves', async () => {
    const first = await startNodeProcess(home);
    try {
      const client = connect(first.transactionPort);
      const container = await client.putContainer({
        name: 'lock_rows', type: 'COLLECTION', rowKey: true, columns: [...COLUMNS],
      });
      await container.put([1, 'before the second start']);
      const before = snapshot(home);
      const second = await secondStart(first.env);
      assert.equal(second.code, 3, second.text);
      assert.match(second.text, new RegExp(`node failed to start: HOME_IN_USE: the home ${home} ` +
        `is in use by the node with pid ${first.child.pid} \\(started `));
      assert.deepEqual(snapshot(home), before);
      assert.equal(readFileSync(join(home, 'conf', 'store.pid'), 'utf8').trim(),
        String(first.child.pid));
      await container.put([2, 'after the second start']);
      assert.deepEqual(await container.get(1), [1, 'before the second start']);
      await client.close();

      // The pid file names a pid gs_startnode cannot see; the lock still names the holder.
      const pidPath = join(home, 'conf', 'store.pid');
      writeFileSync(pidPath, `${PID_UNSEEN}\n`);
      const started = await runTool('gs_startnode.ts', [], first.env);
      if (started.code !== 3) await killStartedNode(pidPath);
      writeFileSync(pidPath, `${first.child.pid}\n`);
      assert.equal(started.code, 3, started.stderr + started.stdout);
      assert.match(started.stderr, new RegExp('^AD0102: There is a possibility that the node has ' +
        `been started. \\(the home is locked by the node with pid ${first.child.pid} `));
      assert.equal(first.child.exitCode, null);
    } finally {
      await first.kill();
    }

    // The first is gone without letting go (SIGKILL): the next start takes the lock over.
    const next = await startNodeProcess(home);
    try {
      const client = connect(next.transactionPort);
      const container = await client.getContainer('lock_rows');
      assert.deepEqual(await container!.get(1), [1, 'before the second start']);
      assert.deepEqual(await container!.get(2), [2, 'after the second start']);
      await client.close();
      const lockFile = JSON.parse(readFileSync(join(home, 'conf', 'store.lock'), 'utf8')) as
        { pid: number };
      assert.equal(lockFile.pid, next.child.pid);
    } finally {
      await next.stop();
    }
    assert.equal(next.child.exitCode, 0, next.output());
  });
});
