// Streamed row PUTs (lib/webapi/routes/rows-put.ts): a body is decoded as it arrives and sent in
// batches, and no more than one batch of body (plus one chunk) is read ahead of what the node has
// taken, so memory does not grow with the body. A fake container records what it is sent
// (rows-put-fake.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';
import { putRowsStreamed } from '../../../lib/webapi/routes/rows-put.ts';
import { fakeRowsContainer } from './rows-put-fake.ts';

const CHUNK_BYTES = 1000;
const BATCH_BYTES = 8 * 1024;

function fakeContainer(read: () => number) {
  return fakeRowsContainer([
    { name: 'id', type: 'INTEGER', array: false, notNull: true },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false }], 0, read);
}

/** The body text in chunks of CHUNK_BYTES, counting what has been taken. */
function chunked(text: string) {
  const bytes = Buffer.from(text);
  let readBytes = 0;
  async function* body() {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      const chunk = bytes.subarray(at, at + CHUNK_BYTES);
      readBytes += chunk.length;
      yield chunk;
    }
  }
  return { body: body(), read: () => readBytes };
}

const settings = { ...WEBAPI_SETTINGS_DEFAULT, putBatchSizeBytes: BATCH_BYTES };

describe('streamed row PUT', () => {
  it('sends rows in batches, never reading more than a batch ahead', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [i, i + 0.5]);
    const { body, read } = chunked(JSON.stringify(rows));
    const { container, batches } = fakeContainer(read);
    assert.equal(await putRowsStreamed(body, container, settings), rows.length);
    assert.ok(batches.length > 20, `${batches.length} batches`);
    let sentBytes = 0;
    for (const batch of batches.slice(0, -1)) {
      // At a batch, the body read is at most one batch and one chunk past the previous one.
      assert.ok(batch.bodyReadBytes - sentBytes <= BATCH_BYTES + CHUNK_BYTES,
        `${batch.bodyReadBytes - sentBytes} bytes read for one batch`);
      sentBytes = batch.bodyReadBytes;
    }
    assert.deepEqual(batches.flatMap((batch) => batch.rows), rows);
  });

  it('keeps the batches before a bad row (a multi-batch PUT is not atomic)', async () => {
    const rows: unknown[][] = Array.from({ length: 5000 }, (_, i) => [i, 1]);
    rows.push(['not a number', 1]);
    const { body, read } = chunked(JSON.stringify(rows));
    const { container, batches } = fakeContainer(read);
    await assert.rejects(putRowsStreamed(body, container, settings), (error: unknown) =>
      error instanceof WebApiError && error.status === 400 &&
      /cannot be converted to INTEGER/.test(error.message));
    assert.ok(batches.length > 0);
    const stored = batches.flatMap((batch) => batch.rows);
    assert.deepEqual(stored, rows.slice(0, stored.length));
  });

  it('refuses what is not an array of rows, and a body past the limit', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['[]', 400, /^Rows data is empty$/], ['{"a":[1,2]}', 400, /^Parse error$/],
      ['5', 400, /^Parse error$/], ['[[1,2]', 400, /JSON parse error/],
      [`[${'[1,2],'.repeat(10_000)}[1,2]]`, 413, /too large/],
    ];
    for (const [text, status, message] of cases) {
      const { body, read } = chunked(text);
      const { container } = fakeContainer(read);
      await assert.rejects(putRowsStreamed(body, container,
        { ...settings, requestJsonBodySizeBytesMax: 32 * 1024 }), (error: unknown) =>
        error instanceof WebApiError && error.status === status && message.test(error.message),
      text.slice(0, 20));
    }
  });
});
