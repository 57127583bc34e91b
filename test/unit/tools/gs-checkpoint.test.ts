// gs_checkpoint as a child process against a real node process with two partition groups:
// without an action it prints the periodic checkpoint's state; --off and --on change it (gs_stat
// shows it); --manual starts a checkpoint, and with -w returns once it has finished in every group
// (requestedCheckpointOperation counts whole manual checkpoints, one per request); GridDB's
// messages and exit codes for a missing -u, a bad -w and a wrong password.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import {
  newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

interface CheckpointReport {
  mode: string;
  periodicCheckpoint: string;
  requestedCheckpointOperation: number;
  pendingPartition: number;
  startTime: number;
  endTime: number;
}

describe('gs_checkpoint', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let store: ClientStore;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 2 } }));
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
    store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'checkpoint-test',
    });
  });

  after(async () => {
    await store.close();
    await node.stop();
    removeHome(node.home);
  });

  function checkpointCommand(args: readonly string[]): Promise<ToolRun> {
    return runTool('gs_checkpoint.ts', args, node.env);
  }

  async function checkpointReport(): Promise<CheckpointReport> {
    const stat = await runTool('gs_stat.ts', user, node.env);
    assert.equal(stat.code, 0, stat.stderr);
    return (JSON.parse(stat.stdout) as { checkpoint: CheckpointReport }).checkpoint;
  }

  it('prints ACTIVE, turns periodic checkpoints off and on', async () => {
    assert.deepEqual(await checkpointCommand(user), { code: 0, stdout: 'ACTIVE\n', stderr: '' });
    const quiet = { code: 0, stdout: '', stderr: '' };
    assert.deepEqual(await checkpointCommand([...user, '--off']), quiet);
    assert.equal((await checkpointReport()).periodicCheckpoint, 'INACTIVE');
    assert.equal((await checkpointCommand(user)).stdout, 'INACTIVE\n');
    assert.deepEqual(await checkpointCommand([...user, '--on']), quiet);
    assert.equal((await checkpointReport()).periodicCheckpoint, 'ACTIVE');
    assert.equal((await checkpointCommand(user)).stdout, 'ACTIVE\n');
  });

  it('--manual -w returns once the checkpoint has finished in every group', async () => {
    // Periodic checkpoints off, so that the only checkpoint is the one asked for.
    assert.equal((await checkpointCommand([...user, '--off'])).code, 0);
    const container = await store.putContainer({
      name: 'readings', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
    });
    await container.multiPut(Array.from({ length: 200 }, (_, i) => [`r${i}`, BigInt(i)]));
    const before = await checkpointReport();
    assert.equal(before.requestedCheckpointOperation, 0);

    const manual = await checkpointCommand([...user, '--manual', '-w', '60']);
    assert.equal(manual.code, 0, manual.stderr);
    assert.match(manual.stdout, /^\.*\nThe manual checkpoint has been completed\.\n$/);
    const after = await checkpointReport();
    assert.equal(after.requestedCheckpointOperation, 1);
    assert.equal(after.mode, 'REQUESTED_CHECKPOINT');
    assert.equal(after.pendingPartition, 0);
    assert.ok(after.endTime >= after.startTime && after.startTime >= before.startTime);
    assert.equal((await checkpointCommand([...user, '--on'])).code, 0);
  });

  it('--manual without -w says the checkpoint has started', async () => {
    const manual = await checkpointCommand([...user, '--manual']);
    assert.deepEqual(manual,
      { code: 0, stdout: 'The GridDB node checkpoint has been started.\n', stderr: '' });
  });

  it('refuses with GridDB\'s messages and exit codes', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['--manual'], 1, /^B60001: Specify a user name and a password\.\(-u USER\/PASS\)$/m],
      [[...user, '--manual', '-w', 'soon'], 2, /^A70002: Specify seconds to wait\.\(-w soon\)$/m],
      [['-u', 'admin/wrong', '-s', `127.0.0.1:${node.systemPort}`, '--off'], 1,
        /^A00102: Authentication failed\.$/m],
      [[...user, '--on', '--off'], 2, /--on and --off/],
      [[...user, '--off', '-w'], 2, /-w waits for a manual checkpoint/],
    ];
    for (const [args, code, message] of cases) {
      const result = await checkpointCommand(args);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
    assert.equal((await checkpointReport()).periodicCheckpoint, 'ACTIVE');
  });
});
