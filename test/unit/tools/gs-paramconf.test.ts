// gs_paramconf as a child process against a real node process with two partition groups: --show
// lists storeMemoryLimit with the value of gs_node.json; --set storeMemoryLimit 512MB changes it
// live (--show and gs_stat's performance.storeMemoryLimit say so); a bad value, a parameter that
// is not settable online and a wrong group are refused with a message naming the parameter, by
// the command (exit 2) and by the node itself (POST /node/config/..., 400); the log masks the
// password.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

describe('gs_paramconf', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome({
      dataStore: { partitionNum: 4, concurrency: 2, storeMemoryLimit: '256MB' },
    }));
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  function paramconf(args: readonly string[]): Promise<ToolRun> {
    return runTool('gs_paramconf.ts', [...user, ...args], node.env);
  }

  async function statMemoryLimitBytes(): Promise<number> {
    const stat = await runTool('gs_stat.ts', user, node.env);
    assert.equal(stat.code, 0, stat.stderr);
    return (JSON.parse(stat.stdout) as { performance: { storeMemoryLimit: number } })
      .performance.storeMemoryLimit;
  }

  function post(path: string, body: string): Promise<Response> {
    return fetch(`http://127.0.0.1:${node.systemPort}${path}`, {
      method: 'POST', body,
      headers: {
        authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}`,
        'content-type': 'application/json',
      },
    });
  }

  it('--show lists the online parameters with their values', async () => {
    const show = await paramconf(['--show']);
    assert.equal(show.code, 0, show.stderr);
    assert.deepEqual(JSON.parse(show.stdout), { dataStore: { storeMemoryLimit: '256MB' } });
    assert.deepEqual(await paramconf(['--show', 'storeMemoryLimit']),
      { code: 0, stdout: '256MB\n', stderr: '' });
  });

  it('--set storeMemoryLimit 512MB applies it live', async () => {
    assert.equal(await statMemoryLimitBytes(), 256 * 1024 * 1024);
    assert.deepEqual(await paramconf(['--set', 'storeMemoryLimit', '512MB']),
      { code: 0, stdout: '', stderr: '' });
    assert.equal((await paramconf(['--show', 'storeMemoryLimit'])).stdout, '512MB\n');
    assert.equal(await statMemoryLimitBytes(), 512 * 1024 * 1024);
    // Not written to gs_node.json: an Online parameter lasts until the node stops.
    const file = JSON.parse(readFileSync(join(node.home, 'conf', 'gs_node.json'), 'utf8')) as
      { dataStore: { storeMemoryLimit: string } };
    assert.equal(file.dataStore.storeMemoryLimit, '256MB');
  });

  it('refuses a bad value, naming the parameter and the accepted form', async () => {
    const bad = await paramconf(['--set', 'storeMemoryLimit', '512 apples']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /A00100: .*400: dataStore\/storeMemoryLimit: "512 apples" is not a size with a unit/);
    const response = await post('/node/config/dataStore/storeMemoryLimit', '"12"');
    assert.equal(response.status, 400);
    assert.match((await response.json() as { reason: string }).reason,
      /storeMemoryLimit: "12" is not a size with a unit \(B, KB, MB, GB, TB\)/);
    assert.equal(await statMemoryLimitBytes(), 512 * 1024 * 1024);
  });

  it('refuses parameters that are not settable online', async () => {
    const restart = await paramconf(['--set', 'concurrency', '8']);
    assert.equal(restart.code, 2);
    assert.match(restart.stderr, /the parameter concurrency is not settable online \(settable online: storeMemoryLimit\)/);
    const known = await paramconf(['--set', 'traceLimitQuerySize', '2000']);
    assert.equal(known.code, 2);
    assert.match(known.stderr, /traceLimitQuerySize is not settable online by this node/);
    for (const path of ['/node/config/dataStore/concurrency', '/node/config/sql/storeMemoryLimit']) {
      const response = await post(path, '"8"');
      assert.equal(response.status, 400, path);
      assert.match((await response.json() as { reason: string }).reason,
        /not settable online|is in the group dataStore, not sql/, path);
    }
    assert.equal((await paramconf(['--show', '--set'])).code, 2);
    assert.equal((await paramconf(['--set', 'storeMemoryLimit'])).code, 2);
  });

  it('logs each run to $GS_LOG/gs_paramconf.log with the password masked', () => {
    const log = readFileSync(join(node.env['GS_LOG']!, 'gs_paramconf.log'), 'utf8');
    assert.match(log, /start\. \(args: -u admin\/\*\*\* -s 127\.0\.0\.1:\d+ --set storeMemoryLimit 512MB\)/);
    assert.doesNotMatch(log, /admin\/admin/);
  });
});
