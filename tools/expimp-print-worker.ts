// One of gs_export's print threads (expimp-print-thread.ts starts PRINT_THREAD_COUNT of them and
// gives each file to one): prints the pages the main thread fetched (expimp-page-printer.ts) and
// writes them to their row files with synchronous writes, which block this thread only. The main
// thread meanwhile waits on the node for the next page, so printing (mostly the DOUBLE cells'
// shortest digits, double_text.cc) no longer takes turns with fetching. Requests come in order and are served in
// order, so a file's lines are its pages' lines in the order sent. A failure (a malformed page,
// a write error) closes that file and is answered once; later requests for it are dropped.

import { closeSync, openSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { assert } from '../lib/base/assert.ts';
import type { PrintReply, PrintRequest } from './expimp-print-messages.ts';
import { pagePrinterOf } from './expimp-page-printer.ts';

interface OpenFile {
  fd: number;
  path: string;
  print: ReturnType<typeof pagePrinterOf>;
}

const port = parentPort;
assert(port !== null, 'expimp-print-worker runs as a worker thread');
const files = new Map<number, OpenFile>();

port.on('message', (request: PrintRequest) => {
  const reply = serve(request);
  if (reply !== undefined) port.postMessage(reply);
});

function serve(request: PrintRequest): PrintReply | undefined {
  if (request.kind === 'open') {
    assert(!files.has(request.file));
    let fd: number | undefined;
    try {
      const place = { directory: request.directory, stem: request.stem, rowIndex: 0 };
      const print = pagePrinterOf(request.columns, place);
      fd = openSync(request.path, 'w');
      writeAll(fd, Buffer.from(request.header, 'utf8'));
      files.set(request.file, { fd, path: request.path, print });
      return undefined;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      return failed(request.file, request.path, error);
    }
  }
  const file = files.get(request.file);
  if (request.kind === 'close') {
    if (file !== undefined) {
      files.delete(request.file);
      try {
        closeSync(file.fd);
      } catch (error) {
        return failed(request.file, file.path, error);
      }
    }
    return { kind: 'closed', file: request.file };
  }
  if (file === undefined) return undefined; // failed before: dropped
  try {
    writeAll(file.fd, file.print(request.bytes, request.count, request.firstRowIndex));
    return { kind: 'printed', file: request.file, count: request.count };
  } catch (error) {
    files.delete(request.file);
    closeSync(file.fd);
    return failed(request.file, file.path, error);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

function failed(file: number, path: string, error: unknown): PrintReply {
  const detail = error instanceof Error ? error.message : String(error);
  return { kind: 'failed', file, message: `${path}: ${detail}` };
}
