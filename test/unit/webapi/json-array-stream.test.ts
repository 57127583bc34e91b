// The fast reader of a JSON array body (codec/json-array-stream.ts): whatever the chunks, it hands
// over the elements JSON.parse (LONG-exact, json-body.ts) reads from the whole text, and refuses
// with a 400 `JSON parse error` exactly the texts it refuses; a body that is not an array comes
// back whole for the general reader.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readJsonArrayStream } from '../../../lib/webapi/codec/json-array-stream.ts';
import { parseJsonBody } from '../../../lib/webapi/codec/json-body.ts';
import { WebApiError } from '../../../lib/webapi/errors/webapi-error.ts';

async function* chunksOf(bytes: Buffer, cuts: number[]): AsyncIterable<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

type Outcome = { elements: unknown[] } | { error: string } | { notArray: string };

async function readAll(text: string, cuts: number[]): Promise<Outcome> {
  const elements: unknown[] = [];
  try {
    const result = await readJsonArrayStream(chunksOf(Buffer.from(text), cuts), {
      bodySizeBytesMax: 1 << 20, batchSizeBytes: 7,
      onElement: (value) => elements.push(value), onBatch: async () => undefined,
    });
    if (result.read) return { elements };
    const rest: Buffer[] = [];
    for await (const chunk of result.rest) rest.push(Buffer.from(chunk));
    return { notArray: Buffer.concat(rest).toString() };
  } catch (error) {
    assert.ok(error instanceof WebApiError && error.status === 400, String(error));
    assert.match(error.message, /^JSON parse error/);
    return { error: 'JSON parse error' };
  }
}

function expected(text: string): Outcome {
  if (text.trim() === '') return { elements: [] };
  if (!text.trimStart().startsWith('[')) return { notArray: text };
  try {
    const value = parseJsonBody(text);
    assert.ok(Array.isArray(value));
    return { elements: value };
  } catch {
    return { error: 'JSON parse error' };
  }
}

const MUTATIONS = [',', '[', ']', '{', '}', '"', '\\', ' ', 'x', '1', '12345678901234567', 'é'];

describe('JSON array stream', () => {
  it('reads what JSON.parse reads from the whole, in any chunks; refuses what it refuses', async () => {
    const texts = fc.tuple(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
      fc.constantFrom(undefined, 1), fc.constantFrom('', ' \n'))
      .map(([value, space, pad]) => `${pad}${JSON.stringify(value, null, space)}${pad}`);
    const mutated = fc.tuple(texts, fc.nat(), fc.nat({ max: MUTATIONS.length }))
      .map(([text, at, which]) => {
        const index = at % (text.length + 1);
        return which === MUTATIONS.length ? text.slice(0, index) + text.slice(index + 1)
          : text.slice(0, index) + MUTATIONS[which]! + text.slice(index);
      });
    await fc.assert(fc.asyncProperty(fc.oneof(texts, mutated),
      fc.array(fc.nat(), { maxLength: 5 }), async (text, cuts) => {
        assert.deepStrictEqual(await readAll(text, cuts), expected(text), text);
      }), { numRuns: 3000 });
  });

  it('keeps LONG literals exact and reads multi-byte characters cut by a chunk', async () => {
    const text = '[[9223372036854775807, "é✓"], [-9223372036854775808, 1.5]]';
    for (let cut = 0; cut <= Buffer.byteLength(text); cut++) {
      assert.deepStrictEqual(await readAll(text, [cut]), { elements: [
        ['9223372036854775807', 'é✓'], ['-9223372036854775808', 1.5]] });
    }
  });
});
