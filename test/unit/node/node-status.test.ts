// The status report has every member the seed lists, of the stated types, and prints as gs_stat
// does (sorted keys, indent 4).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyStoreStats } from '../../../lib/engine/store-stats.ts';
import { nodeStatusReport, printStatusJson } from '../../../lib/node/node-status.ts';

type Kind = 'integer' | 'number' | 'string' | 'boolean' | 'object' | 'array';

/** The seed's "Node status report" table and member lists, with their types. */
export const SEED_MEMBERS: Record<string, Kind> = {
  checkpoint: 'object', cluster: 'object', currentTime: 'string', performance: 'object',
  recovery: 'object', version: 'string',
  'checkpoint/autoArchive': 'boolean', 'checkpoint/backupOperation': 'integer',
  'checkpoint/duplicateLog': 'integer', 'checkpoint/endTime': 'integer', 'checkpoint/mode': 'string',
  'checkpoint/normalCheckpointOperation': 'integer', 'checkpoint/pendingPartition': 'integer',
  'checkpoint/periodicCheckpoint': 'string', 'checkpoint/requestedCheckpointOperation': 'integer',
  'checkpoint/startTime': 'integer',
  'cluster/activeCount': 'integer', 'cluster/applyRuleLimitTime': 'string', 'cluster/autoGoal': 'string',
  'cluster/clusterName': 'string', 'cluster/clusterRevisionId': 'string',
  'cluster/clusterRevisionNo': 'integer', 'cluster/clusterStatus': 'string',
  'cluster/currentRule': 'string', 'cluster/designatedCount': 'integer',
  'cluster/goalCurrentRule': 'string', 'cluster/goalDefaultRule': 'string',
  'cluster/loadBalancer': 'string', 'cluster/master': 'object', 'cluster/master/address': 'string',
  'cluster/master/port': 'integer', 'cluster/nodeList': 'array', 'cluster/nodeStatus': 'string',
  'cluster/notificationMode': 'string', 'cluster/partitionStatus': 'string',
  'cluster/startupTime': 'string', 'cluster/syncCount': 'integer',
  'recovery/progressRate': 'number',
  'performance/backgroundMinRate': 'number', 'performance/dataFileUsageRate': 'number',
  'performance/storeCompressionMode': 'string', 'performance/currentTime': 'integer',
  'performance/expirationDetail': 'object', 'performance/storeDetail': 'object',
  'performance/txnDetail': 'object',
  'performance/expirationDetail/erasableExpiredTime': 'string',
  'performance/expirationDetail/estimatedErasableExpiredTime': 'string',
  'performance/expirationDetail/latestExpirationCheckTime': 'string',
  'performance/txnDetail/totalBackgroundOperation': 'integer',
};
for (const name of ['backupCount', 'checkpointFileFlushCount', 'checkpointFileFlushTime',
  'checkpointWrite', 'checkpointWriteCompressTime', 'checkpointWriteSize', 'checkpointWriteTime',
  'dataFileAllocateSize', 'dataFileSize', 'logFileFlushCount', 'logFileFlushTime', 'numBackground',
  'numConnection', 'numNoExpireTxn', 'numSession', 'numTxn', 'ownerCount', 'peakProcessMemory',
  'poolBufferMemory', 'processMemory', 'sqlNumConnection', 'sqlPeakTotalMemory', 'sqlStoreSwapRead',
  'sqlStoreSwapReadSize', 'sqlStoreSwapReadTime', 'sqlStoreSwapWrite', 'sqlStoreSwapWriteSize',
  'sqlStoreSwapWriteTime', 'sqlTotalMemory', 'sqlTotalMemoryLimit', 'storeMemory',
  'storeMemoryLimit', 'storeTotalUse', 'swapRead', 'swapReadSize', 'swapReadTime',
  'swapReadUncompressTime', 'swapWrite', 'swapWriteCompressTime', 'swapWriteSize', 'swapWriteTime',
  'totalBackupLsn', 'totalLockConflictCount', 'totalOtherLsn', 'totalOwnerLsn',
  'totalReadOperation', 'totalRowRead', 'totalRowWrite', 'totalWriteOperation']) {
  SEED_MEMBERS[`performance/${name}`] = 'integer';
}
for (const name of ['batchScanNum', 'batchScanTotalNum', 'batchScanTotalTime', 'estimatedBatchFree',
  'lastBatchFree']) {
  SEED_MEMBERS[`performance/expirationDetail/${name}`] = 'integer';
}
for (const kind of ['batchFreeMapData', 'batchFreeRowData', 'mapData', 'metaData', 'rowData']) {
  SEED_MEMBERS[`performance/storeDetail/${kind}`] = 'object';
  for (const name of ['storeMemory', 'storeUse', 'swapRead', 'swapWrite']) {
    SEED_MEMBERS[`performance/storeDetail/${kind}/${name}`] = 'integer';
  }
}

function kindOf(value: unknown): Kind | 'other' {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value as Kind;
  if (value !== null && typeof value === 'object') return 'object';
  return 'other';
}

/** Every member and type the seed lists is in `report`; throws naming the first that is not. */
export function checkSeedMembers(report: unknown): void {
  for (const [path, kind] of Object.entries(SEED_MEMBERS)) {
    let value: unknown = report;
    for (const part of path.split('/')) value = (value as Record<string, unknown>)?.[part];
    const found = kindOf(value);
    // An integer is a number too: a rate that happens to be whole is still a number.
    const matches = found === kind || (kind === 'number' && found === 'integer');
    assert.ok(matches, `${path}: ${kind} expected, ${found} found (${JSON.stringify(value)})`);
  }
  const nodes = (report as { cluster: { nodeList: unknown[] } }).cluster.nodeList;
  for (const node of nodes) assert.deepStrictEqual(Object.keys(node as object).sort(), ['address', 'port']);
}

describe('node status report', () => {
  const input = {
    stats: emptyStoreStats('NO_COMPRESSION'), nowMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    startupTimeMs: Date.UTC(2026, 0, 2), recoveryProgressRate: 1, nodeStatus: 'ACTIVE' as const,
    clusterName: 'myCluster', notificationMode: 'FIXED_LIST' as const,
    clusterRevisionId: '00000000-0000-4000-8000-000000000000',
    self: { address: '127.0.0.1', port: 10040 }, partitionNum: 128, periodicCheckpoint: true,
    manualCheckpointCount: 0,
    connectionCount: 2, sessionCount: 1, transactionCount: 0, lockConflictCount: 0,
    readOperationCount: 5, writeOperationCount: 6, processMemoryBytes: 1000,
    peakProcessMemoryBytes: 2000, version: '0.1.0-1 CE',
  };

  it('has every member the seed lists, of the stated type', () => {
    checkSeedMembers(nodeStatusReport(input));
  });

  it('prints times and states as GridDB does', () => {
    const report = nodeStatusReport(input) as Record<string, Record<string, unknown>>;
    assert.equal(report['currentTime'], '2026-01-02T03:04:05Z');
    assert.equal(report['cluster']!['startupTime'], '2026-01-02T00:00:00.000Z');
    assert.equal(report['performance']!['storeCompressionMode'], 'NO_BLOCK_COMPRESSION');
    assert.equal(report['performance']!['ownerCount'], 128);
    assert.match(String(report['version']), /^\d+\.\d+\.\d+-\d+ CE$/);
  });

  it('reports the memory of block kinds and of index structures in storeDetail', () => {
    const stats = emptyStoreStats('NO_COMPRESSION');
    stats.memory.residentBytes = 3 * 65536;
    stats.memory.useBytes = 2 * 65536;
    stats.memory.index.residentBytes = stats.memory.index.useBytes = 12345;
    const report = nodeStatusReport({ ...input, stats }) as
      { performance: { storeDetail: Record<string, Record<string, number>> } };
    const detail = report.performance.storeDetail;
    assert.equal(detail['rowData']!['storeMemory'], 3 * 65536);
    assert.equal(detail['rowData']!['storeUse'], 2 * 65536);
    assert.equal(detail['mapData']!['storeMemory'], 12345);
    assert.equal(detail['mapData']!['storeUse'], 12345);
    assert.equal(detail['metaData']!['storeUse'], 0);
  });

  it('prints keys sorted at every level with an indent of 4', () => {
    const text = printStatusJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: true } });
    assert.equal(text, '{\n    "a": {\n        "c": true,\n        "d": [\n            {\n' +
      '                "y": 2,\n                "z": 1\n            }\n        ]\n    },\n    "b": 1\n}');
  });
});
