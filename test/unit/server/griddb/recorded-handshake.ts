// What GridDB's C client 5.8 (unmodified, test/conformance/griddb/handshake.c) sent to a store
// node, recorded through a TCP proxy: CONNECT (version 15), LOGIN (admin/admin, myCluster, the
// acceptable-feature-version option), GET_PARTITION_ADDRESS (master resolvable), DISCONNECT.

import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export const RECORDED_CLUSTER = 'myCluster';
export const RECORDED_DIGESTS = new Map([['admin', createHash('sha256').update('admin').digest('hex')]]);

export const RECORDED_CONNECT = Buffer.from('7824e0030000000000000000ffffffff1600000064000000' +
  '00000000010000000f000000020000000100', 'hex');
export const RECORDED_LOGIN = Buffer.from('7824e0030000000000000000ffffffff8000000066000000' +
  '0000000002000000000000000c000000f82a06000000fd2a050000000500000061646d696e400000003863363937' +
  '3665356235343130343135626465393038626434646565313564666231363761396338373366633462623861383166' +
  '366632616234343861393138ffffff7f00090000006d79436c757374657200', 'hex');
export const RECORDED_PARTITION_ADDRESS = Buffer.from('7824e0030000000000000000ffffffff15000000' +
  '680000000000000003000000000000000000000001', 'hex');
export const RECORDED_DISCONNECT = Buffer.from('7824e0030000000000000000ffffffff14000000650000' +
  '0000000000040000000000000000000000', 'hex');
export const RECORDED_FRAMES = [RECORDED_CONNECT, RECORDED_LOGIN, RECORDED_PARTITION_ADDRESS,
  RECORDED_DISCONNECT];

export interface GriddbReply {
  statementType: number;
  result: number;
  /** After the result byte. */
  payload: Buffer;
}

/**
 * Sends `frames` one at a time on a new connection, each after the reply to the one before,
 * and gives the replies read until the node closes or `frames` run out (then it closes).
 */
export async function griddbExchange(port: number, frames: readonly Buffer[]):
  Promise<{ replies: GriddbReply[]; closedByNode: boolean }> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const replies: GriddbReply[] = [];
  let closedByNode = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let waiting: (() => void) | undefined;
  collectGriddbReplies(socket, replies, () => waiting?.());
  socket.once('close', () => {
    closedByNode = true;
    waiting?.();
  });
  for (const frame of frames) {
    if (closedByNode) break;
    const before = replies.length;
    const answered = new Promise<void>((resolve) => (waiting = resolve));
    socket.write(frame);
    // DISCONNECT has no reply; anything else waits for its reply or the node's close.
    if (frame.byteLength >= 28 && frame.readInt32LE(20) === 101) break;
    await answered;
    if (replies.length === before && !closedByNode) throw new Error('no reply and no close');
  }
  const closedEarly = closedByNode;
  socket.end();
  await closed;
  return { replies, closedByNode: closedEarly };
}

/**
 * Reads the node's reply frames as they arrive on `socket`: each is pushed to `replies` (its
 * statement type, result byte and what follows), then `arrived` is called.
 */
export function collectGriddbReplies(socket: Socket, replies: GriddbReply[], arrived: () => void): void {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.byteLength >= 20 && buffered.byteLength >= 20 + buffered.readInt32LE(16)) {
      const body = buffered.subarray(20, 20 + buffered.readInt32LE(16));
      const statementType = body.readInt32LE(0);
      const idBytes = statementType === 100 ? 4 : 8;
      replies.push({ statementType, result: body.readInt8(4 + idBytes),
        payload: body.subarray(5 + idBytes) });
      buffered = buffered.subarray(20 + body.byteLength);
      arrived();
    }
  });
}
