// One client socket of the PostgreSQL port, from its first byte to its close: the startup phase
// (SSLRequest, GSSENCRequest, CancelRequest, StartupMessage), authentication (SCRAM-SHA-256, or a
// cleartext password over TLS for a user with no SCRAM verifier), then the session's messages
// one at a time (pg-session.ts).
//
// Bounds: before authentication a message may have PG_STARTUP_MESSAGE_BYTES_MAX bytes and the
// client has PG_AUTHENTICATION_TIMEOUT_MS to finish; after, /sql/pgMessageSizeLimit and
// /sql/pgIdleTimeout (counted while the connection waits for the client, not while a statement
// runs). The socket stops being read while a message is being answered and more than one
// message's worth is buffered, and while its replies queue up (PG_REPLY_QUEUED_BYTES_MAX), so a
// connection holds at most about two messages and one page of replies. Anything that breaks the
// protocol ends the connection with a FATAL ErrorResponse (08P01, 54000, 28P01 ...) and never
// touches another connection.

import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import { isStorageError } from '../base/errors.ts';
import {
  PG_AUTHENTICATION_TIMEOUT_MS, PG_REPLY_QUEUED_BYTES_MAX, PG_STARTUP_MESSAGE_BYTES_MAX,
} from '../base/limits.ts';
import type { ScramVerifier } from '../config/scram-verifiers.ts';
import type { Clock } from '../io/clock.ts';
import type { LoginCheck, ServerEvent } from '../server/server-options.ts';
import type { Principal } from '../access/access-catalog.ts';
import { pgError, pgErrorFieldsOf, PgError, type PgErrorFields } from './pg-errors.ts';
import {
  PG_CANCEL_REQUEST_CODE, PG_GSSENC_REQUEST_CODE, PG_PROTOCOL_3_0, PG_SSL_REQUEST_CODE, PgBackendWriter,
  PgBodyReader, PgFrameReader, type PgMessage,
} from './pg-frames.ts';
import { ScramExchange, unmatchableVerifier } from './pg-scram.ts';
import { PgSession } from './pg-session.ts';
import type { PgSqlBackend } from './pg-sql-backend.ts';

/** What a connection needs of its server. */
export interface PgConnectionHost {
  readonly backend: PgSqlBackend;
  readonly clock: Clock;
  readonly messageBytesMax: number;
  readonly statementsPerQueryMax: number;
  readonly idleTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly serverVersion: string;
  readonly tls: SecureContext | undefined;
  /**
   * The user's SCRAM verifier, and whether a cleartext password is theirs (TLS only). With a
   * refusalHint the user cannot log in here at all, and the 28P01 that refuses it says why.
   */
  credentials(user: string): {
    verifier: ScramVerifier | undefined; checkPassword: (password: string) => boolean; refusalHint?: string;
  };
  /** Who the user is in the database (lib/access/); without it everyone is an administrator in public. */
  readonly loginCheck?: LoginCheck | undefined;
  /** A CancelRequest's target: signals it when the key is right. */
  cancel(processId: number, secretKey: number): void;
  event(event: ServerEvent): void;
  closed(connection: PgConnection): void;
}

type Phase = 'startup' | 'sasl-first' | 'sasl-final' | 'cleartext' | 'ready' | 'closing';

export class PgConnection {
  private stream: Socket;
  private readonly reader = new PgFrameReader(PG_STARTUP_MESSAGE_BYTES_MAX);
  private readonly out = new PgBackendWriter();
  private phase: Phase = 'startup';
  private busy = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private session: PgSession | undefined;
  private scram: ScramExchange | undefined;
  /** Why this user can never log in here (credentials().refusalHint), said when refused. */
  private refusalHint: string | undefined;
  private user = '';
  private database = 'public';
  private applicationName = '';
  private startupSettings = new Map<string, string>();
  private opened = false;
  private cancelPending = false;
  private tlsUsed = false;
  readonly secretKey = randomInt(0, 0x7fff_ffff);

  constructor(readonly id: number, socket: Socket, private readonly host: PgConnectionHost,
    readonly processId: number) {
    this.stream = socket;
    this.attach(socket);
    this.arm(PG_AUTHENTICATION_TIMEOUT_MS, 'authentication timeout');
    host.event({ kind: 'accepted', connectionId: id, remoteAddress: this.remoteAddress() });
  }

  private get isClosing(): boolean {
    return this.phase === 'closing';
  }

  private remoteAddress(): string {
    return `${this.stream.remoteAddress ?? '?'}:${this.stream.remotePort ?? '?'}`;
  }

  private attach(stream: Socket): void {
    stream.on('data', (chunk: Buffer) => {
      if (this.phase === 'closing') return;
      this.reader.push(chunk);
      if (this.reader.bufferedByteCount > this.reader.messageBytesMax) stream.pause();
      this.pump();
    });
    stream.on('error', () => this.end('socket error'));
    stream.on('close', () => this.end('closed by the client'));
  }

  private arm(delayMs: number, reason: string): void {
    clearTimeout(this.timer);
    if (delayMs <= 0) return;
    this.timer = setTimeout(() => {
      this.fatal(pgError(reason === 'authentication timeout' ? '08006' : '57P05',
        `terminating connection due to ${reason}`, 'FATAL'), reason);
    }, delayMs);
    this.timer.unref();
  }

  /**
   * A cancel for this connection's running statement: the engine stops it (its first page
   * included), and pg-session.ts reads the flag between pages and when the statement fails.
   */
  signalCancel(): void {
    this.cancelPending = true;
    if (!this.opened || this.phase === 'closing') return;
    // A failure here is the engine's (fail-stop): runnerSqlBackend reports it; nothing to answer.
    this.host.backend.cancel(this.id).catch(() => undefined);
  }

  private pump(): void {
    if (this.busy || this.phase === 'closing') return;
    this.busy = true;
    void this.drainMessages().finally(() => {
      this.busy = false;
    });
  }

  private async drainMessages(): Promise<void> {
    try {
      for (;;) {
        if (this.isClosing) return;
        const message = this.reader.next();
        if (message === undefined) break;
        clearTimeout(this.phase === 'ready' ? this.timer : undefined);
        await this.handle(message);
      }
      await this.flush();
      if (this.phase === 'ready') this.arm(this.host.idleTimeoutMs, 'idle timeout');
      if (!this.isClosing) this.stream.resume();
    } catch (error) {
      if (!isStorageError(error) && !(error instanceof PgError)) {
        // The engine failed (the server stops everything) or a bug here: the connection ends.
        this.fatal(pgError('XX000', 'internal error', 'FATAL'), 'internal error');
        throw error;
      }
      const fields = pgErrorFieldsOf(error);
      this.fatal({ ...fields, severity: 'FATAL', sqlState: fields.sqlState === 'XX000' ? '08P01' : fields.sqlState },
        fields.message);
    }
  }

  private async handle(message: PgMessage): Promise<void> {
    switch (this.phase) {
      case 'startup': return this.startup(message.body);
      case 'sasl-first': case 'sasl-final': case 'cleartext': return this.authenticate(message);
      case 'ready': {
        const more = await this.session!.message(message.type, message.body);
        if (!more) this.end('terminated by the client');
        return;
      }
      case 'closing': return;
    }
  }

  private async startup(body: Buffer): Promise<void> {
    const reader = new PgBodyReader(body);
    const code = reader.int32();
    if (code === PG_SSL_REQUEST_CODE || code === PG_GSSENC_REQUEST_CODE) {
      reader.expectEnd();
      if (code === PG_GSSENC_REQUEST_CODE || this.host.tls === undefined || this.tlsUsed) {
        this.stream.write('N');
        return;
      }
      this.upgrade(this.host.tls);
      return;
    }
    if (code === PG_CANCEL_REQUEST_CODE) {
      const processId = reader.int32();
      const secretKey = reader.int32();
      reader.expectEnd();
      this.host.cancel(processId, secretKey);
      this.end('cancel request');
      return;
    }
    if (code >> 16 !== 3) {
      throw new PgError(pgError('0A000', `unsupported frontend protocol ${code >> 16}.${code & 0xffff}: ` +
        'server supports 3.0', 'FATAL'));
    }
    const parameters = new Map<string, string>();
    for (;;) {
      const name = reader.cstring();
      if (name === '') break;
      parameters.set(name, reader.cstring());
    }
    reader.expectEnd();
    await this.started(code, parameters);
  }

  private upgrade(context: SecureContext): void {
    this.reader.startup = true;
    const raw = this.stream;
    raw.removeAllListeners('data');
    raw.removeAllListeners('close');
    raw.write('S');
    const secure = new TLSSocket(raw, { isServer: true, secureContext: context });
    this.stream = secure as unknown as Socket;
    this.tlsUsed = true;
    this.attach(this.stream);
  }

  private async started(code: number, parameters: Map<string, string>): Promise<void> {
    this.user = parameters.get('user') ?? '';
    if (this.user === '') throw new PgError(pgError('28000', 'no PostgreSQL user name specified in startup packet', 'FATAL'));
    const database = parameters.get('database') ?? this.user;
    // psql names the database after the user by default: that is public here.
    this.database = database === this.user ? 'public' : database;
    if (this.host.loginCheck === undefined && database !== 'public' && database !== this.user) {
      throw new PgError(pgError('3D000', `database "${database}" does not exist (store has one: public)`, 'FATAL'));
    }
    this.applicationName = parameters.get('application_name') ?? '';
    for (const [name, value] of parameters) {
      if (!['user', 'database', 'options', 'replication'].includes(name)) this.startupSettings.set(name.toLowerCase(), value);
    }
    if (code !== PG_PROTOCOL_3_0) {
      // A newer minor version: say which one this server speaks (NegotiateProtocolVersion).
      this.out.message('v', (out) => out.int32(PG_PROTOCOL_3_0).int32(0));
    }
    const { verifier, refusalHint } = this.host.credentials(this.user);
    this.refusalHint = refusalHint;
    if (verifier === undefined && this.tlsUsed && refusalHint === undefined) {
      this.phase = 'cleartext';
      this.out.message('R', (out) => out.int32(3));
    } else {
      this.scram = new ScramExchange(verifier ?? unmatchableVerifier());
      this.phase = 'sasl-first';
      this.out.message('R', (out) => out.int32(10).cstring('SCRAM-SHA-256').byte(0));
    }
    this.reader.startup = false;
    await this.flush();
  }

  private async authenticate(message: PgMessage): Promise<void> {
    if (message.type !== 0x70) {
      throw new PgError(pgError('08P01', `expected a password message, got message type ${message.type}`, 'FATAL'));
    }
    const reader = new PgBodyReader(message.body);
    if (this.phase === 'cleartext') {
      const password = reader.cstring();
      reader.expectEnd();
      if (!this.host.credentials(this.user).checkPassword(password)) this.refuse();
      return this.authenticated();
    }
    if (this.phase === 'sasl-first') {
      const mechanism = reader.cstring();
      const length = reader.int32();
      const data = reader.bytes(Math.max(0, length)).toString('utf8');
      reader.expectEnd();
      if (mechanism !== 'SCRAM-SHA-256') {
        throw new PgError(pgError('28000', `SASL mechanism ${mechanism} is not offered`, 'FATAL'));
      }
      const serverFirst = this.scram!.first(data);
      this.phase = 'sasl-final';
      this.out.message('R', (out) => out.int32(11).bytes(Buffer.from(serverFirst)));
      await this.flush();
      return;
    }
    const final = this.scram!.final(message.body.toString('utf8'));
    if (final === undefined) this.refuse();
    this.out.message('R', (out) => out.int32(12).bytes(Buffer.from(final!)));
    return this.authenticated();
  }

  private refuse(): never {
    const hint = this.refusalHint === undefined ? '' : `: ${this.refusalHint}`;
    throw new PgError(pgError('28P01', `password authentication failed for user "${this.user}"${hint}`, 'FATAL'));
  }

  /** The login's principal, or the FATAL error that refuses it (after the password is proven). */
  private principalOf(): Principal {
    const login = { user: this.user, database: this.database };
    if (this.host.loginCheck === undefined) return { ...login, admin: true };
    try {
      return this.host.loginCheck(login);
    } catch (error) {
      if (!isStorageError(error)) throw error;
      const code = error.code === 'DATABASE_NOT_FOUND' ? '3D000' : '28000';
      throw new PgError(pgError(code, error.message, 'FATAL'));
    }
  }

  private async authenticated(): Promise<void> {
    const principal = this.principalOf();
    this.out.message('R', (out) => out.int32(0));
    const settings = new Map<string, string>([
      ['server_version', this.host.serverVersion.split(' ')[0]!], ['server_version_num', serverVersionNum(this.host.serverVersion)],
      ['server_encoding', 'UTF8'],
      ['client_encoding', 'UTF8'], ['datestyle', 'ISO, MDY'], ['timezone', 'UTC'],
      ['integer_datetimes', 'on'], ['standard_conforming_strings', 'on'], ['intervalstyle', 'postgres'],
      ['is_superuser', principal.admin ? 'on' : 'off'], ['session_authorization', this.user], ['application_name', this.applicationName],
      ['transaction_isolation', 'read committed'], ['default_transaction_read_only', 'off'],
      ['max_identifier_length', '63'], ['search_path', 'public'],
    ]);
    for (const [name, value] of this.startupSettings) if (name !== 'timezone') settings.set(name, value);
    const reported = ['server_version', 'server_encoding', 'client_encoding', 'application_name',
      'is_superuser', 'session_authorization', 'integer_datetimes', 'standard_conforming_strings',
      'intervalstyle', 'timezone', 'datestyle'];
    const spelled: Record<string, string> = { datestyle: 'DateStyle', timezone: 'TimeZone', intervalstyle: 'IntervalStyle' };
    for (const name of reported) {
      this.out.message('S', (out) => out.cstring(spelled[name] ?? name).cstring(settings.get(name)!));
    }
    this.out.message('K', (out) => out.int32(this.processId).int32(this.secretKey));
    this.out.message('Z', (out) => out.byte(0x49));
    this.reader.messageBytesMax = this.host.messageBytesMax;
    const local = `${this.stream.localAddress ?? '?'}:${this.stream.localPort ?? '?'}`;
    this.host.backend.open(this.id, {
      clientKey: `pg/${this.user}/${this.id}`, transactionTimeoutMs: this.host.statementTimeoutMs || 300_000,
      connection: { localAddress: local, remoteAddress: this.remoteAddress(), applicationName: this.applicationName, user: this.user,
        dialect: 'postgres' },
      principal,
    });
    this.opened = true;
    this.host.event({ kind: 'connected', connectionId: this.id, remoteAddress: this.remoteAddress(),
      user: this.user, applicationName: this.applicationName });
    const host = this.host;
    this.session = new PgSession({
      backend: host.backend, connectionId: this.id, user: this.user,
      statementTimeoutMs: host.statementTimeoutMs, statementsPerQueryMax: host.statementsPerQueryMax,
      serverVersion: host.serverVersion, out: this.out,
      flush: (bytes) => this.flush(bytes),
      takeCancel: () => {
        const pending = this.cancelPending;
        this.cancelPending = false;
        return pending;
      },
      monotonicMs: () => host.clock.monotonicMs(),
    }, settings);
    this.phase = 'ready';
    await this.flush();
  }

  /**
   * Sends what is written, then `bytes` as they are (a page's DataRows, not copied into `out` and
   * out again); waits while the socket holds more than PG_REPLY_QUEUED_BYTES_MAX.
   */
  async flush(bytes?: Buffer): Promise<void> {
    if (this.phase === 'closing' || (this.out.byteCount === 0 && bytes === undefined)) return;
    if (this.out.byteCount > 0) this.stream.write(this.out.take());
    if (bytes !== undefined && bytes.byteLength > 0) this.stream.write(bytes);
    while (this.stream.writableLength > PG_REPLY_QUEUED_BYTES_MAX && !this.isClosing) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('drain', done);
          this.stream.off('close', done);
          resolve();
        };
        this.stream.once('drain', done);
        this.stream.once('close', done);
      });
    }
  }

  /** A FATAL ErrorResponse, then the end. */
  fatal(fields: PgErrorFields, reason: string): void {
    if (this.phase === 'closing') return;
    this.out.take();
    if (this.session !== undefined) this.session.writeError(fields);
    else this.writeBareError(fields);
    this.stream.write(this.out.take());
    this.end(reason);
  }

  private writeBareError(fields: PgErrorFields): void {
    this.out.message('E', (out) => {
      out.byte(0x53).cstring(fields.severity).byte(0x56).cstring(fields.severity);
      out.byte(0x43).cstring(fields.sqlState).byte(0x4d).cstring(fields.message).byte(0);
    });
  }

  /** Closes the connection (idempotent): the engine lets go of its results. */
  end(reason: string): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    clearTimeout(this.timer);
    this.stream.end();
    this.stream.destroySoon?.();
    setTimeout(() => this.stream.destroy(), 1000).unref();
    if (this.opened) this.host.backend.close(this.id);
    this.host.event({ kind: 'closed', connectionId: this.id, remoteAddress: this.remoteAddress(), reason });
    this.host.closed(this);
  }
}

/** `15.0 (store ...)` as PostgreSQL's server_version_num, 150000 (major × 10000 + minor). */
function serverVersionNum(serverVersion: string): string {
  const [major, minor] = serverVersion.split(' ')[0]!.split('.').map(Number);
  return String((major ?? 0) * 10_000 + (minor ?? 0));
}
