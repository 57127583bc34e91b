// Issue 12, point 3, end to end: a real node process is SIGKILLed after acknowledging writes, 50
// random bytes are appended to the newest xlog file of its container's partition, and the node
// starts again serving every acknowledged row, with a warning naming the cut in its event log.

import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { Prng } from '../sim/prng.ts';
import {
  newNodeHome, removeHome, startNodeProcess, type NodeProcess,
} from '../unit/node/node-process.ts';

const GARBAGE_BYTES = 50;
const BATCH_COUNT = 20;
const ROWS_PER_BATCH = 25;

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'torn-tail',
  });
}

/** The newest xlog file of the partition with the most xlog bytes (the one written to). */
function newestXlogOfBusiestPartition(home: string): string {
  const root = join(home, 'txnlog');
  let best: { path: string; sizeBytes: number } | undefined;
  for (const partition of readdirSync(root)) {
    const directory = join(root, partition);
    if (!statSync(directory).isDirectory()) continue;
    const generations = readdirSync(directory).map((name) => /^\d+_(\d+)\.xlog$/.exec(name))
      .filter((match) => match !== null).map((match) => Number(match[1]));
    if (generations.length === 0) continue;
    const path = join(directory, `${partition}_${Math.max(...generations)}.xlog`);
    const sizeBytes = statSync(path).size;
    if (best === undefined || sizeBytes > best.sizeBytes) best = { path, sizeBytes };
  }
  assert.ok(best !== undefined, 'the node wrote no xlog');
  return best.path;
}

function eventLogText(home: string): string {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => name.endsWith('.log'))
    .map((name) => readFileSync(join(directory, name), 'utf8')).join('');
}

describe('a torn xlog tail after SIGKILL, end to end', { timeout: 180_000 }, () => {
  const home = newNodeHome({
    // logWriteMode 1: an acknowledged record is in the xlog file (handed to the OS at append), so
    // the garbage lands after real records; no checkpoint, so they stay in the newest file.
    dataStore: { logWriteMode: 1 }, checkpoint: { checkpointInterval: '3600s' },
  });
  let node: NodeProcess | undefined;
  after(async () => {
    await node?.kill();
    removeHome(home);
  });

  it('restarts serving every acknowledged row after 50 random bytes are appended', async () => {
    node = await startNodeProcess(home);
    let client = clientOf(node);
    const container = await client.putContainer({
      name: 'torn', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'seq', type: 'INTEGER' }, { name: 'batch', type: 'INTEGER' }],
    });
    const acknowledged: number[] = [];
    for (let batch = 0; batch < BATCH_COUNT; batch++) {
      const rows = Array.from({ length: ROWS_PER_BATCH },
        (_, i) => [batch * ROWS_PER_BATCH + i, batch]);
      await container.multiPut(rows);
      acknowledged.push(...rows.map((row) => row[0]!));
    }
    await node.kill();
    await client.close().catch(() => undefined);

    const path = newestXlogOfBusiestPartition(home);
    const recordBytes = ROWS_PER_BATCH * BATCH_COUNT * 8;
    assert.ok(statSync(path).size > recordBytes, `${path} holds too few records to test`);
    const prng = new Prng(12);
    appendFileSync(path, Uint8Array.from({ length: GARBAGE_BYTES }, () => prng.nextIndex(256)));

    node = await startNodeProcess(home);
    client = clientOf(node);
    const reopened = await client.getContainer('torn');
    assert.ok(reopened !== undefined, 'the container is gone');
    const rows = await (await reopened.query('SELECT *').fetch()).toArray();
    const present = new Set(rows.map((row) => Number(row[0])));
    const missing = acknowledged.filter((seq) => !present.has(seq));
    assert.deepEqual(missing, [], `${missing.length} acknowledged rows are missing`);
    assert.equal(rows.length, acknowledged.length);
    const log = eventLogText(home);
    assert.match(log, new RegExp(`cut a torn tail of ${GARBAGE_BYTES} bytes`));
    assert.ok(log.includes(path), 'the warning names the file');
    await client.close();
    await node.stop();
  });
});
