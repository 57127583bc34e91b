// HTTP Basic authentication as GridDB's web API reads it (utils/GWUser.java), every failure a 401:
//   no header, or no "Basic " in it          Basic authentication not found
//   the text after "Basic " is not base64    Basic authentication is not encoded by Base64
//   the decoded text has no ':'              Basic authentication is invalid format
// The decoded text is split at its first ':' (a password may contain ':'). Whether the user and
// password are right is the node's to say, through the client library.
//
// A caller sends the same header with every request: the credentials of the last
// WEBAPI_CREDENTIALS_CACHED_MAX well-formed headers are kept, the same object for the same text,
// so the store pool's key of them (the password's SHA-256, store-pool.ts) is made once too. Only
// the parsing is kept: whether the node accepts them is still the pool's to check. A malformed
// header is never kept, and answers its 401 every time.

import { Buffer } from 'node:buffer';
import { WEBAPI_CREDENTIALS_CACHED_MAX } from '../../base/limits.ts';
import { unauthorized } from '../errors/webapi-error.ts';

export interface Credentials {
  readonly user: string;
  readonly password: string;
}

const BASE64_TEXT = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?$/;
const SCHEME = 'Basic ';

/** Header text → its credentials; insertion order is age, the first entry goes first. */
const parsed = new Map<string, Credentials>();

export function parseBasicAuth(header: string | string[] | undefined): Credentials {
  const text = Array.isArray(header) ? header[0] : header;
  if (text !== undefined) {
    const known = parsed.get(text);
    if (known !== undefined) return known;
  }
  const credentials = credentialsOf(text);
  if (parsed.size >= WEBAPI_CREDENTIALS_CACHED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(text!, credentials);
  return credentials;
}

/** Header texts whose credentials are kept now (tests: the bound). */
export function credentialsCachedCount(): number {
  return parsed.size;
}

function credentialsOf(text: string | undefined): Credentials {
  if (text === undefined || !text.includes(SCHEME)) {
    throw unauthorized('Basic authentication not found');
  }
  const encoded = text.slice(text.indexOf(SCHEME) + SCHEME.length);
  if (!BASE64_TEXT.test(encoded)) {
    throw unauthorized('Basic authentication is not encoded by Base64');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized('Basic authentication is invalid format');
  return Object.freeze({ user: decoded.slice(0, colon), password: decoded.slice(colon + 1) });
}
