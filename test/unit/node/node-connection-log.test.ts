// A real node process with the shipped trace levels (issue 13, point 11): a client's connection,
// with its applicationName, and its disconnection reach the event log file; a storm of 1000
// connections writes at most CONNECTION_LOG_LINES_PER_WINDOW_MAX lines a window plus one summary
// a window, and every connection is either a line or counted in a summary.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleepMs } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  CONNECTION_LOG_LINES_PER_WINDOW_MAX, CONNECTION_LOG_WINDOW_MS,
} from '../../../lib/base/limits.ts';
import { getStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

type LogRecord = Record<string, unknown>;

const STORM_CONNECTION_COUNT = 1000;
/** Storm connections open at once: well under the unauthenticated limit per address (100). */
const STORM_CONCURRENCY = 10;
const WAIT_MS_MAX = 60_000;

function connectionRecords(home: string): LogRecord[] {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => /^store-.*\.log$/.test(name))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as LogRecord)
    .filter((record) => record['component'] === 'connection');
}

async function until<T>(read: () => T, done: (value: T) => boolean, what: string): Promise<T> {
  for (let waitedMs = 0; ; waitedMs += 100) {
    const value = read();
    if (done(value)) return value;
    if (waitedMs > WAIT_MS_MAX) assert.fail(`${what}: not within ${WAIT_MS_MAX} ms`);
    await sleepMs(100);
  }
}

/** Opens a TCP connection to the node and closes it once it is open. */
function touch(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.end());
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

describe('node: connection log with the shipped levels', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;

  before(async () => {
    home = newNodeHome();
    node = await startNodeProcess(home);
  });
  after(async () => {
    await node?.stop();
    if (home !== undefined) removeHome(home);
  });

  it('logs a storm of connections within the bound, and counts the rest', async (t) => {
    const pending = Array.from({ length: STORM_CONNECTION_COUNT }, (_, i) => i);
    await Promise.all(Array.from({ length: STORM_CONCURRENCY }, async () => {
      while (pending.pop() !== undefined) await touch(node.transactionPort);
    }));
    const accounted = (records: LogRecord[], message: string, countField: string) =>
      records.filter((r) => r['msg'] === message).length + records
        .filter((r) => r['msg'] === 'connection log lines suppressed')
        .reduce((sum, r) => sum + Number(r[countField]), 0);
    // Every connection accepted and closed is a line or counted, once its window's summary is out.
    const records = await until(() => connectionRecords(home), (all) =>
      accounted(all, 'connection accepted', 'acceptedCount') === STORM_CONNECTION_COUNT &&
      accounted(all, 'client disconnected', 'disconnectedCount') === STORM_CONNECTION_COUNT,
    'every storm connection accounted for');
    const lines = records.filter((r) => r['msg'] !== 'connection log lines suppressed');
    const summaries = records.filter((r) => r['msg'] === 'connection log lines suppressed');
    assert.ok(summaries.length > 0, 'a storm is summarized');
    for (const summary of summaries) {
      assert.equal(summary['level'], 'WARNING');
      assert.equal(summary['linesPerWindowMax'], CONNECTION_LOG_LINES_PER_WINDOW_MAX);
    }
    // Windows do not overlap and last CONNECTION_LOG_WINDOW_MS each: over the span of the lines
    // there are at most span / window + 1 of them (+1 for the wall clock beside the monotonic).
    const times = lines.map((r) => Date.parse(String(r['time'])));
    const windowCount = Math.floor((Math.max(...times) - Math.min(...times)) /
      CONNECTION_LOG_WINDOW_MS) + 2;
    assert.ok(lines.length <= CONNECTION_LOG_LINES_PER_WINDOW_MAX * windowCount,
      `${lines.length} lines in at most ${windowCount} windows`);
    assert.ok(summaries.length <= windowCount, `${summaries.length} summaries`);
    assert.ok(lines.length < 2 * STORM_CONNECTION_COUNT, 'lines were left out');
    t.diagnostic(`${2 * STORM_CONNECTION_COUNT} events: ${lines.length} lines, ` +
      `${summaries.length} summaries, windows at most ${windowCount}`);
  });

  it('logs a client\'s connection with its applicationName, and its disconnection', async () => {
    // A new window, so that this client's lines are not left out after the storm.
    await sleepMs(CONNECTION_LOG_WINDOW_MS + 100);
    const before = connectionRecords(home).length;
    const store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'meter-gateway-7',
    });
    await store.getContainerInfo('nothing');
    await store.close();
    const records = await until(() => connectionRecords(home).slice(before), (all) =>
      all.some((r) => r['msg'] === 'client disconnected' && r['applicationName'] ===
        'meter-gateway-7'), 'the client\'s disconnection in the event log');
    const connected = records.find((r) => r['msg'] === 'client connected');
    assert.ok(connected !== undefined, JSON.stringify(records));
    assert.equal(connected['level'], 'INFO');
    assert.equal(connected['applicationName'], 'meter-gateway-7');
    assert.equal(connected['user'], 'admin');
    assert.match(String(connected['address']), /^127\.0\.0\.1:\d+$/);
    const accepted = records.find((r) => r['msg'] === 'connection accepted' &&
      r['connectionId'] === connected['connectionId']);
    assert.equal(accepted?.['address'], connected['address']);
    const gone = records.find((r) => r['msg'] === 'client disconnected' &&
      r['connectionId'] === connected['connectionId'])!;
    assert.equal(gone['user'], 'admin');
    assert.equal(typeof gone['reason'], 'string');
    assert.ok(Number(gone['durationMs']) >= 0);
  });
});
