// What every message of the protocol has: a type and four body codecs (request and reply, each
// written and read). Reading goes through decodeBody, which turns anything a malformed body can
// cause (a read past the end, bad UTF-8, an unknown enum value, trailing bytes, even a bug in a
// reader) into one PROTOCOL_ERROR, so that no exception of another kind escapes a decode.

import { assert } from '../base/assert.ts';
import type { StorageError } from '../base/errors.ts';
import { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { protocolError } from './frame.ts';
import { MESSAGE_TYPE_NAMES, type MessageType } from './message-types.ts';

export interface MessageCodec<Request, Reply> {
  readonly type: MessageType;
  writeRequest(writer: ByteWriter, request: Request): void;
  readRequest(reader: ByteReader): Request;
  writeReply(writer: ByteWriter, reply: Reply): void;
  readReply(reader: ByteReader): Reply;
}

export type RequestOf<C> = C extends MessageCodec<infer Request, unknown> ? Request : never;
export type ReplyOf<C> = C extends MessageCodec<unknown, infer Reply> ? Reply : never;

/** Reads a whole body with `read`; every failure is a PROTOCOL_ERROR naming what was read. */
export function decodeBody<T>(body: Uint8Array, read: (reader: ByteReader) => T, what: string): T {
  try {
    const reader = new ByteReader(body);
    const value = read(reader);
    reader.expectEnd();
    return value;
  } catch (error) {
    throw malformed(what, error);
  }
}

/**
 * Reads a reply body of `messageType` with its codec, as decodeBody does: a sender decodes one per
 * request, so the name of what was read is only made when it is malformed.
 */
export function decodeReply<Reply>(
  codec: MessageCodec<unknown, Reply>,
  body: Uint8Array,
  messageType: number,
): Reply {
  try {
    const reader = new ByteReader(body);
    const reply = codec.readReply(reader);
    reader.expectEnd();
    return reply;
  } catch (error) {
    throw malformed(`${messageName(messageType)} reply`, error);
  }
}

function malformed(what: string, error: unknown): StorageError {
  const reason = error instanceof Error ? error.message : String(error);
  return protocolError(`malformed ${what}: ${reason}`, error);
}

export function messageName(type: number): string {
  return MESSAGE_TYPE_NAMES[type] ?? `message type ${type}`;
}

// Small field codecs every message uses.

export function boolWrite(writer: ByteWriter, value: boolean): void {
  writer.u8(value ? 1 : 0);
}

/** A u8 that must be 0 or 1. */
export function boolRead(reader: ByteReader): boolean {
  const byte = reader.u8();
  if (byte > 1) throw protocolError(`a boolean byte is ${byte}, not 0 or 1`);
  return byte === 1;
}

/** A count of items of at least `itemBytesMin` bytes each; more than the body holds: malformed. */
export function countRead(reader: ByteReader, itemBytesMin: number, what: string): number {
  const count = reader.varuint();
  if (count * itemBytesMin > reader.remainingBytes) {
    throw protocolError(`${count} ${what} cannot fit in the ${reader.remainingBytes} bytes left`);
  }
  return count;
}

/** Writes a list: varuint count, then each item. */
export function listWrite<T>(writer: ByteWriter, items: readonly T[], write: (item: T) => void) {
  writer.varuint(items.length);
  for (const item of items) write(item);
}

export function listRead<T>(
  reader: ByteReader,
  itemBytesMin: number,
  what: string,
  read: () => T,
): T[] {
  const count = countRead(reader, itemBytesMin, what);
  const items: T[] = [];
  for (let i = 0; i < count; i++) items.push(read());
  return items;
}

/** An enumeration member by its index in `values`. */
export function enumRead<T>(reader: ByteReader, values: readonly T[], what: string): T {
  const index = reader.u8();
  const value = values[index];
  if (value === undefined) throw protocolError(`${what} ${index} does not exist`);
  return value;
}

export function enumWrite<T>(writer: ByteWriter, values: readonly T[], value: T): void {
  const index = values.indexOf(value);
  assert(index >= 0 && index <= 0xff);
  writer.u8(index);
}

/** An empty body. */
export function emptyWrite(): void {}
export function emptyRead(): Record<string, never> {
  return {};
}
