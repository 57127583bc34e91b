// Event log records: JSON lines with a level, a time from the clock, a component and a message;
// each component writes at or above its own level.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { EVENT_LOG_MESSAGE_LENGTH_MAX } from '../../../lib/base/limits.ts';
import type { Clock } from '../../../lib/io/clock.ts';
import { EventLog } from '../../../lib/io/event-log.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const clock: Clock = { nowMs: () => Date.UTC(2025, 0, 2, 3, 4, 5, 678), monotonicMs: () => 0 };

function memoryLog(levels = { default: 'LEVEL_INFO' as const }) {
  const lines: string[] = [];
  const log = EventLog.to({ write: (line) => lines.push(line) }, { clock, levels });
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, lines, records };
}

describe('event log', () => {
  it('writes one JSON line a record: level, time, component, message, fields', () => {
    const { log, lines } = memoryLog();
    log.component('checkpointService').info('checkpoint completed', { durationMs: 12, mode: 'PERIODIC' });
    assert.equal(lines.length, 1);
    assert.equal(lines[0], '{"level":"INFO","time":"2025-01-02T03:04:05.678Z",' +
      '"component":"checkpointService","durationMs":12,"mode":"PERIODIC",' +
      '"msg":"checkpoint completed"}\n');
  });

  it('writes each component at or above its own level, and the default for the rest', () => {
    const { log, records } = memoryLog({
      default: 'LEVEL_ERROR', checkpointService: 'LEVEL_INFO', sqlService: 'LEVEL_DEBUG',
    } as never);
    log.component('checkpointService').info('a');
    log.component('checkpointService').debug('hidden');
    log.component('clusterService').warning('hidden');
    log.component('clusterService').error('b');
    log.component('sqlService').debug('c');
    log.component('anything').critical('d');
    assert.deepEqual(records().map((r) => [r['level'], r['component'], r['msg']]), [
      ['INFO', 'checkpointService', 'a'], ['ERROR', 'clusterService', 'b'],
      ['DEBUG', 'sqlService', 'c'], ['CRITICAL', 'anything', 'd'],
    ]);
  });

  it('changes a level while running (gs_logconf)', () => {
    const { log, records } = memoryLog({ default: 'LEVEL_ERROR' } as never);
    const cluster = log.component('clusterService');
    cluster.info('hidden');
    log.setLevel('clusterService', 'LEVEL_INFO');
    cluster.info('shown');
    log.setLevel('default', 'LEVEL_DEBUG');
    log.component('syncService').debug('shown too');
    assert.deepEqual(records().map((r) => r['msg']), ['shown', 'shown too']);
    assert.equal(log.levelOf('clusterService'), 'LEVEL_INFO');
  });

  it('has the node\'s events: start, stop, checkpoints, clients with applicationName, errors', () => {
    const { log, records } = memoryLog();
    log.nodeStarting({ version: '0.1.0' });
    log.nodeStarted({ clusterName: 'myCluster' });
    log.checkpointStarted({ mode: 'PERIODIC' });
    log.checkpointCompleted({ mode: 'PERIODIC', durationMs: 5 });
    log.clientConnected({ applicationName: 'sensor-gateway', address: '127.0.0.1:5000', user: 'admin' });
    log.error('transactionService', new StorageError('LOCK_TIMEOUT', 'lock wait timed out on c'));
    log.error('transactionService', new TypeError('boom'));
    log.nodeStopping({ reason: 'gs_stopnode' });
    log.nodeStopped({});
    const all = records();
    assert.deepEqual(all.map((r) => r['msg']), [
      'node starting', 'node started', 'checkpoint started', 'checkpoint completed',
      'client connected', 'lock wait timed out on c', 'unexpected error', 'node stopping',
      'node stopped',
    ]);
    assert.equal(all[4]!['applicationName'], 'sensor-gateway');
    assert.equal(all[5]!['code'], 'LOCK_TIMEOUT');
    assert.equal(all[5]!['errorNumber'], 10030);
    assert.equal(all[5]!['level'], 'ERROR');
    assert.equal(all[6]!['error'], 'boom');
    assert.match(String(all[6]!['stack']), /TypeError: boom/);
  });

  it('cuts long messages and long field values', () => {
    const { log, records } = memoryLog();
    const long = 'a'.repeat(EVENT_LOG_MESSAGE_LENGTH_MAX + 10);
    log.clientConnected({ applicationName: long, address: 'x', user: 'u' });
    log.component('x').info(long);
    const [first, second] = records();
    assert.ok(String(first!['applicationName']).length < EVENT_LOG_MESSAGE_LENGTH_MAX + 40);
    assert.match(String(second!['msg']), /\.\.\. \(8202 characters\)$/);
  });

  it('writes rotating files under its directory', () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const log = EventLog.open({
      fileSystem, clock, directory: '/log', fileCount: 2, fileSizeBytesMax: 300,
      levels: { default: 'LEVEL_INFO' },
    });
    for (let i = 0; i < 10; i += 1) log.component('systemService').info(`record ${i}`);
    const currentPath = log.currentPath;
    log.close();
    assert.equal(fileSystem.list('/log').length, 2);
    assert.equal(currentPath, '/log/store-20250102-4.log'); // 3 records of ~97 bytes a file
    const last = new TextDecoder().decode(fileSystem.fileBytes(currentPath));
    assert.match(last, /"msg":"record 9"\}\n$/);
    assert.equal(log.droppedRecordCount, 0);
  });
});
