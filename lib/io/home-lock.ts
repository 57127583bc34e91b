// The exclusive lock on a node's home (GS_HOME), taken before anything in it is read or written and
// held for the life of the process, so two nodes never share one home (two containers on one volume
// would otherwise both recover, and one's clean stop would delete files the other still uses).
//
// The lock is GS_HOME/conf/store.lock, beside conf/store.pid: conf/ is where an operator looks
// for what a node left (GridDB's gridstore.pid), and the file is a lock, not data. Two ways:
// - flock: the file is opened and flock(LOCK_EX | LOCK_NB)ed through lib/io/native/home_lock.c
//   (Node has no flock), as LevelDB's LOCK. The kernel owns the lock: it goes when the process dies,
//   however it dies, so a crash leaves no stale lock, and it holds across PID namespaces and
//   containers sharing the file system. The file is never removed: removing it would let a second
//   process lock a new file while a third still holds the old one.
// - pid file (no addon): the file is created with link(2), which fails if it exists, as
//   PostgreSQL's postmaster.pid. An existing file names a holder; if its host is this one and its
//   pid is dead (or is our own pid: a container restarted as pid 1 again), the lock is stale and
//   taken over. Weaker: a holder in another PID namespace or on another host cannot be seen, so
//   such a file is never taken over (the message says to remove it by hand) and a live
//   unrelated process that reuses a dead holder's pid makes the home look in use.
// Either way the file holds one JSON line naming the holder, for messages:
//   {"pid":1234,"host":"db1","startedAt":"2026-01-02T03:04:05.000Z","lock":"flock"}
// A process that finds the lock taken throws StorageError('HOME_IN_USE') having changed nothing.

import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { nativeAddonPaths } from './native-addon-paths.ts';

/** Relative to GS_HOME. */
export const HOME_LOCK_FILE = 'conf/store.lock';
/** Tries before giving up when the file is replaced or removed while we lock it. */
const LOCK_ATTEMPT_COUNT_MAX = 4;
const LOCK_FILE_BYTES_MAX = 4096;

export type HomeLockKind = 'flock' | 'pid-file';

export interface HomeLockHolder {
  pid: number;
  host: string;
  startedAt: string;
  lock: HomeLockKind;
}

export interface HomeLock {
  readonly path: string;
  readonly kind: HomeLockKind;
  /** Set for the weaker pid-file lock: what it cannot see, to be logged at start. */
  readonly warning: string | undefined;
  /** The stale holder this lock was taken over from (pid-file lock; flock cannot tell). */
  readonly takenOverFrom: HomeLockHolder | undefined;
  /** Idempotent. A process that dies without it loses the lock (flock) or leaves a stale file. */
  release(): void;
}

/** What lib/io/native/home_lock.c exports. */
export interface HomeLockAddon {
  /** flock(fd, LOCK_EX | LOCK_NB): false when another open file holds it; throws on errors. */
  lockExclusive(fd: number): boolean;
}

export interface HomeLocker {
  readonly kind: HomeLockKind;
  /** Why there is no flock, for the pid-file lock. */
  readonly reason: string | undefined;
  /** Locks `home` (an absolute path); throws HOME_IN_USE naming the holder, or IO. */
  lock(home: string, options: { nowMs: number }): HomeLock;
  /** Who holds the lock of `home` now; undefined when nobody does (a moment ago). */
  holder(home: string): HomeLockHolder | undefined;
}

/** Lock files this process holds: flock would refuse a second open too, a pid file would not. */
const heldPaths = new Set<string>();

export function homeLockPath(home: string): string {
  return join(home, HOME_LOCK_FILE);
}

/** Loads the addon from the first of `addonPaths` that exists; never throws. */
export function loadHomeLocker(addonPaths: readonly string[]): HomeLocker {
  const addonPath = addonPaths.find((candidate) => fs.existsSync(candidate));
  if (addonPath === undefined) {
    const where = addonPaths.length === 0 ? 'nowhere to look' : `no ${addonPaths[0]}`;
    return pidFileLocker(`addon not built (${where}); run npm run build:native`);
  }
  try {
    const addon: unknown = createRequire(import.meta.url)(addonPath);
    const lockExclusive = (addon as Partial<HomeLockAddon> | null)?.lockExclusive;
    if (typeof lockExclusive !== 'function') {
      return pidFileLocker(`${addonPath} does not export lockExclusive`);
    }
    return flockLocker(addon as HomeLockAddon);
  } catch (cause) {
    return pidFileLocker(`${addonPath} failed to load: ${messageOf(cause)}`);
  }
}

function flockLocker(addon: HomeLockAddon): HomeLocker {
  const lockOnce = (path: string, text: string): number | 'replaced' => {
    const fd = openLockFile(path, fs.constants.O_RDWR | fs.constants.O_CREAT);
    try {
      if (!flockOrThrow(addon, fd, path)) throw inUse(path, parseHolder(readAll(fd, path)));
      // Someone removed or replaced the file after we opened it: ours locks nothing.
      if (!sameFile(fd, path)) {
        fs.closeSync(fd);
        return 'replaced';
      }
      // A pid-file holder (a process without the addon) does not flock: ask its pid.
      const previous = parseHolder(readAll(fd, path));
      if (previous?.lock === 'pid-file' && pidFileHolderMayLive(previous)) {
        throw inUse(path, previous);
      }
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, text, 0);
      return fd;
    } catch (error) {
      fs.closeSync(fd);
      throw error instanceof StorageError ? error : ioError('lock', path, error);
    }
  };
  return {
    kind: 'flock',
    reason: undefined,
    lock(home, { nowMs }) {
      const path = refuseIfHeldHere(home);
      fs.mkdirSync(dirname(path), { recursive: true });
      for (let attempt = 0; attempt < LOCK_ATTEMPT_COUNT_MAX; attempt++) {
        const fd = lockOnce(path, holderText('flock', nowMs));
        if (fd === 'replaced') continue;
        return heldLock({ path, kind: 'flock', warning: undefined, takenOverFrom: undefined },
          () => fs.closeSync(fd));
      }
      throw new StorageError('IO', `lock ${path}: the file was replaced ` +
        `${LOCK_ATTEMPT_COUNT_MAX} times while it was being locked`);
    },
    holder(home) {
      const path = homeLockPath(home);
      let fd: number;
      try {
        fd = fs.openSync(path, fs.constants.O_RDONLY);
      } catch {
        return undefined; // no file: nobody ever locked this home
      }
      try {
        if (flockOrThrow(addon, fd, path)) return undefined; // closing it below lets go at once
        return parseHolder(readAll(fd, path)) ?? unknownHolder();
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

function pidFileLocker(reason: string): HomeLocker {
  const warning = `the lock on the home is a pid file, not flock (${reason}): it cannot see a ` +
    'node of another PID namespace or host sharing this home';
  return {
    kind: 'pid-file',
    reason,
    lock(home, { nowMs }) {
      const path = refuseIfHeldHere(home);
      fs.mkdirSync(dirname(path), { recursive: true });
      const text = holderText('pid-file', nowMs);
      let takenOverFrom: HomeLockHolder | undefined;
      for (let attempt = 0; attempt < LOCK_ATTEMPT_COUNT_MAX; attempt++) {
        if (createExclusive(path, text)) {
          return heldLock({ path, kind: 'pid-file', warning, takenOverFrom }, () => {
            // Only our own file: never one a later holder wrote after ours was taken over.
            if (readIfExists(path) === text) fs.rmSync(path, { force: true });
          });
        }
        const existing = readIfExists(path);
        if (existing === undefined) continue; // removed meanwhile: try again
        const holder = parseHolder(existing);
        if (holder === undefined || pidFileHolderMayLive(holder)) throw inUse(path, holder);
        // Stale. Remove it only if it still says what was judged, not a newer holder's file.
        if (readIfExists(path) === existing) fs.rmSync(path, { force: true });
        takenOverFrom = holder;
      }
      throw new StorageError('IO', `lock ${path}: the file changed ${LOCK_ATTEMPT_COUNT_MAX} ` +
        'times while it was being locked');
    },
    holder(home) {
      const existing = readIfExists(homeLockPath(home));
      if (existing === undefined) return undefined;
      const holder = parseHolder(existing);
      if (holder === undefined) return unknownHolder();
      return pidFileHolderMayLive(holder) ? holder : undefined;
    },
  };
}

function refuseIfHeldHere(home: string): string {
  const path = homeLockPath(home);
  if (heldPaths.has(path)) throw inUse(path, parseHolder(readIfExists(path) ?? ''));
  return path;
}

function heldLock(
  fields: Omit<HomeLock, 'release'>,
  letGo: () => void,
): HomeLock {
  assert(!heldPaths.has(fields.path));
  heldPaths.add(fields.path);
  let released = false;
  return {
    ...fields,
    release() {
      if (released) return;
      released = true;
      heldPaths.delete(fields.path);
      letGo();
    },
  };
}

/**
 * The whole file appears at once, holder included (link(2) of a file already written), or not at
 * all: a reader never sees a half-written holder.
 */
function createExclusive(path: string, text: string): boolean {
  const temporaryPath = `${path}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporaryPath, text);
    fs.linkSync(temporaryPath, path);
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw ioError('lock', path, cause);
  } finally {
    fs.rmSync(temporaryPath, { force: true });
  }
}

/** Can a pid-file holder still be running? Only a pid of this host can be asked. */
function pidFileHolderMayLive(holder: HomeLockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return false; // not us (heldPaths says): a reused pid
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

function holderText(lock: HomeLockKind, nowMs: number): string {
  const holder: HomeLockHolder = {
    pid: process.pid, host: hostname(), startedAt: new Date(nowMs).toISOString(), lock,
  };
  return `${JSON.stringify(holder)}\n`;
}

/** The holder a lock file names; undefined for anything else (empty, cut, not ours). */
export function parseHolder(text: string): HomeLockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<HomeLockHolder> | null;
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, startedAt, lock } = value;
    if (!Number.isSafeInteger(pid) || (pid as number) < 1) return undefined;
    if (typeof host !== 'string' || typeof startedAt !== 'string') return undefined;
    if (lock !== 'flock' && lock !== 'pid-file') return undefined;
    return { pid: pid as number, host, startedAt, lock };
  } catch {
    return undefined;
  }
}

function unknownHolder(): HomeLockHolder {
  return { pid: 0, host: '', startedAt: '', lock: 'flock' };
}

function inUse(path: string, holder: HomeLockHolder | undefined): StorageError {
  const home = dirname(dirname(path));
  if (holder === undefined || holder.pid === 0) {
    return new StorageError('HOME_IN_USE', `the home ${home} is in use by another process whose ` +
      `lock file ${path} does not say which; if no node runs on this home, remove that file`);
  }
  const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
  const stale = holder.lock === 'pid-file' && where !== ''
    ? `; a pid of another host cannot be checked: if no node runs there, remove ${path}` : '';
  return new StorageError('HOME_IN_USE', `the home ${home} is in use by the node with pid ` +
    `${holder.pid}${where} (started ${holder.startedAt}; lock file ${path})${stale}`);
}

function flockOrThrow(addon: HomeLockAddon, fd: number, path: string): boolean {
  try {
    return addon.lockExclusive(fd);
  } catch (cause) {
    throw ioError('flock', path, cause);
  }
}

function openLockFile(path: string, flags: number): number {
  try {
    return fs.openSync(path, flags, 0o644);
  } catch (cause) {
    throw ioError('open', path, cause);
  }
}

function sameFile(fd: number, path: string): boolean {
  try {
    const opened = fs.fstatSync(fd);
    const named = fs.statSync(path);
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false; // removed
  }
}

function readAll(fd: number, path: string): string {
  const buffer = Buffer.alloc(LOCK_FILE_BYTES_MAX);
  try {
    const readBytes = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, readBytes).toString('utf8');
  } catch (cause) {
    throw ioError('read', path, cause);
  }
}

function readIfExists(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8').slice(0, LOCK_FILE_BYTES_MAX);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('read', path, cause);
  }
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function ioError(operation: string, path: string, cause: unknown): StorageError {
  return new StorageError('IO', `${operation} ${path}: ${messageOf(cause)}`, { cause });
}

/** The process-wide locker: flock when the addon loads, else the pid file. */
export const homeLocker: HomeLocker = loadHomeLocker(nativeAddonPaths('home_lock'));
