// A full disk for real (issue 12, point 4): a node process on a home in a small tmpfs writes until
// the file system is full and the store stops; space is freed (a ballast file removed); the node is
// restarted and must serve every acknowledged row. Needs root (mount); skips itself, saying why,
// where mounting is not permitted. The tmpfs is unmounted in a finally.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { startNodeProcess, type NodeProcess } from '../unit/node/node-process.ts';

const TMPFS_SIZE_MIB = 48;
/** Taken before the run and freed after the disk fills: the room a restart gets. */
const BALLAST_BYTES = 3 * 1024 * 1024;
const ROWS_PER_PUT = 2000;
const PUT_COUNT_MAX = 2000;
const T0_MS = Date.UTC(2026, 0, 1);

function tryMount(directory: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE_MIB}m`, 'tmpfs', directory],
      { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'full-disk', transactionTimeout: 5,
  });
}

describe('full disk on a real tmpfs', { timeout: 300_000 }, () => {
  it('the node stops at ENOSPC and, restarted after space is freed, serves every acked row',
    async (t) => {
      const mountPoint = mkdtempSync(join(tmpdir(), 'store-full-disk-'));
      const refused = tryMount(mountPoint);
      if (refused !== undefined) {
        rmSync(mountPoint, { recursive: true, force: true });
        t.skip(`mounting a tmpfs is not permitted here (${refused})`);
        return;
      }
      let node: NodeProcess | undefined;
      let client: ClientStore | undefined;
      try {
        const home = join(mountPoint, 'home');
        mkdirSync(join(home, 'conf'), { recursive: true });
        const ports = Object.fromEntries(['system', 'transaction', 'sql', 'cluster', 'sync']
          .map((service) => [service, { servicePort: 0 }]));
        writeFileSync(join(home, 'conf', 'gs_node.json'),
          JSON.stringify({ ...ports, dataStore: { logWriteMode: 0 } }));
        const ballast = join(mountPoint, 'ballast');
        writeFileSync(ballast, new Uint8Array(BALLAST_BYTES).fill(1));

        node = await startNodeProcess(home);
        client = clientOf(node);
        const series = await client.putContainer({
          name: 'meter', type: 'TIME_SERIES',
          columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
        });
        let ackedRowCount = 0;
        let failure: unknown;
        for (let put = 0; put < PUT_COUNT_MAX && failure === undefined; put++) {
          const rows = Array.from({ length: ROWS_PER_PUT }, (_, i) => {
            const index = ackedRowCount + i;
            return [T0_MS + index, index * 1.5 + Math.random()];
          });
          try {
            await series.multiPut(rows);
            ackedRowCount += ROWS_PER_PUT;
          } catch (error) {
            failure = error;
          }
        }
        assert.ok(failure !== undefined, 'the disk never filled');
        t.diagnostic(`${ackedRowCount} rows acked before: ${String((failure as Error).message)}`);
        assert.match(String((failure as Error).message), /ENOSPC|stopped after an I\/O error/);
        await client.close().catch(() => undefined);
        client = undefined;
        await node.kill();
        node = undefined;

        rmSync(ballast);
        node = await startNodeProcess(home);
        client = clientOf(node);
        const meter = await client.getContainer('meter');
        assert.ok(meter !== undefined, 'the container is gone');
        const counted = await (await meter.query('SELECT COUNT(*)').fetch()).toArray();
        const visibleRowCount = Number((counted[0] as unknown[] | undefined)?.[0] ??
          (counted[0] as { count?: unknown })?.count);
        t.diagnostic(`after the restart: ${visibleRowCount} rows visible`);
        assert.ok(visibleRowCount >= ackedRowCount,
          `${ackedRowCount} rows were acked, ${visibleRowCount} are visible`);
        await meter.multiPut([[T0_MS - 1, 0]]);
      } finally {
        await client?.close().catch(() => undefined);
        await node?.kill();
        execFileSync('umount', [mountPoint], { stdio: 'pipe' });
        rmSync(mountPoint, { recursive: true, force: true });
      }
    });
});
