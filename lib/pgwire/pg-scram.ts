// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL's server runs it, without channel binding:
//
//   client-first   n,,n=<ignored>,r=<client nonce>
//   server-first   r=<client nonce><server nonce>,s=<salt b64>,i=<iterations>
//   client-final   c=biws,r=<both nonces>,p=<ClientProof b64>
//   server-final   v=<ServerSignature b64>
//
// The proof is checked against the user's verifier (lib/config/scram-verifiers.ts): ClientKey =
// ClientProof XOR HMAC(StoredKey, AuthMessage) must hash to StoredKey. A user without a verifier
// goes through the same exchange with a made-up one and fails the same way, so the exchange does
// not tell whether the user exists.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { StorageError } from '../base/errors.ts';
import type { ScramVerifier } from '../config/scram-verifiers.ts';

const NONCE_BYTES = 18;

function protocolError(what: string): StorageError {
  return new StorageError('PROTOCOL_ERROR', `malformed SCRAM message: ${what}`);
}

export class ScramExchange {
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private gs2Header = '';

  constructor(private readonly verifier: ScramVerifier) {}

  /** The server-first message for the client-first one. */
  first(clientFirst: string): string {
    const gs2 = /^([ny]),(a=[^,]*)?,/.exec(clientFirst);
    if (gs2 === null) throw protocolError('client-first has no GS2 header (channel binding is not offered)');
    this.gs2Header = gs2[0];
    this.clientFirstBare = clientFirst.slice(gs2[0].length);
    const clientNonce = /(?:^|,)r=([^,]+)/.exec(this.clientFirstBare)?.[1];
    if (clientNonce === undefined) throw protocolError('client-first has no nonce');
    this.nonce = clientNonce + randomBytes(NONCE_BYTES).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${this.verifier.saltBase64},i=${this.verifier.iterations}`;
    return this.serverFirst;
  }

  /** The server-final message when the proof is right; undefined when it is wrong. */
  final(clientFinal: string): string | undefined {
    const proofAt = clientFinal.lastIndexOf(',p=');
    if (proofAt < 0) throw protocolError('client-final has no proof');
    const withoutProof = clientFinal.slice(0, proofAt);
    const channel = /^c=([^,]*)/.exec(withoutProof)?.[1];
    const nonce = /,r=([^,]*)/.exec(withoutProof)?.[1];
    if (channel !== Buffer.from(this.gs2Header).toString('base64') || nonce !== this.nonce) {
      throw protocolError('client-final does not answer the server-first message');
    }
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const signature = createHmac('sha256', this.verifier.storedKey).update(authMessage).digest();
    if (proof.byteLength !== signature.byteLength) return undefined;
    const clientKey = Buffer.alloc(signature.byteLength);
    for (let i = 0; i < clientKey.byteLength; i++) clientKey[i] = proof[i]! ^ signature[i]!;
    const stored = createHash('sha256').update(clientKey).digest();
    if (!timingSafeEqual(stored, this.verifier.storedKey)) return undefined;
    const serverSignature = createHmac('sha256', this.verifier.serverKey).update(authMessage).digest();
    return `v=${serverSignature.toString('base64')}`;
  }
}

/** A verifier no password matches, for a user that has none (the exchange must look the same). */
export function unmatchableVerifier(): ScramVerifier {
  return {
    iterations: 4096, saltBase64: randomBytes(16).toString('base64'),
    storedKey: randomBytes(32), serverKey: randomBytes(32),
  };
}
