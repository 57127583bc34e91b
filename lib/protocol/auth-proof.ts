// Challenge-response authentication, shared by the client and the node. The node sends a random
// nonce in its HELLO reply; the client answers (AUTH) with
//
//   proof = HMAC-SHA256(key = passwordDigest, data = transcript)
//   passwordDigest = the lower-case hex SHA-256 of the password's UTF-8 bytes, as ASCII text
//   transcript = | "store-auth-1" string | nonce 32 bytes | clientId 16 bytes |
//                | user string | clusterName string | database string |
//
// The password file stores exactly passwordDigest, so the node checks a proof without ever knowing
// the password, and the password never crosses the wire. The nonce is new for every connection, so
// a recorded proof is worth nothing on another one, and the transcript binds the proof to the
// user, cluster and database it was made for. (Whoever holds the password file can still log in, as
// with GridDB, which sends that digest itself: protect the file.)

import { Buffer } from 'node:buffer';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { assert } from '../base/assert.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';

export const AUTH_NONCE_BYTES = 32;
export const CLIENT_ID_BYTES = 16;
export const AUTH_PROOF_BYTES = 32;
const TRANSCRIPT_LABEL = 'store-auth-1';
const DIGEST_HEX = /^[0-9a-f]{64}$/;

export interface AuthTranscript {
  nonce: Uint8Array;
  clientId: Uint8Array;
  user: string;
  clusterName: string;
  database: string;
}

/** What the password file stores for `password`. */
export function passwordDigestHex(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('hex');
}

export function isPasswordDigestHex(text: string): boolean {
  return DIGEST_HEX.test(text);
}

export function authProof(passwordDigest: string, transcript: AuthTranscript): Uint8Array {
  assert(isPasswordDigestHex(passwordDigest));
  assert(transcript.nonce.byteLength === AUTH_NONCE_BYTES);
  assert(transcript.clientId.byteLength === CLIENT_ID_BYTES);
  const writer = new ByteWriter(256);
  writer.string(TRANSCRIPT_LABEL);
  writer.bytes(transcript.nonce);
  writer.bytes(transcript.clientId);
  writer.string(transcript.user);
  writer.string(transcript.clusterName);
  writer.string(transcript.database);
  const hmac = createHmac('sha256', Buffer.from(passwordDigest, 'ascii'));
  return new Uint8Array(hmac.update(writer.finish()).digest());
}

/** Compares two proofs in time that does not depend on where they differ. */
export function authProofsEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && timingSafeEqual(a, b);
}
