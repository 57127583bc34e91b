// The lock on a node's home (lib/io/home-lock.ts), both ways it is taken: flock through the addon,
// and the pid file without it. Holders are child processes (home-lock-child.ts): flock belongs to
// an open file description, and a pid is only stale once its process is gone. The flock cases
// skip, saying why, only if the addon is not built.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it, type TestContext } from 'node:test';
import {
  homeLocker, homeLockPath, loadHomeLocker, type HomeLocker, type HomeLockKind,
} from '../../../lib/io/home-lock.ts';

const CHILD = fileURLToPath(new URL('./home-lock-child.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;

interface ChildResult {
  locked: boolean;
  kind?: HomeLockKind;
  takenOverFrom?: number | null;
  code?: string;
  message?: string;
}

interface Holder {
  child: ChildProcess;
  result: ChildResult;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
const root = mkdtempSync(join(tmpdir(), 'store-home-lock-'));
after(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  rmSync(root, { recursive: true, force: true });
});

let homeCount = 0;
function newHome(): string {
  return join(root, `home-${homeCount++}`);
}

/** A child that tries to lock `home`; resolves once it has said whether it holds the lock. */
async function lockInChild(home: string, kind: HomeLockKind): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, home, kind],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) =>
    resolve(code)));
  let text = '';
  const result = await new Promise<ChildResult>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer: ${text}`)), CHILD_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      resolve(JSON.parse(text.slice(0, newline)) as ChildResult);
    });
    child.once('exit', () => reject(new Error(`exited without an answer: ${text}`)));
  });
  return { child, result, exited };
}

async function release(holder: Holder): Promise<void> {
  holder.child.stdin!.end();
  assert.equal(await holder.exited, 0);
}

async function crash(holder: Holder): Promise<void> {
  holder.child.kill('SIGKILL');
  await holder.exited;
}

function skipWithoutAddon(t: TestContext, kind: HomeLockKind): boolean {
  if (kind === 'pid-file' || homeLocker.kind === 'flock') return false;
  console.log(`home-lock flock test skipped: ${homeLocker.reason}`);
  t.skip(`no addon: ${homeLocker.reason}`);
  return true;
}

function lockerOf(kind: HomeLockKind): HomeLocker {
  return kind === 'flock' ? homeLocker : loadHomeLocker([]);
}

for (const kind of ['flock', 'pid-file'] as const) {
  describe(`home lock: ${kind}`, { timeout: 120_000 }, () => {
    it('a second process is refused, naming the holder; once released, the next one takes it',
      async (t) => {
        if (skipWithoutAddon(t, kind)) return;
        const home = newHome();
        const first = await lockInChild(home, kind);
        assert.deepEqual(first.result, { locked: true, kind, takenOverFrom: null });
        const second = await lockInChild(home, kind);
        assert.equal(second.result.locked, false);
        assert.equal(second.result.code, 'HOME_IN_USE');
        assert.match(second.result.message!,
          new RegExp(`^the home ${home} is in use by the node with pid ${first.child.pid} `));
        assert.equal(await second.exited, 3);
        const holder = lockerOf(kind).holder(home);
        assert.equal(holder?.pid, first.child.pid);
        assert.equal(holder?.host, hostname());
        await release(first);
        assert.equal(lockerOf(kind).holder(home), undefined);
        const third = await lockInChild(home, kind);
        assert.equal(third.result.locked, true);
        await release(third);
      });

    it('after the holder is killed (SIGKILL), the next process takes the lock over', async (t) => {
      if (skipWithoutAddon(t, kind)) return;
      const home = newHome();
      const first = await lockInChild(home, kind);
      assert.equal(first.result.locked, true);
      await crash(first);
      const next = await lockInChild(home, kind);
      assert.equal(next.result.locked, true, String(next.result.message));
      // Only the pid file can tell a stale holder from one that let go.
      if (kind === 'pid-file') assert.equal(next.result.takenOverFrom, first.child.pid);
      const written = JSON.parse(readFileSync(homeLockPath(home), 'utf8')) as { pid: number };
      assert.equal(written.pid, next.child.pid);
      await release(next);
    });

    it('one process cannot lock a home twice; release is idempotent', (t) => {
      if (skipWithoutAddon(t, kind)) return;
      const home = newHome();
      const locker = lockerOf(kind);
      const lock = locker.lock(home, { nowMs: 0 });
      assert.throws(() => locker.lock(home, { nowMs: 0 }),
        { code: 'HOME_IN_USE', message: new RegExp(`pid ${process.pid} `) });
      lock.release();
      lock.release();
      locker.lock(home, { nowMs: 0 }).release();
    });
  });
}

describe('home lock: pid file, stale or not', () => {
  const locker = loadHomeLocker([]);
  const writeHolder = (home: string, holder: Record<string, unknown>) => {
    mkdirSync(join(home, 'conf'), { recursive: true });
    writeFileSync(homeLockPath(home), `${JSON.stringify(holder)}\n`);
  };

  it('says it is weaker, and why', () => {
    const lock = locker.lock(newHome(), { nowMs: 0 });
    assert.match(lock.warning!, /pid file, not flock \(addon not built .*cannot see a node of /);
    lock.release();
  });

  it('takes over a file naming its own pid (a container restarted as the same pid)', () => {
    const home = newHome();
    writeHolder(home, { pid: process.pid, host: hostname(), startedAt: 'x', lock: 'pid-file' });
    const lock = locker.lock(home, { nowMs: 0 });
    assert.equal(lock.takenOverFrom?.pid, process.pid);
    lock.release();
  });

  it('never takes over a holder of another host, nor a file it cannot read', () => {
    const home = newHome();
    writeHolder(home, { pid: 1, host: `not-${hostname()}`, startedAt: 'x', lock: 'pid-file' });
    assert.throws(() => locker.lock(home, { nowMs: 0 }), {
      code: 'HOME_IN_USE', message: /pid 1 on host not-.* another host cannot be checked/,
    });
    writeFileSync(homeLockPath(home), 'garbage');
    assert.throws(() => locker.lock(home, { nowMs: 0 }), {
      code: 'HOME_IN_USE', message: /does not say which; if no node runs on this home, remove/,
    });
    assert.equal(readFileSync(homeLockPath(home), 'utf8'), 'garbage');
  });

  it('a live pid-file holder also stops a process that has flock', (t) => {
    if (homeLocker.kind !== 'flock') return void t.skip('no addon');
    const home = newHome();
    // A process without the addon holds it: our parent, alive.
    writeHolder(home, { pid: process.ppid, host: hostname(), startedAt: 'x', lock: 'pid-file' });
    assert.throws(() => homeLocker.lock(home, { nowMs: 0 }),
      { code: 'HOME_IN_USE', message: new RegExp(`pid ${process.ppid} `) });
  });
});
