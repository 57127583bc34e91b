// The operating commands against a real node process: gs_startnode starts one in the background
// and waits for its recovery, gs_stat prints every member and type the seed lists, a wrong
// password and a missing GS_HOME/GS_LOG are refused with GridDB's messages, and gs_stopnode
// stops the node cleanly (its data survives into the next start).

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkSeedMembers } from './node-status.test.ts';
import { freePorts, runTool as run } from './node-process.ts';

describe('operating commands', { timeout: 180_000 }, () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let server: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'store-node-'));
    mkdirSync(join(home, 'conf'));
    const [system, transaction, sql, cluster, sync] = await freePorts(5);
    writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify({
      dataStore: { partitionNum: 8, concurrency: 1, logWriteMode: 0 },
      system: { servicePort: system }, transaction: { servicePort: transaction },
      sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
    }));
    env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
    server = `127.0.0.1:${system}`;
  });

  after(async () => {
    const pidPath = join(home, 'conf', 'store.pid');
    if (existsSync(pidPath)) {
      try {
        process.kill(Number(readFileSync(pidPath, 'utf8')), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses without GS_HOME and GS_LOG (A00105)', async () => {
    const bare = { ...process.env };
    delete bare['GS_HOME'];
    delete bare['GS_LOG'];
    const result = await run('gs_stat.ts', ['-u', 'admin/admin'], bare);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /A00105/);
    assert.match(result.stderr, /GS_HOME, GS_LOG environment variable not set\./);
  });

  it('starts a node and waits for its recovery', async () => {
    const result = await run('gs_startnode.ts', ['-u', 'admin/admin', '-w', '60'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /has been started/);
    assert.ok(existsSync(join(home, 'conf', 'store.pid')));
  });

  it('gs_stat prints every member and type the seed lists, sorted, indent 4', async () => {
    const result = await run('gs_stat.ts', ['-u', 'admin/admin', '-s', server], env);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    checkSeedMembers(report);
    assert.equal(report['cluster']!['nodeStatus'], 'ACTIVE');
    assert.equal(report['cluster']!['clusterName'], 'myCluster');
    assert.equal((report['recovery'] as { progressRate: number }).progressRate, 1);
    assert.match(result.stdout, /^\{\n {4}"checkpoint": \{\n {8}"autoArchive": false,/);
  });

  it('refuses a wrong password without saying which part was wrong (A00102)', async () => {
    for (const user of ['admin/wrong', 'nobody/admin']) {
      const result = await run('gs_stat.ts', ['-u', user, '-s', server], env);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /^A00102: Authentication failed\.$/m);
    }
    const result = await run('gs_stat.ts', ['-u', 'admin', '-s', server], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /A00002/);
  });

  it('gs_stopnode stops the node cleanly', async () => {
    const result = await run('gs_stopnode.ts', ['-u', 'admin/admin', '-s', server, '-w', '60'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /has been stopped/);
    const after = await run('gs_stat.ts', ['-u', 'admin/admin', '-s', server], env);
    assert.match(after.stderr, /A00104/);
    const log = readFileSync(join(home, 'log', 'gsstartup.log'), 'utf8');
    assert.match(log, /node stopped/);
  });
});
