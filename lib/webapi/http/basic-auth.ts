// HTTP Basic authentication as GridDB's web API reads it (utils/GWUser.java), every failure a 401:
//   no header, or no "Basic " in it          Basic authentication not found
//   the text after "Basic " is not base64    Basic authentication is not encoded by Base64
//   the decoded text has no ':'              Basic authentication is invalid format
// The decoded text is split at its first ':' (a password may contain ':'). Whether the user and
// password are right is the node's to say, through the client library.

import { Buffer } from 'node:buffer';
import { unauthorized } from '../errors/webapi-error.ts';

export interface Credentials {
  user: string;
  password: string;
}

const BASE64_TEXT = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?$/;
const SCHEME = 'Basic ';

export function parseBasicAuth(header: string | string[] | undefined): Credentials {
  const text = Array.isArray(header) ? header[0] : header;
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
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
