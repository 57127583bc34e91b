// gs_joincluster, gs_leavecluster, gs_stopcluster, gs_config and gs_partition as child processes
// against a real node process (a cluster of one): gs_config and gs_partition
// print GET /node/host and GET /node/partition as GridDB does (-n, --loss); the cluster commands
// answer what a single node is (already joined: A70101; leaving loses data: A80103; with -f, and
// gs_stopcluster, the node says it cannot, exit 3) and leave it serving; the REST calls behind
// them; GridDB's messages and exit codes for bad arguments, a wrong password and no node; each
// command's log in GS_LOG with the password masked.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  freePorts, newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

/** Above any partitionNum (the default, 128, is what the node runs with). */
const PARTITION_NO_TOO_LARGE = 100_000;
const SINGLE_NODE = /^The request cannot be executed: .*clustering is not supported: this node is a cluster of one and stops only with the node \(gs_stopnode\)\.$/m;

describe('cluster commands', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome());
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  function command(name: string, args: readonly string[]): Promise<ToolRun> {
    return runTool(`${name}.ts`, args, node.env);
  }

  async function nodeStatus(): Promise<string> {
    const stat = await command('gs_stat', user);
    assert.equal(stat.code, 0, stat.stderr);
    return (JSON.parse(stat.stdout) as { cluster: { nodeStatus: string } }).cluster.nodeStatus;
  }

  function post(path: string): Promise<{ status: number; body: unknown }> {
    return fetch(`http://127.0.0.1:${node.systemPort}${path}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  }

  it('gs_config prints the node as its cluster\'s master, sorted, indent 4', async () => {
    const self = { address: '127.0.0.1', port: node.systemPort };
    const expected = JSON.stringify({
      follower: [], master: self, self: { ...self, status: 'ACTIVE' },
    }, null, 4);
    assert.deepEqual(await command('gs_config', user), { code: 0, stdout: `${expected}\n`, stderr: '' });
    assert.deepEqual(await command('gs_config', [...user, '-a', 'transaction']),
      { code: 0, stdout: `${expected}\n`, stderr: '' });
  });

  it('gs_partition prints every partition, one with -n, none lost with --loss', async () => {
    const all = await command('gs_partition', user);
    assert.equal(all.code, 0, all.stderr);
    const partitions = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    assert.ok(partitions.length > 2);
    assert.deepEqual(partitions.map((p) => p['pId']), partitions.map((_, i) => String(i)));
    for (const partition of partitions) {
      assert.deepEqual(Object.keys(partition), ['backup', 'catchup', 'maxLsn', 'owner', 'pId', 'status']);
      assert.equal(partition['status'], 'ON');
      assert.deepEqual(partition['owner'],
        { address: '127.0.0.1', lsn: partition['maxLsn'], port: node.systemPort });
    }
    assert.match(all.stdout, /^\[\n {4}\{\n {8}"backup": \[\],\n/);
    const one = await command('gs_partition', [...user, '-n', '2']);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(JSON.parse(one.stdout), [partitions[2]]);
    assert.deepEqual(await command('gs_partition', [...user, '--loss']),
      { code: 0, stdout: '[]\n', stderr: '' });
  });

  it('gs_joincluster on a serving node: A70101, exit 3', async () => {
    for (const args of [user, [...user, '-c', 'myCluster', '-n', '1', '-w', '5']]) {
      const join = await command('gs_joincluster', args);
      assert.equal(join.code, 3, join.stderr);
      assert.match(join.stderr,
        /^A70101: The GridDB node has already joined to the GridDB cluster\.$/m);
    }
    assert.equal(await nodeStatus(), 'ACTIVE');
  });

  it('gs_leavecluster: A80103 without -f; with -f the node cannot leave; it still serves', async () => {
    const refused = await command('gs_leavecluster', user);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr,
      /^A80103: If this node is left from the GridDB cluster, data loss may occur\.$/m);
    const forced = await command('gs_leavecluster', [...user, '-f']);
    assert.equal(forced.code, 3, forced.stderr);
    assert.match(forced.stderr, SINGLE_NODE);
    assert.equal(forced.stdout, '');
    assert.equal(await nodeStatus(), 'ACTIVE');
  });

  it('gs_stopcluster: the master says its cluster stops only with it; it still serves', async () => {
    const stop = await command('gs_stopcluster', [...user, '-w', '5']);
    assert.equal(stop.code, 3, stop.stderr);
    assert.match(stop.stderr, SINGLE_NODE);
    assert.equal(stop.stdout, '');
    assert.equal(await nodeStatus(), 'ACTIVE');
  });

  it('the REST calls: /node/join checks its parameters; /node/leave and /cluster/stop are 501', async () => {
    assert.deepEqual(await post('/node/join?clusterName=myCluster&minNodeNum=1'),
      { status: 200, body: {} });
    const otherName = await post('/node/join?clusterName=other');
    assert.equal(otherName.status, 400);
    assert.equal((otherName.body as { errorStatus: number }).errorStatus, 100);
    assert.equal((await post('/node/join')).status, 400);
    assert.equal((await post('/node/join?clusterName=myCluster&minNodeNum=-1')).status, 400);
    assert.equal((await post('/node/join?clusterName=myCluster&minNodeNum=3')).status, 501);
    for (const path of ['/node/leave', '/cluster/stop']) {
      const answer = await post(path);
      assert.equal(answer.status, 501, path);
      assert.equal((answer.body as { errorStatus: number }).errorStatus, 501);
    }
    const bad = await fetch(`http://127.0.0.1:${node.systemPort}/node/partition?loss=maybe`, {
      headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    });
    assert.equal(bad.status, 400);
    assert.equal(await nodeStatus(), 'ACTIVE');
  });

  it('refuses with GridDB\'s messages and exit codes', async () => {
    const [closedPort] = await freePorts(1);
    const wrong = ['-u', 'admin/wrong', '-s', `127.0.0.1:${node.systemPort}`];
    const cases: Array<[string, string[], number, RegExp]> = [
      ['gs_joincluster', [...user, '-n', '0'], 2, /^Specify a whole number of 1 or more for -n\.\(-n 0\)$/m],
      ['gs_joincluster', ['-u', 'admin'], 2, /^A00002: Specify -u option in the format USER\/PASS\.$/m],
      ['gs_partition', [...user, '-n', 'two'], 2, /^Specify a partition number for -n\.\(-n two\)$/m],
      ['gs_partition', [...user, '-n', String(PARTITION_NO_TOO_LARGE)], 1,
        /^A00100: Request error occurred\. \(400: partitionNo must be a whole number from 0 to \d+\)$/m],
      ['gs_config', [...user, '-a', 'public'], 2,
        /^Specify one of system, cluster, transaction, sync for -a\.\(-a public\)$/m],
      ['gs_stopcluster', [...user, '--force'], 2, /Unknown option '--force'/],
    ];
    for (const name of ['gs_joincluster', 'gs_leavecluster', 'gs_stopcluster', 'gs_config', 'gs_partition']) {
      cases.push([name, wrong, 1, /^A00102: Authentication failed\.$/m]);
      cases.push([name, ['-u', 'admin/admin', '-s', `127.0.0.1:${closedPort}`], 1,
        new RegExp(`^A00104: Failed to connect to the node\\.\\(node=127\\.0\\.0\\.1:${closedPort}\\)$`, 'm')]);
    }
    for (const [name, args, code, message] of cases) {
      const result = await command(name, args);
      assert.equal(result.code, code, `${name} ${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `${name} ${args.join(' ')}`);
    }
    const noEnvironment = await runTool('gs_leavecluster.ts', user,
      { ...node.env, GS_HOME: '', GS_LOG: '' });
    assert.equal(noEnvironment.code, 2);
    assert.match(noEnvironment.stderr, /^A00105: /m);
  });

  it('logs each run to $GS_LOG/<command>.log with the password masked', async () => {
    assert.equal((await command('gs_leavecluster', ['-u', 'admin/admin', '-s',
      `127.0.0.1:${node.systemPort}`])).code, 3);
    const log = readFileSync(join(node.env['GS_LOG']!, 'gs_leavecluster.log'), 'utf8');
    assert.match(log, /\[INFO\] .*start\. \(args: -u admin\/\*\*\* -s 127\.0\.0\.1:\d+\)/);
    assert.match(log, /\[ERROR\] .*A80103: If this node is left from the GridDB cluster/);
    assert.match(log, /end\. \(exit code 3\)/);
    assert.doesNotMatch(log, /admin\/admin/);
    for (const name of ['gs_joincluster', 'gs_stopcluster', 'gs_config', 'gs_partition']) {
      const text = readFileSync(join(node.env['GS_LOG']!, `${name}.log`), 'utf8');
      assert.match(text, /-u admin\/\*\*\*/, name);
      assert.doesNotMatch(text, /admin\/admin|admin\/wrong/, name);
    }
  });
});
