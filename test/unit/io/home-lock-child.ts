// A process that takes the lock on a home for home-lock.test.ts (flock is per open file
// description, so two holders must be two processes). Usage:
//   node --import tsx test/unit/io/home-lock-child.ts <home> <flock|pid-file>
// Prints one JSON line: {"locked":true,"kind":...,"takenOverFrom":pid|null} then holds the lock
// until its stdin closes (released cleanly, exit 0) or it is killed; or {"locked":false,"code":...,
// "message":...} and exits 3.

import { homeLocker, loadHomeLocker } from '../../../lib/io/home-lock.ts';

const [home, kind] = process.argv.slice(2);
if (home === undefined || (kind !== 'flock' && kind !== 'pid-file')) {
  console.error('usage: home-lock-child.ts <home> <flock|pid-file>');
  process.exit(2);
}
const locker = kind === 'pid-file' ? loadHomeLocker([]) : homeLocker;
try {
  const lock = locker.lock(home, { nowMs: Date.now() });
  console.log(JSON.stringify({
    locked: true, kind: lock.kind, takenOverFrom: lock.takenOverFrom?.pid ?? null,
  }));
  process.stdin.resume();
  process.stdin.once('end', () => {
    lock.release();
    process.exit(0);
  });
} catch (error) {
  const { code, message } = error as { code?: string; message: string };
  console.log(JSON.stringify({ locked: false, code, message }));
  process.exit(3);
}
