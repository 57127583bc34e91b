// A JSON request body that is one array, read as it arrives, its elements handed over a run at a
// time: the bytes of each chunk are scanned for the commas between top-level elements (outside
// strings), and the complete elements before the last such comma are parsed by one JSON.parse
// (codec/json-body.ts: LONG-exact), about five times faster than a token-by-token parser. Only
// the element cut by the chunk's end is carried over, so the memory a body takes is about one
// chunk plus what the caller keeps. For the row PUT of one container (routes/rows-put.ts).
//
// A body that does not open with '[' (after white space) is handed back unread, as its first
// chunk and the rest, for the general reader (json-stream.ts) to answer as it does. Text that is
// not JSON is a 400 `JSON parse error: ...`, anything after the array included; more than
// `bodySizeBytesMax` bytes is a 413. Between chunks, once `batchSizeBytes` of body have come
// since the last batch, `onBatch` runs and the body is not read meanwhile.

import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.ts';
import { badRequest } from '../errors/webapi-error.ts';
import { parseJsonBody } from './json-body.ts';
import { bodyTooLarge } from './json-stream.ts';

export interface JsonArrayStreamOptions {
  bodySizeBytesMax: number;
  batchSizeBytes: number;
  /** Synchronous; what it throws ends the reading with that error. */
  onElement(value: unknown): void;
  onBatch(): Promise<void>;
}

/**
 * `read` false: the body is not an array; `rest` is all of it, for another reader. `opened`
 * false: the body was empty or white space only.
 */
export type JsonArrayStreamResult =
  | { read: true; opened: boolean; elementCount: number; sizeBytes: number }
  | { read: false; rest: AsyncIterable<Uint8Array> };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** 1 for the bytes the scan acts on outside strings: quote, brackets, braces, comma. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, COMMA, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE]) {
  STRUCTURAL[byte] = 1;
}

function isWhiteSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export async function readJsonArrayStream(
  body: AsyncIterable<Uint8Array>,
  options: JsonArrayStreamOptions,
): Promise<JsonArrayStreamResult> {
  assert(options.batchSizeBytes > 0);
  assert(options.bodySizeBytesMax > 0);
  const iterator = body[Symbol.asyncIterator]();
  const scanner = new ArrayScanner();
  let elementCount = 0;
  let sizeBytes = 0;
  let batchStartBytes = 0;
  let opened = false;
  /** White space before the first value, handed back too when the body is not an array. */
  const blank: Uint8Array[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) break;
    const chunk = next.value;
    sizeBytes += chunk.byteLength;
    if (sizeBytes > options.bodySizeBytesMax) throw bodyTooLarge(options.bodySizeBytesMax);
    if (!opened) {
      const first = chunk.findIndex((byte) => !isWhiteSpace(byte));
      if (first >= 0 && chunk[first] !== OPEN_BRACKET) {
        return { read: false, rest: restOf([...blank, chunk], iterator) };
      }
      opened = first >= 0;
      if (!opened) blank.push(chunk);
    }
    const text = scanner.push(chunk);
    if (text !== undefined) {
      if (text.trim() === '') throw badRequest('JSON parse error: a value is missing');
      for (const element of parseJsonBody(`[${text}]`) as unknown[]) {
        elementCount++;
        options.onElement(element);
      }
    }
    if (sizeBytes - batchStartBytes >= options.batchSizeBytes) {
      batchStartBytes = sizeBytes;
      await options.onBatch();
    }
  }
  if (!opened) return { read: true, opened, elementCount: 0, sizeBytes };
  const last = scanner.end();
  if (last.trim() === '' && elementCount > 0) {
    throw badRequest('JSON parse error: a value is missing after the last comma');
  }
  if (last.trim() !== '') {
    for (const element of parseJsonBody(`[${last}]`) as unknown[]) {
      elementCount++;
      options.onElement(element);
    }
  }
  return { read: true, opened, elementCount, sizeBytes };
}

async function* restOf(read: Uint8Array[], iterator: AsyncIterator<Uint8Array>):
  AsyncIterable<Uint8Array> {
  yield* read;
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * Finds, across chunks, the commas at depth 1 (between the top-level array's elements) and the
 * array's closing bracket. Bytes of UTF-8 sequences are all 0x80 or more, so no byte of a
 * multi-byte character is taken for one of these.
 */
class ArrayScanner {
  /** Bytes not yet handed out: the elements after the last comma found. */
  private held: Uint8Array[] = [];
  /** 0 before the opening bracket; 1 inside the array; 0 again after it closes. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private closed = false;

  /** The text of the complete elements up to the chunk's last depth-1 comma, or undefined. */
  push(chunk: Uint8Array): string | undefined {
    let cut = -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      // Digits, letters, '.', '-': most bytes of a body of rows; one load says so.
      if (STRUCTURAL[byte] === 0 && !this.closed) continue;
      if (this.closed) {
        if (!isWhiteSpace(byte)) throw badRequest('JSON parse error: text after the end');
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        // The opening bracket of the array itself is not part of any element.
        if (this.depth === 0) chunk = this.dropOpening(chunk, i, () => { cut = -1; });
        this.depth++;
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
        this.depth--;
        if (this.depth < 0) throw badRequest('JSON parse error: unexpected close');
        if (this.depth === 0) this.closed = true;
      } else if (byte === COMMA && this.depth === 1) {
        cut = i;
      }
    }
    if (cut < 0) {
      this.held.push(chunk);
      return undefined;
    }
    const text = this.textWith(chunk.subarray(0, cut));
    this.held = [chunk.subarray(cut + 1)];
    return text;
  }

  /** The text after the last comma up to the closing bracket (excluded). */
  end(): string {
    if (!this.closed) throw badRequest('JSON parse error: unexpected end');
    const text = this.textWith(new Uint8Array(0)).trimEnd();
    assert(text.endsWith(']'));
    return text.slice(0, -1);
  }

  /** Bytes before the opening bracket are white space: dropped with it. */
  private dropOpening(chunk: Uint8Array, index: number, reset: () => void): Uint8Array {
    this.held = [];
    reset();
    // Elements start after the bracket; the scan goes on over the same chunk's indexes.
    const rest = chunk.slice();
    rest.fill(0x20, 0, index + 1);
    return rest;
  }

  private textWith(tail: Uint8Array): string {
    if (this.held.length === 0) return Buffer.from(tail.buffer, tail.byteOffset,
      tail.byteLength).toString('utf8');
    return Buffer.concat([...this.held, tail]).toString('utf8');
  }
}
