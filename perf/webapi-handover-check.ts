// Checks the fast lane's handover on this node version: a node:net server reads request heads
// itself, answers `POST /fast`, and hands every other request, at its boundary, to a node:http
// server (socket.pause, unshift the unread bytes, emit 'connection'). Each case sends its
// requests in chosen chunks on one keep-alive connection and checks the answers come in order.
//
//   node --import tsx perf/webapi-handover-check.ts [rounds]

import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, connect, type Socket } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');
const rounds = Number(process.argv[2] ?? 200);
let consumed = 0;

const http = createHttpServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const text = `slow ${request.method} ${request.url} ${Buffer.concat(parts).toString()}`;
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
});

function handOver(socket: Socket, unread: Buffer): void {
  socket.pause();
  socket.removeAllListeners('data');
  if (unread.length > 0) socket.unshift(unread);
  http.emit('connection', socket);
  consumed += (socket as unknown as { _handle?: { _consumed?: boolean } })._handle?._consumed ? 1 : 0;
  socket.resume();
}

const net = createNetServer((socket) => {
  let pending: Buffer = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf(HEAD_END);
      if (end < 0) return;
      const head = pending.toString('latin1', 0, end);
      if (!head.startsWith('POST /fast HTTP/1.1\r\n')) { handOver(socket, pending); return; }
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < end + 4 + length) return;
      const body = pending.toString('utf8', end + 4, end + 4 + length);
      pending = pending.subarray(end + 4 + length);
      const text = `fast ${body}`;
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    }
  };
  socket.on('data', onData);
});

function request(path: string, body: string): string {
  return `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

async function exchange(port: number, chunks: string[][], expected: string[]): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  for (const group of chunks) {
    socket.write(group.join(''));
    await new Promise((resolve) => setTimeout(resolve, Math.random() < 0.5 ? 0 : 2));
  }
  const deadline = Date.now() + 5000;
  const bodies = (): string[] => received.split(/HTTP\/1\.1 200 OK\r\n/).slice(1)
    .map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4));
  while (bodies().length < expected.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.destroy();
  const got = bodies().join('|');
  if (got !== expected.join('|')) throw new Error(`expected ${expected.join('|')}\n     got ${got}`);
}

await new Promise<void>((resolve) => net.listen(0, '127.0.0.1', () => resolve()));
const port = (net.address() as { port: number }).port;
let cases = 0;
for (let round = 0; round < rounds; round++) {
  // A random mix of fast and slow requests, cut at random byte positions into chunks.
  const count = 2 + Math.floor(Math.random() * 5);
  const kinds = Array.from({ length: count }, () => Math.random() < 0.5 ? '/fast' : '/slow');
  const firstSlow = kinds.indexOf('/slow');
  const expected = kinds.map((kind, i) => (firstSlow >= 0 && i >= firstSlow ? 'slow POST ' + kind + ' ' : kind === '/fast' ? 'fast ' : 'slow POST /slow ') + `b${i}`);
  const wire = kinds.map((kind, i) => request(kind, `b${i}`)).join('');
  const cuts = Array.from({ length: Math.floor(Math.random() * 4) }, () => Math.floor(Math.random() * wire.length)).sort((a, b) => a - b);
  const pieces: string[][] = [];
  let from = 0;
  for (const cut of [...cuts, wire.length]) { pieces.push([wire.slice(from, cut)]); from = cut; }
  await exchange(port, pieces.filter((piece) => piece[0]!.length > 0), expected);
  cases++;
}
console.log(`handover ok: ${cases} connections (${consumed} handed over with the parser consuming the handle), node ${process.version}`);
net.close();
http.close();
