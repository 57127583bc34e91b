// gs_backup, gs_backuplist and gs_restore against a real node process (issue 16, Must show 3 and
// 4): a backup taken while 4 clients write (each its own connection, logWriteMode 0, so an
// acknowledged row is durable), restored into a new, empty GS_HOME: dat-check passes on every
// partition of the restored home, and the node started on it holds every row acknowledged before
// gs_backup was started (and only rows the clients wrote, with their values). Then the error
// paths and exit codes: a restore onto a non-empty home, a backup name taken, a bad name, a
// refused --mode, a backup that is not OK, an unknown backup, a stopped node; --help of each.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../../lib/client/store-factory.ts';
import type { ContainerDefinition } from '../../../../lib/schema/container-schema.ts';
import { main as datCheck } from '../../../../tools/dat-check.ts';
import {
  newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../../node/node-process.ts';

const CLIENT_COUNT = 4;
/** Containers each client writes, round robin: rows spread over several partitions. */
const CONTAINERS_PER_CLIENT = 4;
/** Rows each client has acknowledged before the backup starts. */
const ROWS_BEFORE_BACKUP_MIN = 150;
/** Rows a client writes at most: the writers stop by themselves. */
const ROWS_PER_CLIENT_MAX = 20_000;
const BACKUP_NAME = 'b1';

function containerName(client: number, index: number): string {
  return `c${client}_${index}`;
}

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
  };
}

function clientOf(port: number): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${port}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'backup-test',
  });
}

/** A writer: puts rows `<client>-<n>` = n until told to stop; the keys acknowledged, in order. */
class Writer {
  readonly acknowledged: string[] = [];
  private stopping = false;
  readonly done: Promise<void>;

  constructor(private readonly store: ClientStore, private readonly client: number) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    const containers = [];
    for (let index = 0; index < CONTAINERS_PER_CLIENT; index++) {
      containers.push(await this.store.putContainer(definition(containerName(this.client, index))));
    }
    for (let n = 0; n < ROWS_PER_CLIENT_MAX && !this.stopping; n++) {
      await containers[n % CONTAINERS_PER_CLIENT]!.put([`${this.client}-${n}`, BigInt(n)]);
      this.acknowledged.push(`${this.client}-${n}`);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
  }
}

describe('gs_backup, gs_backuplist, gs_restore', { timeout: 600_000 }, () => {
  let node: NodeProcess;
  let restoredHome: string;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { logWriteMode: 0 } }));
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
    restoredHome = mkdtempSync(join(tmpdir(), 'store-restored-'));
  });

  after(async () => {
    await node.kill();
    removeHome(node.home);
    removeHome(restoredHome);
  });

  function command(name: string, args: readonly string[], env = node.env): Promise<ToolRun> {
    return runTool(`${name}.ts`, args, env);
  }

  const restoredEnv = () => ({ ...process.env, GS_HOME: restoredHome,
    GS_LOG: join(restoredHome, 'log') });

  it('a backup taken while 4 clients write restores every row acknowledged before it',
    async () => {
      const stores = Array.from({ length: CLIENT_COUNT }, () => clientOf(node.transactionPort));
      const writers = stores.map((store, client) => new Writer(store, client));
      try {
        while (writers.some((writer) => writer.acknowledged.length < ROWS_BEFORE_BACKUP_MIN)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // The backup's point is after this moment: every key acknowledged by now must come back.
        const acknowledgedBefore = writers.flatMap((writer) => [...writer.acknowledged]);
        const counts = writers.map((writer) => writer.acknowledged.length);
        const backup = await command('gs_backup', [...user, '-w', '300', BACKUP_NAME]);
        assert.equal(backup.code, 0, backup.stderr);
        assert.match(backup.stdout, /The backup b1 has been completed\./);
        // Writes went on during the backup.
        assert.ok(writers.every((writer, i) => writer.acknowledged.length > counts[i]!),
          'the clients wrote during the backup');
        await Promise.all(writers.map((writer) => writer.stop()));

        const list = await command('gs_backuplist', []);
        assert.equal(list.code, 0, list.stderr);
        assert.match(list.stdout, /^BackupName +Status +StartTime +EndTime\n-+\nb1 +OK +\d{4}-/);
        const details = await command('gs_backuplist', [BACKUP_NAME]);
        assert.equal(details.code, 0, details.stderr);
        const info = JSON.parse(details.stdout) as { status: string; partitions: unknown[] };
        assert.equal(info.status, 'OK');
        assert.equal(info.partitions.length, 128);

        const restore = await command('gs_restore',
          ['-d', join(node.home, 'backup'), BACKUP_NAME], restoredEnv());
        assert.equal(restore.code, 0, restore.stderr);
        assert.match(restore.stdout, /restore b1: 100%/);
        assert.match(restore.stdout, /The backup b1 has been restored into /);
        // The PostgreSQL port's SCRAM verifiers travel with the backup like conf/password.
        const scram = readFileSync(join(node.home, 'conf', 'password.scram'), 'utf8');
        assert.match(scram, /SCRAM-SHA-256/);
        assert.equal(readFileSync(join(node.home, 'backup', BACKUP_NAME, 'conf', 'password.scram'), 'utf8'), scram);
        assert.equal(readFileSync(join(restoredHome, 'conf', 'password.scram'), 'utf8'), scram);

        const dataRoot = join(restoredHome, 'data');
        const partitions = readdirSync(dataRoot).filter((name) => /^\d+$/.test(name));
        assert.ok(partitions.length > 0);
        for (const partition of partitions) {
          const lines: string[] = [];
          const output = { out: (text: string) => lines.push(text),
            err: (text: string) => lines.push(text) };
          const code = await datCheck(['--data', dataRoot, '--partition', partition], output);
          assert.equal(code, 0, `dat-check partition ${partition}: ${lines.join('\n')}`);
        }

        const restored = await startNodeProcess(restoredHome);
        const reader = clientOf(restored.transactionPort);
        try {
          const present = new Map<string, bigint>();
          for (let client = 0; client < CLIENT_COUNT; client++) {
            for (let index = 0; index < CONTAINERS_PER_CLIENT; index++) {
              const container = await reader.getContainer(containerName(client, index));
              assert.ok(container !== undefined, containerName(client, index));
              const rows = await (await container.query('SELECT *').fetch()).toArray();
              for (const row of rows) present.set(row[0] as string, row[1] as bigint);
            }
          }
          const missing = acknowledgedBefore.filter((key) => !present.has(key));
          assert.deepEqual(missing.slice(0, 10), [], `${missing.length} acknowledged rows missing`);
          for (const [key, value] of present) {
            assert.equal(value, BigInt(key.split('-')[1]!), key);
          }
        } finally {
          await reader.close();
          await restored.stop();
        }
      } finally {
        await Promise.all(writers.map((writer) => writer.stop().catch(() => undefined)));
        await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
      }
    });

  it('refuses a non-empty home, a taken or bad name, --mode, a backup not OK', async () => {
    const restoreAgain = await command('gs_restore', ['-d', join(node.home, 'backup'),
      BACKUP_NAME], restoredEnv());
    assert.equal(restoreAgain.code, 3, restoreAgain.stderr);
    assert.match(restoreAgain.stderr, /^The restore target is not empty: .*data holds \d+ entries/m);

    const backupRoot = join(node.home, 'backup');
    const ng = join(backupRoot, 'broken');
    // A backup that failed: gs_backuplist shows NG and gs_restore refuses it.
    mkdirSync(ng);
    const info = JSON.parse(readFileSync(join(backupRoot, 'b1', 'gs_backup_info.json'), 'utf8')) as
      Record<string, unknown>;
    writeFileSync(join(ng, 'gs_backup_info.json'), JSON.stringify({ ...info, backupName: 'broken',
      status: 'NG', error: 'IO: disk full' }));
    const listed = await command('gs_backuplist', []);
    assert.match(listed.stdout, /^broken +NG /m);
    const empty = mkdtempSync(join(tmpdir(), 'store-restore-empty-'));
    try {
      const emptyEnv = { ...process.env, GS_HOME: empty, GS_LOG: join(empty, 'log') };
      const refused = await command('gs_restore', ['-d', backupRoot, 'broken'], emptyEnv);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr,
        /^The backup broken cannot be restored: its status is NG \(IO: disk full\), not OK\.$/m);
      const unknown = await command('gs_restore', ['-d', backupRoot, 'nosuch'], emptyEnv);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^The backup nosuch does not exist\. \(.*nosuch\)$/m);
      const test = await command('gs_restore', ['-d', backupRoot, '--test', BACKUP_NAME], emptyEnv);
      assert.equal(test.code, 0, test.stderr);
      assert.match(test.stdout, /\d+ files, .* \(--test: nothing copied\)/);
      assert.ok(!existsSync(join(empty, 'data')), '--test copies nothing');
    } finally {
      removeHome(empty);
    }

    const cases: Array<[string, string[], number, RegExp]> = [
      ['gs_backup', [...user, BACKUP_NAME], 1,
        /^A00100: Request error occurred\. \(400: the backup b1 exists already \(.*\)\)$/m],
      ['gs_backup', [...user, 'has-dash'], 2,
        /^Specify a valid backup name: the backup name has-dash may hold only letters, digits and _\.$/m],
      ['gs_backup', [...user, 'thirteen_char'], 2, /longer than 12 characters/],
      ['gs_backup', [...user], 2, /^Specify a backup name\.$/m],
      ['gs_backup', [...user, '--mode', 'incremental', 'b2'], 2,
        /^The backup mode incremental is not supported: this node takes full backups only/m],
      ['gs_backup', ['-u', 'admin/wrong', '-s', `127.0.0.1:${node.systemPort}`, 'b2'], 1,
        /^A00102: Authentication failed\.$/m],
      ['gs_backup', ['-s', `127.0.0.1:${node.systemPort}`, 'b2'], 2, /^A00002: /m],
      ['gs_backuplist', ['nosuch'], 1, /^The backup nosuch does not exist\./m],
      ['gs_restore', [], 2, /^Specify a backup name\.$/m],
    ];
    for (const [name, args, code, message] of cases) {
      const result = await command(name, args);
      assert.equal(result.code, code, `${name} ${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `${name} ${args.join(' ')}`);
    }
    // The node checks too, for any client of the API.
    const answer = await fetch(`http://127.0.0.1:${node.systemPort}/node/backup?backupName=a%2Fb`, {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    });
    assert.equal(answer.status, 400);
    assert.ok(!existsSync(join(backupRoot, 'b2')));
  });

  it('with the engine in worker threads: each worker copies its group, the backup restores, general users too',
    async () => {
      const home = newNodeHome();
      const other = await startNodeProcess(home, { STORE_ENGINE_THREAD: 'worker' });
      const target = mkdtempSync(join(tmpdir(), 'store-restored-worker-'));
      try {
        const store = clientOf(other.transactionPort);
        const container = await store.putContainer(definition('w'));
        await container.multiPut(Array.from({ length: 100 }, (_, n) => [`k${n}`, BigInt(n)]));
        await store.sql("CREATE USER reader IDENTIFIED BY 'r3ader'");
        await store.sql('CREATE DATABASE sales');
        await store.sql('GRANT SELECT ON sales TO reader');
        await store.close();
        const result = await command('gs_backup',
          ['-u', 'admin/admin', '-s', `127.0.0.1:${other.systemPort}`, '-w', '300', 'w1'],
          other.env);
        assert.equal(result.code, 0, result.stderr);
        await other.stop();
        const targetEnv = { ...process.env, GS_HOME: target, GS_LOG: join(target, 'log') };
        const restore = await command('gs_restore', ['-d', join(home, 'backup'), 'w1'], targetEnv);
        assert.equal(restore.code, 0, restore.stderr);
        const restored = await startNodeProcess(target);
        const reader = clientOf(restored.transactionPort);
        try {
          const rows = await (await (await reader.getContainer('w'))!.query('SELECT *').fetch())
            .toArray();
          assert.equal(rows.length, 100);
          const general = getStore({ notificationMember: `127.0.0.1:${restored.transactionPort}`,
            clusterName: 'myCluster', username: 'reader', password: 'r3ader' });
          const generalRows = await (await (await general.getContainer('w'))!.query('SELECT *').fetch())
            .toArray();
          assert.equal(generalRows.length, 100, 'the general user logs in to the restored node');
          await general.close();
          const granted = await reader.sql('GRANT ALL ON sales TO reader')
            .then(() => 'ok', (error: { code?: string }) => error.code);
          assert.equal(granted, 'TXN_OTHER_PRIVILEGE_EXISTS', 'the database and its grant came back');
        } finally {
          await reader.close();
          await restored.stop();
        }
      } finally {
        await other.stop();
        removeHome(home);
        removeHome(target);
      }
    });

  it('a backupPath that cannot hold a directory, a backup directory that is not there',
    async () => {
      const other = await startNodeProcess(newNodeHome({ dataStore: { backupPath: '/dev/null/b' } }));
      try {
        const result = await command('gs_backup',
          ['-u', 'admin/admin', '-s', `127.0.0.1:${other.systemPort}`, 'b1'], other.env);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /^A00100: Request error occurred\. \(400: the backup directory \/dev\/null\/b\/b1 cannot be written \(\/dataStore\/backupPath\): /m);
        const list = await command('gs_backuplist', [], other.env);
        assert.equal(list.code, 1);
        assert.match(list.stderr, /^The backup directory \/dev\/null\/b does not exist\.$/m);
      } finally {
        await other.stop();
        removeHome(other.home);
      }
    });

  it('--help of each command, the commands\' logs, and a backup of a stopped node', async () => {
    for (const name of ['gs_backup', 'gs_backuplist', 'gs_restore']) {
      const help = await command(name, ['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`^Usage: ${name} `, 'm'));
      assert.match(help.stdout, /Exit codes:/);
    }
    const log = readFileSync(join(node.env['GS_LOG']!, 'gs_backup.log'), 'utf8');
    assert.match(log, /start\. \(args: -u admin\/\*\*\* /);
    assert.doesNotMatch(log, /admin\/admin/);
    await node.stop();
    const stopped = await command('gs_backup', [...user, 'b3']);
    assert.equal(stopped.code, 1);
    assert.match(stopped.stderr, /^A00104: Failed to connect to the node\.\(node=127\.0\.0\.1:\d+\)$/m);
  });
});
