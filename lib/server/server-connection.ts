// One client connection: frames in, requests run, replies out. This is the network side; the
// requests run in the engine's RequestRunner (request-runner.ts), in the node a worker thread.
//
// Life: HELLO → AUTH → ready → closing. Before AUTH succeeds a connection may send only those
// two, one at a time, in frames of at most PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX, and must finish
// within handshakeTimeoutMs. Until then it counts against the unauthenticated limits, not
// connectionLimit (transaction-server.ts). Once ready, requests run concurrently (ordered where
// request-order.ts says) up to requestsInFlightMax; a request counts as in flight from its frame
// until its reply has been handed to the socket, so at the cap the node stops reading the socket
// (backpressure through TCP). The reply bytes queued for a slow reader are bounded too
// (reply-buffers.ts): a request that brings a page of rows is taken only within the query limit,
// and not while replies are unsent (the next frame's type is looked at before it is taken), at the
// soft limit the node stops reading and starting its requests, and it closes the connection past
// the hard limit or once its client has taken no reply bytes for the soft time.
//
// Errors: a StorageError from a request is its error reply and the connection carries on. A
// PROTOCOL_ERROR (a malformed frame or body, a message out of place) or an oversized frame is
// answered and then closes this connection only. A failed handshake is answered and closes. A
// rejected run is the engine's failure (a broken invariant): nothing is answered, and the host
// closes every connection (fail-stop, request-runner.ts).
//
// Closing aborts the connection's sessions' open transactions at once and closes its query
// results; requests still running finish, and their replies are dropped.

import { Buffer } from 'node:buffer';
import type { Socket } from 'node:net';
import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { AUTH_NONCE_BYTES } from '../protocol/auth-proof.ts';
import {
  FrameReader, FrameStatus, encodeFrame, protocolError, type Frame,
} from '../protocol/frame.ts';
import { decodeBody, messageName } from '../protocol/message-codec.ts';
import { MessageType } from '../protocol/message-types.ts';
import { AUTH, HELLO } from '../protocol/messages-connection.ts';
import { errorFrame, protocolFailure, replyHeader } from './reply-frames.ts';
import {
  replyIsPage, replyReserveBytes, type ReplyBuffers, type ReplyHolder,
} from './reply-buffers.ts';
import type { RequestRunner, RunOutcome } from './request-runner.ts';
import { authenticate } from './server-handshake.ts';
import type { ResolvedServerOptions } from './server-options.ts';

/** After the last reply of a closing connection, how long its peer has to close before we do. */
const CLOSE_LINGER_MS = 2000;
/** A dropped reply this large has its memory released at once (releaseReply). */
const REPLY_RELEASE_BYTES_MIN = 64 * 1024;
/**
 * Replies up to this size may wait in the corked socket for the rest of the turn's (coalesceWrites);
 * below REPLY_RELEASE_BYTES_MIN, so a reply that is released when dropped is never held there.
 */
const REPLY_COALESCE_BYTES_MAX = 16 * 1024;

/**
 * Frees the memory of a reply the socket dropped unsent, if the reply owns all of it (as the
 * runner's exact-size replies do): its ArrayBuffer is transferred to a copy nobody keeps, which
 * the next scavenge frees. Left alone, a connection closed with megabytes of replies queued (a
 * client that never reads) keeps them until a full collection, since the buffers are old by then:
 * each such close added its queued bytes to the RSS until the next one (issue 12's soak).
 */
function releaseReply(bytes: Uint8Array): void {
  const { buffer } = bytes;
  if (bytes.byteLength < REPLY_RELEASE_BYTES_MIN || !(buffer instanceof ArrayBuffer)) return;
  if (bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return;
  structuredClone(buffer, { transfer: [buffer] });
}

type Phase = 'hello' | 'auth' | 'ready' | 'closing';

export interface ConnectionHost {
  readonly options: ResolvedServerOptions;
  readonly runner: RequestRunner;
  readonly replyBuffers: ReplyBuffers;
  /**
   * The connection has authenticated: undefined lets it in, an error (LIMIT_EXCEEDED at
   * connectionLimit) refuses it.
   */
  connectionAuthenticated(connection: ServerConnection): StorageError | undefined;
  /** The connection's socket has closed. */
  connectionClosed(connection: ServerConnection): void;
  /** The engine failed on a bug (a run rejected): close every connection, answer nothing. */
  engineFailed(error: unknown): void;
}

export class ServerConnection implements ReplyHolder {
  private phase: Phase = 'hello';
  private readonly reader = new FrameReader(PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX);
  private nonce: Uint8Array | undefined;
  /** Whether the runner knows this connection (from authentication until release). */
  private opened = false;
  private inFlight = 0;
  /** Whether the socket holds this turn's replies for one write (coalesceWrites). */
  private corked = false;
  private paused = false;
  private timer: ReturnType<typeof setTimeout>;
  private closeReason = 'the client closed the connection';
  /** The estimates of the replies being produced (replyReserveBytes). */
  private reservedBytes = 0;
  /** Queued reply bytes as last reported to the reply buffers. */
  private accountedBytes = 0;
  /**
   * Runs while reply bytes are unsent (the kernel has not taken them), restarted each time a
   * write completes: it fires once the client has taken none for the soft time.
   */
  private softTimer: ReturnType<typeof setTimeout> | undefined;
  /** Waiting for room in the reply buffers' total. */
  private waitingForRoom = false;
  private gone = false;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    // 'close' follows every error; the error itself needs no other handling.
    socket.on('error', (error) => {
      this.closeReason = `socket error: ${error.message}`;
    });
    socket.on('close', () => this.closed());
    this.timer = setTimeout(() => this.timedOut(), host.options.handshakeTimeoutMs);
    this.timer.unref();
    // The server has reported it 'accepted' (transaction-server.ts).
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  get isReady(): boolean {
    return this.phase === 'ready';
  }

  get replyBytesAccounted(): number {
    return this.accountedBytes;
  }

  closeForTotal(totalBytes: number): void {
    this.overflow(`the replies queued for all clients (${totalBytes} bytes) are over ` +
      `totalMessageMemoryLimit (${this.host.options.replyTotalLimitBytes} bytes), and this ` +
      'connection has the most');
  }

  replyRoomFreed(): void {
    this.waitingForRoom = false;
    this.pump();
  }

  /** Closes at once (the server stops): sessions end, the socket is destroyed. */
  destroy(reason: string): void {
    this.closeReason = reason;
    this.release();
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    if (this.phase === 'closing') return;
    this.reader.push(chunk);
    this.pump();
  }

  /**
   * Takes whole frames while there is room in flight and for replies; pauses or resumes reading
   * to match.
   */
  private pump(): void {
    // A destroyed socket (the client reset it) is not read on: its replies can go nowhere. Its
    // write callbacks come before its 'close', and they would otherwise find room at once (nothing
    // queued) and start every request it had sent: a client that pipelined 150 queries and reset
    // the connection had them all run, about 540 MB of replies made and dropped (issue 12's soak).
    while (this.phase !== 'closing' && !this.socket.destroyed) {
      const inFlightMax = this.phase === 'ready' ? this.host.options.requestsInFlightMax : 1;
      let frame: Frame | undefined;
      try {
        // Only a ready connection's frames are looked at first: a frame after AUTH would be
        // checked against the handshake's message limit.
        const messageType = this.phase === 'ready' ? this.reader.nextMessageType() : undefined;
        if (this.inFlight >= inFlightMax || !this.replyRoom(messageType)) {
          if (!this.paused) this.socket.pause();
          this.paused = true;
          return;
        }
        frame = this.reader.next();
      } catch (error) {
        this.fail(error);
        return;
      }
      if (frame === undefined) break;
      if (this.phase === 'ready') this.timer.refresh();
      this.accept(frame);
    }
    if (this.paused && this.phase !== 'closing') {
      this.paused = false;
      this.socket.resume();
    }
  }

  private accept(frame: Frame): void {
    if (frame.status !== FrameStatus.REQUEST) {
      this.fail(protocolError('the node takes requests, not replies'), frame);
      return;
    }
    if (this.phase === 'hello') {
      if (frame.messageType !== MessageType.HELLO) {
        this.fail(protocolError(`expected HELLO, got ${messageName(frame.messageType)}`), frame);
        return;
      }
      this.hello(frame);
      return;
    }
    if (this.phase === 'auth') {
      if (frame.messageType !== MessageType.AUTH) {
        this.fail(protocolError(`expected AUTH, got ${messageName(frame.messageType)}`), frame);
        return;
      }
      this.auth(frame);
      return;
    }
    this.serve(frame);
  }

  private hello(frame: Frame): void {
    try {
      decodeBody(frame.body, HELLO.readRequest, 'HELLO request');
    } catch (error) {
      this.fail(error, frame);
      return;
    }
    this.nonce = this.host.options.nonce();
    assert(this.nonce.byteLength === AUTH_NONCE_BYTES);
    const reply = { nonce: this.nonce, serverVersion: this.host.options.serverVersion };
    this.phase = 'auth';
    this.inFlight++;
    this.send(encodeFrame(replyHeader(frame), (writer) => HELLO.writeReply(writer, reply),
      PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX));
  }

  private auth(frame: Frame): void {
    const { options } = this.host;
    let request: ReturnType<typeof AUTH.readRequest>;
    try {
      request = decodeBody(frame.body, AUTH.readRequest, 'AUTH request');
    } catch (error) {
      this.fail(error, frame);
      return;
    }
    this.inFlight++;
    authenticate(options, this.nonce!, request).then((principal) => {
      if (this.phase === 'closing') return;
      const refusal = this.host.connectionAuthenticated(this);
      if (refusal !== undefined) throw refusal;
      const { info } = this.host.runner;
      const transactionTimeoutMs = Math.min(
        request.transactionTimeoutMs === 0 ? Infinity : request.transactionTimeoutMs,
        info.transactionTimeoutLimitMs);
      this.host.runner.connectionOpened(this.id, {
        clientKey: `${request.user}/${Buffer.from(request.clientId).toString('hex')}`,
        transactionTimeoutMs,
        connection: {
          localAddress: `${this.socket.localAddress ?? '?'}:${this.socket.localPort ?? '?'}`,
          remoteAddress: this.remoteAddress(), applicationName: request.applicationName, user: request.user,
        },
        principal,
      });
      this.opened = true;
      this.phase = 'ready';
      this.reader.limitSet(options.messageBytesMax);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.timedOut(), options.idleTimeoutMs);
      this.timer.unref();
      options.onEvent?.({
        kind: 'connected', connectionId: this.id, remoteAddress: this.remoteAddress(),
        user: request.user, applicationName: request.applicationName,
      });
      const reply = {
        partitionNum: info.partitionNum,
        storeBlockSizeBytes: info.storeBlockSizeBytes,
        messageBytesMax: options.messageBytesMax,
        transactionTimeoutMs,
      };
      this.send(encodeFrame(replyHeader(frame), (writer) => AUTH.writeReply(writer, reply),
        PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX));
    }).catch((error: unknown) => {
      this.inFlight--;
      if (isStorageError(error)) {
        options.onEvent?.({ kind: 'refused', remoteAddress: this.remoteAddress(),
          reason: error.message });
      }
      this.fail(error, frame);
    });
  }

  private serve(frame: Frame): void {
    this.inFlight++;
    const reservedBytes = replyReserveBytes(frame.messageType);
    this.reservedBytes += reservedBytes;
    this.account();
    // The body is a view of the read buffer, valid until this returns: a runner decodes it at
    // once or copies it.
    this.host.runner.run(this.id, frame).then(
      (outcome) => this.answer(outcome, reservedBytes),
      (error: unknown) => this.host.engineFailed(error),
    );
  }

  private answer(outcome: RunOutcome, reservedBytes: number): void {
    this.reservedBytes -= reservedBytes;
    assert(this.reservedBytes >= 0);
    if (outcome.closeReason === undefined) {
      this.send(outcome.bytes);
      // Its estimate is released: there may be room for the next request now.
      if (reservedBytes > 0) this.pump();
      return;
    }
    this.inFlight--;
    this.close(outcome.closeReason, outcome.bytes);
  }

  /** Sends a reply; its request stops counting as in flight once the socket has taken it. */
  private send(bytes: Uint8Array): void {
    if (this.phase === 'closing' || this.socket.destroyed) {
      this.inFlight--;
      this.account();
      return;
    }
    const queuedBytes = this.socket.writableLength;
    if (queuedBytes > 0 && queuedBytes + bytes.byteLength > this.host.options.replyHardLimitBytes) {
      this.inFlight--;
      this.overflow(`a reply of ${bytes.byteLength} bytes would take the ${queuedBytes} bytes ` +
        `queued past replyBufferHardLimit (${this.host.options.replyHardLimitBytes} bytes)`);
      return;
    }
    this.coalesceWrites(bytes.byteLength);
    this.socket.write(bytes, (error) => {
      // Dropped (the connection was destroyed): nothing holds the bytes now.
      if (error !== undefined && error !== null) releaseReply(bytes);
      // Taken by the kernel: the client reads, so its soft time starts again.
      else this.softTimer?.refresh();
      this.inFlight--;
      this.account();
      this.pump();
    });
    this.account();
  }

  /**
   * While other requests of this connection are in flight (a client pipelining, like 100 SQL
   * statements sent at once), the replies of this event-loop turn go out in one write: the socket
   * is corked until the turn's check phase. A reply with nothing else in flight (one request at a
   * time, as a committing writer sends) is written at once, so its latency does not change. A
   * large reply (a page of rows) first lets the held ones go and is written by itself, so that the
   * kernel takes or leaves it whole and a dropped one is released (reply-buffers.ts).
   */
  private coalesceWrites(byteLength: number): void {
    if (byteLength > REPLY_COALESCE_BYTES_MAX) {
      this.uncork();
      return;
    }
    if (this.corked || this.inFlight <= 1) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => this.uncork());
  }

  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    if (!this.socket.destroyed) this.socket.uncork();
  }

  /**
   * Whether the queued replies leave room to read and start another request: the next frame's,
   * when its header has arrived (a page of rows must fit within the query limit).
   */
  private replyRoom(messageType: number | undefined): boolean {
    if (this.phase !== 'ready') return true;
    const queuedBytes = this.queuedBytes();
    const { options } = this.host;
    if (queuedBytes > 0 && queuedBytes >= options.replySoftLimitBytes) return false;
    if (queuedBytes > 0 && messageType !== undefined && replyIsPage(messageType)) {
      // Behind (the kernel holds all it takes): no page is made until the client has taken the
      // rest. Keeping up: pages within the query limit, so a few slow queries do not hold up
      // the connection's other requests.
      if (this.socket.writableLength > 0) return false;
      if (queuedBytes + replyReserveBytes(messageType) > options.replyQueryLimitBytes) return false;
    }
    if (this.host.replyBuffers.hasRoom(queuedBytes)) return true;
    if (!this.waitingForRoom) {
      this.waitingForRoom = true;
      this.host.replyBuffers.waitForRoom(this);
    }
    return false;
  }

  private queuedBytes(): number {
    return this.socket.writableLength + this.reservedBytes;
  }

  /** Reports the queued reply bytes to the reply buffers and keeps the soft-time timer. */
  private account(): void {
    if (this.gone) return;
    const queuedBytes = this.phase === 'closing' && this.socket.destroyed ? 0 : this.queuedBytes();
    const deltaBytes = queuedBytes - this.accountedBytes;
    this.accountedBytes = queuedBytes;
    const { options } = this.host;
    if (this.socket.writableLength > 0 && this.phase === 'ready') {
      this.softTimer ??= setTimeout(() => this.softTimeUp(), options.replySoftLimitTimeMs);
      this.softTimer.unref();
    } else if (this.softTimer !== undefined) {
      clearTimeout(this.softTimer);
      this.softTimer = undefined;
    }
    this.host.replyBuffers.changed(this, deltaBytes);
  }

  private softTimeUp(): void {
    this.softTimer = undefined;
    const unsentBytes = this.socket.writableLength;
    if (this.phase !== 'ready' || unsentBytes === 0) return;
    this.overflow(`the client took none of the ${unsentBytes} reply bytes queued for it in ` +
      `replyBufferSoftLimitTime (${this.host.options.replySoftLimitTimeMs} ms): it does not ` +
      'read them');
  }

  /** Closes at once for the replies queued: they are dropped, and the event names the bytes. */
  private overflow(reason: string): void {
    if (this.phase === 'closing') return;
    const queuedBytes = this.queuedBytes();
    this.host.options.onEvent?.({
      kind: 'overflow', connectionId: this.id, remoteAddress: this.remoteAddress(),
      queuedBytes, reason,
    });
    this.host.replyBuffers.countClose();
    this.destroy(reason);
    this.account();
  }

  /** Answers a frame that breaks the protocol (or a refused handshake), then closes. */
  private fail(error: unknown, frame?: Frame): void {
    const storageError = protocolFailure(error);
    this.close(storageError.message, errorFrame(frame, storageError));
  }

  private timedOut(): void {
    if (this.phase === 'closing') return;
    if (this.phase !== 'ready') {
      const error = new StorageError('PROTOCOL_ERROR',
        `not authenticated within ${this.host.options.handshakeTimeoutMs} ms`);
      this.close(error.message, errorFrame(undefined, error));
      return;
    }
    if (this.inFlight > 0) {
      this.timer.refresh();
      return;
    }
    this.close(`idle for ${this.host.options.idleTimeoutMs} ms`);
  }

  private close(reason: string, lastBytes?: Uint8Array): void {
    if (this.phase === 'closing') return;
    this.closeReason = reason;
    this.release();
    // Incoming bytes are dropped from now on; reading them is how the peer's close is noticed.
    this.socket.resume();
    if (lastBytes === undefined) this.socket.end();
    else this.socket.end(lastBytes);
    setTimeout(() => this.socket.destroy(), CLOSE_LINGER_MS).unref();
  }

  /** Ends the sessions (aborting their transactions) and the query results. */
  private release(): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    clearTimeout(this.timer);
    clearTimeout(this.softTimer);
    this.softTimer = undefined;
    if (this.opened) this.host.runner.connectionClosed(this.id);
  }

  private closed(): void {
    this.release();
    // Whatever was queued is gone with the socket (account() counts a destroyed one as empty).
    this.account();
    this.gone = true;
    this.host.replyBuffers.removed(this);
    this.host.options.onEvent?.({
      kind: 'closed', connectionId: this.id, remoteAddress: this.remoteAddress(),
      reason: this.closeReason,
    });
    this.host.connectionClosed(this);
  }

  private remoteAddress(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`;
  }
}
