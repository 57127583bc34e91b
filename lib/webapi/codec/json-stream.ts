// A JSON request body read as it arrives (@streamparser/json), for the bodies that carry rows:
// the values at the given paths are handed over one by one and then dropped by the parser
// (keepStack false), so the memory a body takes is one chunk of it plus what the caller keeps,
// never the whole document. Between chunks, once `batchSizeBytes` of body have come since the
// last batch, `onBatch` runs and the body is not read meanwhile: a slow node slows the client
// down instead of filling memory.
//
// Integer literals of 16 digits or more are handed over as their text, so that LONG values stay
// exact (codec/json-body.ts does the same for whole bodies). More than `bodySizeBytesMax` bytes
// is a 413; text that is not JSON is a 400 `JSON parse error: ...`.

import {
  Tokenizer, TokenParser, TokenType, type ParsedElementInfo, type ParsedTokenInfo,
} from '@streamparser/json';
import { assert } from '../../base/assert.ts';
import { badRequest, WebApiError } from '../errors/webapi-error.ts';

export interface JsonStreamOptions {
  /** JSONPath subset of @streamparser/json: `$.*`, `$.*.rows.*`, ... */
  paths: string[];
  bodySizeBytesMax: number;
  batchSizeBytes: number;
  /** Synchronous; what it throws ends the reading with that error. */
  onValue(info: ParsedElementInfo): void;
  /**
   * An element of a top-level array has ended (after every value inside it was handed over);
   * `index` counts from 0. Synchronous, as onValue.
   */
  onElementEnd?(index: number, kind: ElementKind): void;
  /**
   * A member name of an object element of the top-level array (`index` counts from 0), as it is
   * read, so that unknown members are refused without holding the element. Synchronous.
   */
  onElementMember?(index: number, name: string): void;
  onBatch(): Promise<void>;
}

export type ElementKind = 'object' | 'array' | 'scalar';

export interface JsonStreamResult {
  /** The first character of the document: '[' for an array, '{', or undefined for a scalar. */
  opening: '[' | '{' | undefined;
  sizeBytes: number;
}

class ExactTokenizer extends Tokenizer {
  protected override parseNumber(text: string): number {
    return /^-?\d{16,}$/.test(text) ? (text as unknown as number) : Number(text);
  }
}

export async function readJsonStream(
  body: AsyncIterable<Uint8Array>,
  options: JsonStreamOptions,
): Promise<JsonStreamResult> {
  assert(options.batchSizeBytes > 0);
  assert(options.bodySizeBytesMax > 0);
  const tokenizer = new ExactTokenizer();
  const parser = new TokenParser({ paths: options.paths, keepStack: false });
  let failure: unknown;
  let opening: JsonStreamResult['opening'];
  let tokenCount = 0;
  const elements = new ElementTracker((index, kind) => {
    if (failure !== undefined || options.onElementEnd === undefined) return;
    try {
      options.onElementEnd(index, kind);
    } catch (error) {
      failure = error;
    }
  }, (index, name) => {
    if (failure !== undefined || options.onElementMember === undefined) return;
    try {
      options.onElementMember(index, name);
    } catch (error) {
      failure = error;
    }
  });
  tokenizer.onToken = (token) => {
    if (tokenCount++ === 0) {
      opening = token.value === '[' ? '[' : token.value === '{' ? '{' : undefined;
    }
    parser.write(token);
    if (opening === '[') elements.token(token);
  };
  parser.onValue = (info) => {
    if (failure !== undefined) return;
    try {
      options.onValue(info);
    } catch (error) {
      failure = error;
    }
  };
  const fail = (error: Error) => {
    failure ??= badRequest(`JSON parse error: ${error.message}`);
  };
  tokenizer.onError = fail;
  parser.onError = fail;
  parser.onEnd = () => undefined;
  let sizeBytes = 0;
  let batchStartBytes = 0;
  for await (const chunk of body) {
    sizeBytes += chunk.byteLength;
    if (sizeBytes > options.bodySizeBytesMax) throw bodyTooLarge(options.bodySizeBytesMax);
    tokenizer.write(chunk);
    if (failure !== undefined) throw failure;
    if (sizeBytes - batchStartBytes >= options.batchSizeBytes) {
      batchStartBytes = sizeBytes;
      await options.onBatch();
    }
  }
  if (tokenCount > 0 && !tokenizer.isEnded) tokenizer.end();
  if (failure !== undefined) throw failure;
  if (tokenCount > 0 && !parser.isEnded) throw badRequest('JSON parse error: unexpected end');
  return { opening, sizeBytes };
}

/**
 * Depth of the tokens seen, to tell where each element of the top-level array ends, and which
 * member names its object elements have (a string at depth 2 right after `{` or `,` is one).
 */
class ElementTracker {
  private depth = 0;
  private index = 0;
  private kind: ElementKind = 'scalar';
  private memberNameNext = false;

  constructor(
    private readonly ended: (index: number, kind: ElementKind) => void,
    private readonly member: (index: number, name: string) => void,
  ) {}

  token(token: ParsedTokenInfo): void {
    if (this.memberNameNext) {
      this.memberNameNext = false;
      if (token.token === TokenType.STRING) {
        this.member(this.index, token.value as string);
        return;
      }
    }
    switch (token.token) {
      case TokenType.LEFT_BRACE: case TokenType.LEFT_BRACKET:
        if (this.depth === 1) this.kind = token.token === TokenType.LEFT_BRACE ? 'object' : 'array';
        this.depth++;
        this.memberNameNext = this.depth === 2 && this.kind === 'object';
        return;
      case TokenType.COMMA:
        this.memberNameNext = this.depth === 2 && this.kind === 'object';
        return;
      case TokenType.RIGHT_BRACE: case TokenType.RIGHT_BRACKET:
        this.depth--;
        assert(this.depth >= 0);
        if (this.depth === 1) this.ended(this.index++, this.kind);
        return;
      case TokenType.STRING: case TokenType.NUMBER: case TokenType.TRUE: case TokenType.FALSE:
      case TokenType.NULL:
        if (this.depth === 1) this.ended(this.index++, 'scalar');
        return;
      default:
        return;
    }
  }
}

/** The answer to a body over the limit, before or while it is read. */
export function bodyTooLarge(bodySizeBytesMax: number): WebApiError {
  return new WebApiError(413, `Request body is too large (more than ${bodySizeBytesMax} bytes)`);
}
