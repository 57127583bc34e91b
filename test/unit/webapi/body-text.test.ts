// A JSON request body read whole (lib/webapi/codec/body-text.ts), both ways (a declared length:
// by events; chunked: counted by for-await): its text however it is cut into chunks (a character
// split between two of them included), 413 past the limit, the stream's own error, and a close
// before the end.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readBodyText } from '../../../lib/webapi/codec/body-text.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';

/** `bytes` written to a stream in pieces cut at `cuts`, then ended. */
function streamOf(bytes: Buffer, cuts: number[]): PassThrough {
  const stream = new PassThrough();
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) stream.write(bytes.subarray(from, to));
    from = Math.max(from, to);
  }
  stream.end();
  return stream;
}

const tooLarge = (error: unknown) => error instanceof WebApiError && error.status === 413 &&
  /more than 6 bytes/.test(error.message);

describe('readBodyText', () => {
  it('gives the text however the body is cut into chunks', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), async (text, cuts, declared) => {
        const bytes = Buffer.from(text, 'utf8');
        assert.equal(await readBodyText(streamOf(bytes, cuts), bytes.length, declared), text);
      }));
  });

  it('refuses a body past the limit with 413', async () => {
    for (const declared of [false, true]) {
      // A body still arriving: two chunks in, no end yet.
      const stream = new PassThrough();
      stream.write('[1,');
      stream.write('2,3]');
      await assert.rejects(readBodyText(stream, 6, declared), tooLarge);
      assert.equal(await readBodyText(streamOf(Buffer.from('[1,2,3]'), [3]), 7, declared),
        '[1,2,3]');
    }
  });

  it('rejects with the stream\'s error, and on a close before the end', async () => {
    for (const declared of [false, true]) {
      const failing = new PassThrough();
      const failed = readBodyText(failing, 100, declared);
      failing.write('[1,');
      failing.destroy(new Error('connection reset'));
      await assert.rejects(failed, /connection reset/);
      const closing = new PassThrough();
      const closed = readBodyText(closing, 100, declared);
      closing.write('[1,');
      closing.destroy();
      await assert.rejects(closed, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    }
  });
});
