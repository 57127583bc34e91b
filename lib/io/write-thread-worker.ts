// The body of the write thread (write-thread.ts) and the messages it exchanges. The body is plain
// JavaScript, run as an eval'd worker: it needs no TypeScript loader, so the thread is up in tens
// of ms where a worker that registers tsx first took half a second, and there is no file of its own
// for the build to carry into dist/.
//
// It takes one pwrite at a time and answers each with the buffer (handed back for reuse) and the
// error, if any. It nices itself first, on Linux for this thread only (there a thread is a task and
// pid 0 names the caller), so that waking it for a write never preempts the engine thread waiting
// to acknowledge commits; elsewhere setPriority would nice the whole process, so it does not.

/** One write: `lengthBytes` of `buffer` (transferred) to `fd` at `offsetBytes`. */
export interface WriteRequest {
  id: number;
  fd: number;
  buffer: ArrayBuffer;
  lengthBytes: number;
  offsetBytes: number;
}

export interface WriteAnswer {
  id: number;
  /** The request's buffer, transferred back. */
  buffer: ArrayBuffer;
  /** The system error's message and code when the write failed. */
  error?: { message: string; code: string | undefined };
}

export interface WriteThreadData {
  /** The thread's nice value (os.setPriority); 0 leaves it as the process's. */
  nice: number;
}

export const WRITE_THREAD_SOURCE = `
const { writeSync } = require('node:fs');
const { setPriority } = require('node:os');
const { parentPort, workerData } = require('node:worker_threads');
try {
  if (process.platform === 'linux' && workerData.nice > 0) setPriority(0, workerData.nice);
} catch {
  // Not allowed here (a sandbox's seccomp): the writes go on at the process's priority.
}
parentPort.on('message', ({ id, fd, buffer, lengthBytes, offsetBytes }) => {
  const bytes = new Uint8Array(buffer, 0, lengthBytes);
  let answer = { id, buffer };
  try {
    let writtenBytes = 0;
    while (writtenBytes < lengthBytes) {
      writtenBytes += writeSync(fd, bytes, writtenBytes, lengthBytes - writtenBytes,
        offsetBytes + writtenBytes);
    }
  } catch (error) {
    answer = { id, buffer, error: { message: String(error.message), code: error.code } };
  }
  parentPort.postMessage(answer, [buffer]);
});
`;
