import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { getStore } from './lib/client/store-factory.ts';
import { benchConfig } from './perf/bench-config.ts';
import { withNodeProcess } from './perf/node-process.ts';
import { tsbsContainerDefinition } from './perf/tsbs.ts';
const quick = process.env['QUICK'] === '1';
const { dataset } = benchConfig(quick);
const root = mkdtempSync(join(tmpdir(), 'expimp-measure-'));
try {
  await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
    const store = getStore({ ...node.storeProperties });
    const containers = [];
    for (const host of dataset.hosts) containers.push(await store.putContainer(tsbsContainerDefinition(host.containerName)));
    for (const batch of dataset.batches) await containers[batch.hostIndex]!.multiPut(batch.rows);
    console.log('rows', dataset.rowCount, 'props', node.storeProperties);
    const env = { ...process.env, GS_HOME: join(root, 'node'), GS_LOG: join(root, 'log') };
    const args = ['-u', 'admin/admin', '-s', String(node.storeProperties.notificationMember), '--cluster', String(node.storeProperties.clusterName), '--silent'];
    const dir = join(root, 'export');
    let t = performance.now();
    execFileSync(process.execPath, ['--import', 'tsx', 'tools/gs_export.ts', ...args, '--all', '-d', dir], { env, stdio: 'inherit' });
    const exportMs = performance.now() - t;
    t = performance.now();
    execFileSync(process.execPath, ['--import', 'tsx', 'tools/gs_import.ts', ...args, '--all', '--replace', '-d', dir], { env, stdio: 'inherit' });
    const importMs = performance.now() - t;
    console.log(`export ${(exportMs/1000).toFixed(1)} s ${Math.round(dataset.rowCount / exportMs * 1000)} rows/s; import ${(importMs/1000).toFixed(1)} s ${Math.round(dataset.rowCount / importMs * 1000)} rows/s`);
    execFileSync('du', ['-sh', dir], { stdio: 'inherit' });
    await store.close();
  });
} finally { rmSync(root, { recursive: true, force: true }); }
