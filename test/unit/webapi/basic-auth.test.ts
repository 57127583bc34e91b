// Basic authentication's parsing: GridDB's 401 messages for a malformed header, every time, and
// the credentials of a well-formed one kept (the same object for the same text, so the store
// pool hashes its password once) for at most WEBAPI_CREDENTIALS_CACHED_MAX headers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WEBAPI_CREDENTIALS_CACHED_MAX } from '../../../lib/base/limits.ts';
import { credentialsCachedCount, parseBasicAuth } from '../../../lib/webapi/http/basic-auth.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

function unauthorized(header: string | undefined, message: string): void {
  assert.throws(() => parseBasicAuth(header), (error: unknown) =>
    error instanceof WebApiError && error.status === 401 && error.message === message);
}

describe('basic authentication', () => {
  it('splits at the first colon and refuses a malformed header with its 401 each time', () => {
    assert.deepEqual({ ...parseBasicAuth(basic('admin:a:b')) }, { user: 'admin', password: 'a:b' });
    for (let i = 0; i < 2; i++) {
      unauthorized(undefined, 'Basic authentication not found');
      unauthorized('Bearer x', 'Basic authentication not found');
      unauthorized('Basic ***', 'Basic authentication is not encoded by Base64');
      unauthorized(basic('no colon'), 'Basic authentication is invalid format');
    }
  });

  it('keeps the credentials of a header it has read, for a bounded number of headers', () => {
    const header = basic('keeper:secret');
    const first = parseBasicAuth(header);
    assert.equal(parseBasicAuth(header), first);
    assert.equal(parseBasicAuth([header]), first);
    for (let i = 0; i < WEBAPI_CREDENTIALS_CACHED_MAX + 10; i++) {
      parseBasicAuth(basic(`user${i}:p`));
      assert.ok(credentialsCachedCount() <= WEBAPI_CREDENTIALS_CACHED_MAX);
    }
    // The oldest went: the header is read afresh, to equal credentials.
    const again = parseBasicAuth(header);
    assert.notEqual(again, first);
    assert.deepEqual(again, first);
  });
});
