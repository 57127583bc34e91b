// A client that pipelines queries with multi-MB replies and never reads them, against a real node
// process with small reply limits (gs_node.json /transaction/replyBuffer*, totalMessageMemoryLimit):
// the node's RSS (from /proc/<pid>/status) stays within the limits plus a margin, a well-behaved
// client logs in and queries meanwhile, the node closes the hostile connection after the soft-limit
// time and names its address and bytes in the event log, and its memory comes back down.
//
// Figures: 150 pipelined queries of ~3 MB replies. Without the limits the node queues ~128 of
// them (the in-flight cap): well over 300 MB. With a soft limit of 8 MB the growth stays under
// totalMessageMemoryLimit (64 MB) plus RSS_MARGIN_BYTES, which covers the replies the node and its
// engine thread produce and drop before a collection (V8 frees them only at its next GC) and the
// good client's own replies.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { QUERY } from '../../../lib/protocol/messages-query.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { RawClient, sleepMs } from '../server/server-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { processRssBytes } from '../../../perf/rss-sampler.ts';

const MiB = 1024 * 1024;
const SOFT_LIMIT_BYTES = 8 * MiB;
const HARD_LIMIT_BYTES = 32 * MiB;
const TOTAL_LIMIT_BYTES = 64 * MiB;
const SOFT_LIMIT_TIME_MS = 3000;
/** RSS growth allowed beyond TOTAL_LIMIT_BYTES while the hostile client is connected. */
const RSS_MARGIN_BYTES = 96 * MiB;
/** RSS allowed above the baseline once the hostile connection is gone and a GC has run. */
const RSS_AFTER_MARGIN_BYTES = 64 * MiB;
const ROW_COUNT = 1500;
const VALUE_LENGTH = 2000;
const QUERY_COUNT = 150;
const CONTAINER = 'wide';

function rssBytes(pid: number): number {
  const bytes = processRssBytes(pid);
  assert.ok(bytes !== undefined, 'VmRSS in /proc/<pid>/status');
  return bytes;
}

function eventLogText(home: string): string {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => name.startsWith('store-'))
    .map((name) => readFileSync(join(directory, name), 'utf8')).join('');
}

/** Whether `check` came true within the time. */
async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (let waitedMs = 0; !check(); waitedMs += 100) {
    if (waitedMs > timeoutMs) return false;
    await sleepMs(100);
  }
  return true;
}

describe('node: replies a client never reads', { timeout: 180_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;

  before(async () => {
    home = newNodeHome({
      dataStore: { logWriteMode: 1, concurrency: 1 },
      transaction: {
        servicePort: 0,
        replyBufferSoftLimit: `${SOFT_LIMIT_BYTES / MiB}MB`,
        replyBufferHardLimit: `${HARD_LIMIT_BYTES / MiB}MB`,
        replyBufferSoftLimitTime: `${SOFT_LIMIT_TIME_MS}ms`,
        totalMessageMemoryLimit: `${TOTAL_LIMIT_BYTES / MiB}MB`,
      },
    });
    node = await startNodeProcess(home);
    store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'good',
    });
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('bounds the node\'s memory by the reply limits, serves others, and frees it after', async () => {
    const container = await store.putContainer({
      name: CONTAINER, type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'LONG' }, { name: 'text', type: 'STRING' }],
    });
    const value = 'x'.repeat(VALUE_LENGTH);
    for (let first = 0; first < ROW_COUNT; first += 500) {
      await container.multiPut(Array.from({ length: 500 }, (_, i) => [BigInt(first + i), value]));
    }
    const goodQuery = async () => {
      const rows = await (await container.query('SELECT *').fetch()).toArray();
      assert.equal(rows.length, ROW_COUNT);
    };
    for (let i = 0; i < 5; i++) await goodQuery();
    const pid = node.child.pid!;
    const beforeBytes = rssBytes(pid);

    const hostile = await RawClient.connect(node.transactionPort);
    const auth = await hostile.handshake({ clusterName: 'myCluster', password: 'admin' });
    hostile.socket.pause();
    const request = {
      sessionId: 0, tql: 'SELECT *', fetchSize: 0, partialExecution: false, forUpdate: false,
      ref: { partitionId: containerPartitionId(CONTAINER, auth.partitionNum), name: CONTAINER },
    };
    const frames = Array.from({ length: QUERY_COUNT }, (_, i) => encodeFrame(
      { messageType: QUERY.type, status: FrameStatus.REQUEST, requestId: i + 1 },
      (writer) => QUERY.writeRequest(writer, request), PROTOCOL_MESSAGE_BYTES_MAX));
    hostile.send(Buffer.concat(frames));

    let peakBytes = rssBytes(pid);
    let closed = false;
    const sampler = setInterval(() => (peakBytes = Math.max(peakBytes, rssBytes(pid))), 50);
    try {
      // Meanwhile another client logs in and queries.
      const other = getStore({
        notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
        username: 'admin', password: 'admin', applicationName: 'other',
      });
      try {
        const otherContainer = await other.getContainer(CONTAINER);
        assert.ok(otherContainer !== undefined);
        for (let i = 0; i < 3; i++) {
          const rows = await (await otherContainer.query('SELECT *').fetch()).toArray();
          assert.equal(rows.length, ROW_COUNT);
        }
      } finally {
        await other.close();
      }
      closed = await until(() => /replies not read/.test(eventLogText(home)),
        SOFT_LIMIT_TIME_MS + 10_000);
    } finally {
      clearInterval(sampler);
      hostile.close();
    }
    const growthBytes = peakBytes - beforeBytes;
    assert.ok(growthBytes <= TOTAL_LIMIT_BYTES + RSS_MARGIN_BYTES, `RSS grew by ` +
      `${(growthBytes / MiB).toFixed(0)} MB (from ${(beforeBytes / MiB).toFixed(0)} MB) ` +
      `with ${QUERY_COUNT} unread replies; the bound is ` +
      `${(TOTAL_LIMIT_BYTES + RSS_MARGIN_BYTES) / MiB} MB`);
    assert.ok(closed, 'the node closed the connection after replyBufferSoftLimitTime');
    const line = eventLogText(home).split('\n').find((text) => /replies not read/.test(text))!;
    assert.match(line, /127\.0\.0\.1:\d+/, 'the line names the client address');
    assert.match(line, /"queuedBytes":\d{7,}/, 'and the bytes queued');

    // Once the connection is gone, the good client's traffic makes the node collect, and the
    // memory comes back to within RSS_AFTER_MARGIN_BYTES of where it was.
    let afterBytes = rssBytes(pid);
    for (let round = 0; round < 20 && afterBytes > beforeBytes + RSS_AFTER_MARGIN_BYTES; round++) {
      await goodQuery();
      await sleepMs(200);
      afterBytes = rssBytes(pid);
    }
    assert.ok(afterBytes <= beforeBytes + RSS_AFTER_MARGIN_BYTES, `RSS ` +
      `${(afterBytes / MiB).toFixed(0)} MB after the close, ${(beforeBytes / MiB).toFixed(0)} MB before`);
    process.stdout.write(`# RSS before ${(beforeBytes / MiB).toFixed(0)} MB, peak ` +
      `${(peakBytes / MiB).toFixed(0)} MB, after ${(afterBytes / MiB).toFixed(0)} MB\n`);
  });
});
