// The row reader's line splitting against node:readline's (crlfDelay Infinity), which it replaces:
// the same lines for random text of LF, CRLF and lone CR, however the text is cut into chunks.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { linesOf } from '../../../tools/expimp-row-reader.ts';

async function readlineLines(text: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: Readable.from([text]), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

async function chunkedLines(chunks: string[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const batch of linesOf(Readable.from(chunks, { objectMode: true }))) lines.push(...batch);
  return lines;
}

describe('export import row reader', () => {
  it('splits lines as readline does, whatever the chunks', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', '"', ',', '\n', '\r', 'é'), maxLength: 40 });
    await fc.assert(fc.asyncProperty(text, fc.array(fc.nat({ max: 40 }), { maxLength: 6 }), async (whole, cuts) => {
      const points = [...new Set(cuts.map((cut) => Math.min(cut, whole.length)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) => whole.slice(start, points[i] ?? whole.length))
        .filter((chunk) => chunk !== '');
      assert.deepEqual(await chunkedLines(chunks), await readlineLines(whole));
    }), { numRuns: 500 });
  });
});
