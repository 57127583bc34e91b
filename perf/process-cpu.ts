// The CPU time a process has used, for benchmarks that run the node as a child process: the
// parent's process.cpuUsage() does not see a child's. Read from /proc/<pid>/stat (Linux): utime
// and stime, fields 14 and 15, in clock ticks of USER_HZ, which Linux fixes at 100 for /proc. A
// tick is 10 ms, so measure runs of seconds. Every thread of the process counts (workers, GC,
// the libuv pool that runs fdatasync), as a core's time does.

import { readFileSync } from 'node:fs';
import { assert } from '../lib/base/assert.ts';

const PROC_TICKS_PER_S = 100;

/** User plus system CPU time of process `pid` so far, in ms; undefined where /proc is not. */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  assert(Number.isFinite(ticks), `/proc/${pid}/stat has no CPU times`);
  return (ticks * 1000) / PROC_TICKS_PER_S;
}

/** This process's own user plus system CPU time so far, in ms. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
