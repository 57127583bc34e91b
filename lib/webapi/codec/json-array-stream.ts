// A JSON request body that is one array, read as it arrives, its elements handed over a run at a
// time: the bytes of each chunk are scanned for the commas between top-level elements (outside
// strings), and the complete elements before the last such comma are parsed by one JSON.parse
// (codec/json-body.ts: LONG-exact), about five times faster than a token-by-token parser. Only
// the element cut by the chunk's end is carried over, so the memory a body takes is about one
// chunk plus what the caller keeps. For the row PUT of one container (routes/rows-put.ts), whose
// reader of rows (`elements`, codec/rows-json-scan.ts) is tried first on each piece: it takes the
// elements before the chunk's last comma from the bytes, and the scan goes on after them.
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
import { SCAN_GIVEN_UP } from './rows-json-scan.ts';
import { bodyTooLarge } from './json-stream.ts';

export interface JsonArrayStreamOptions {
  bodySizeBytesMax: number;
  batchSizeBytes: number;
  /** Synchronous; what it throws ends the reading with that error. */
  onElement(value: unknown): void;
  onBatch(): Promise<void>;
  /**
   * A reader of elements from their bytes (the row PUT's, rows-json-scan.ts), tried before
   * JSON.parse on each piece; once it gives a piece up, the rest of the body is parsed.
   */
  elements?: JsonArrayElementsReader;
}

export interface JsonArrayElementsReader {
  /**
   * Elements of `data`, which starts where an element may start. `whole`: data is complete
   * elements separated by commas (the text JSON.parse would get), all to be taken; else the
   * elements before its last top-level comma are taken. Returns the index after the last comma
   * taken (data.length when whole), or -1 (SCAN_GIVEN_UP): nothing taken, parse it instead.
   */
  scan(data: Uint8Array, whole: boolean): number;
  /** Elements taken so far. */
  readonly takenCount: number;
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
  let elements = options.elements;
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
    // Once the array is open, the reader takes the complete elements of the bytes held and
    // this chunk; the scanner then goes on from its last comma, as if it had found it itself.
    const fastData = elements !== undefined && scanner.inArray ? scanner.heldWith(chunk) : undefined;
    const fastTakenCount = elements?.takenCount ?? 0;
    const restAt = fastData === undefined ? SCAN_GIVEN_UP : elements!.scan(fastData, false);
    let piece: Uint8Array | undefined;
    if (restAt !== SCAN_GIVEN_UP) {
      elementCount += elements!.takenCount - fastTakenCount;
      piece = scanner.resume(fastData!.subarray(restAt));
    } else {
      if (fastData !== undefined) elements = undefined;
      piece = scanner.push(chunk);
      const taken = piece === undefined || elements === undefined ? SCAN_GIVEN_UP
        : elements.scan(piece, true);
      if (taken !== SCAN_GIVEN_UP) {
        elementCount += elements!.takenCount - fastTakenCount;
        piece = undefined;
      }
    }
    if (piece !== undefined) {
      elements = undefined;
      const text = textOf(piece);
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

  /** Inside the array, the bytes held starting where an element may start. */
  get inArray(): boolean {
    return this.depth >= 1 && !this.closed;
  }

  /** The bytes held, then `chunk`. */
  heldWith(chunk: Uint8Array): Uint8Array {
    return this.held.length === 0 ? chunk : Buffer.concat([...this.held, chunk]);
  }

  /**
   * Goes on after a reader took the elements before `rest`, which starts right after a comma
   * between elements: the state there is depth 1, outside strings. A reader takes up to the last
   * such comma, so `rest` has none and this returns undefined; should it have one, the elements
   * before it are returned, to be parsed. An error in `rest` is thrown, as push throws it.
   */
  resume(rest: Uint8Array): Uint8Array | undefined {
    this.held = [];
    this.depth = 1;
    this.inString = false;
    this.escaped = false;
    this.closed = false;
    return this.push(rest);
  }

  /** The bytes of the complete elements up to the chunk's last depth-1 comma, or undefined. */
  push(chunk: Uint8Array): Uint8Array | undefined {
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
    const piece = this.bytesWith(chunk.subarray(0, cut));
    this.held = [chunk.subarray(cut + 1)];
    return piece;
  }

  /** The text after the last comma up to the closing bracket (excluded). */
  end(): string {
    if (!this.closed) throw badRequest('JSON parse error: unexpected end');
    const text = textOf(this.bytesWith(new Uint8Array(0))).trimEnd();
    assert(text.endsWith(']'));
    return text.slice(0, -1);
  }

  /** Bytes before the opening bracket are white space: dropped with it. */
  private dropOpening(chunk: Uint8Array, index: number, reset: () => void): Uint8Array {
    this.held = [];
    reset();
    // Elements start after the bracket; the scan goes on over the same chunk's indexes. A copy:
    // a Buffer's own slice() is a view, and the caller's chunk is not ours to change.
    const rest = Uint8Array.prototype.slice.call(chunk);
    rest.fill(0x20, 0, index + 1);
    return rest;
  }

  private bytesWith(tail: Uint8Array): Uint8Array {
    if (this.held.length === 0) return tail;
    return Buffer.concat([...this.held, tail]);
  }
}

function textOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
