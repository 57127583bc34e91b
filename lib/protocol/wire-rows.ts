// Rows and row keys on the wire. A batch is encoded with the binary row codec of its container's
// schema (lib/encoding/row-codec.ts draws the row and key layouts: a null bitmap, then each value
// in its fixed-width or size-prefixed form; LONG as i64, DOUBLE as f64 bit for bit, so NaN and -0
// survive; GEOMETRY as WKT text, the codec's 'wire' form) behind a count and a size:
//
//   | count varuint | sizeBytes u32 | rows or keys (sizeBytes bytes) |
//
// The size lets a message be read before its schema is known: a node reads a request, looks up the
// container it names, checks that the client encoded with the same schema version, and only then
// decodes the rows (decode()). Writing takes canonical rows (validated against the schema, as
// lib/schema/row-validate.ts returns them); anything else is a bug and asserts.

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { rowCodec } from '../encoding/row-codec.ts';
import { protocolError } from './frame.ts';

abstract class EncodedBatch<T> {
  protected constructor(
    readonly count: number,
    private readonly items: readonly T[] | undefined,
    private readonly schema: ContainerSchema | undefined,
    private readonly bytes: Uint8Array | undefined,
    /** Encoded items in several pieces (a page of an EncodedRows), written one after another. */
    private readonly parts: readonly Uint8Array[] | undefined = undefined,
  ) {}

  protected abstract writeItems(
    writer: ByteWriter, schema: ContainerSchema, items: readonly T[]): void;

  protected abstract readItems(reader: ByteReader, schema: ContainerSchema, count: number): T[];
  protected abstract get what(): string;

  write(writer: ByteWriter): void {
    writer.varuint(this.count);
    const sizeAt = writer.claim(4);
    writer.advanceTo(sizeAt + 4);
    if (this.bytes !== undefined) {
      writer.bytes(this.bytes);
    } else if (this.parts !== undefined) {
      for (const part of this.parts) writer.bytes(part);
    } else {
      assert(this.items !== undefined && this.schema !== undefined);
      this.writeItems(writer, this.schema, this.items);
    }
    const sizeBytes = writer.lengthBytes - sizeAt - 4;
    assert(sizeBytes <= 0xffff_ffff);
    writer.dataView.setUint32(sizeAt, sizeBytes, true);
  }

  /**
   * The items, read with `schema`: the very items when this batch was made from them, else
   * decoded from the bytes received. Malformed bytes are a PROTOCOL_ERROR.
   */
  decode(schema: ContainerSchema): T[] {
    if (this.items !== undefined) return [...this.items];
    const bytes = this.encodedBytes;
    assert(bytes !== undefined);
    try {
      const reader = new ByteReader(bytes);
      const items = this.readItems(reader, schema, this.count);
      reader.expectEnd();
      return items;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw protocolError(`malformed ${this.what} of container ${JSON.stringify(schema.name)} ` +
        `(schema version ${schema.schemaVersion}): ${reason}`, error);
    }
  }

  /** The encoded bytes (a batch received or encoded); undefined for one made from items. */
  get encodedBytes(): Uint8Array | undefined {
    return this.parts === undefined ? this.bytes : Buffer.concat(this.parts);
  }
}

export class RowBatch extends EncodedBatch<Row> {
  /** Rows to send, canonical for `schema`. */
  static of(schema: ContainerSchema, rows: readonly Row[]): RowBatch {
    return new RowBatch(rows.length, rows, schema, undefined);
  }

  /** Rows already encoded with their schema's row codec (a node paging a query result). */
  static encoded(count: number, bytes: Uint8Array): RowBatch {
    return new RowBatch(count, undefined, undefined, bytes);
  }

  /** Rows already encoded, in pieces (a page of an EncodedRows, lib/encoding/encoded-rows.ts). */
  static encodedParts(count: number, parts: readonly Uint8Array[]): RowBatch {
    return new RowBatch(count, undefined, undefined, undefined, parts);
  }

  static read(reader: ByteReader): RowBatch {
    const { count, bytes } = batchRead(reader, 'rows');
    return new RowBatch(count, undefined, undefined, bytes);
  }

  protected writeItems(writer: ByteWriter, schema: ContainerSchema, rows: readonly Row[]): void {
    rowCodec(schema, 'wire').writeRows(writer, rows);
  }

  protected readItems(reader: ByteReader, schema: ContainerSchema, count: number): Row[] {
    return rowCodec(schema, 'wire').readRows(reader, count);
  }

  protected get what(): string {
    return 'rows';
  }
}

export class KeyBatch extends EncodedBatch<RowKey> {
  /** Keys to send, canonical for `schema` (as keyValidator returns them). */
  static of(schema: ContainerSchema, keys: readonly RowKey[]): KeyBatch {
    assert(schema.rowKeyColumnCount > 0);
    return new KeyBatch(keys.length, keys, schema, undefined);
  }

  static read(reader: ByteReader): KeyBatch {
    const { count, bytes } = batchRead(reader, 'keys');
    return new KeyBatch(count, undefined, undefined, bytes);
  }

  protected writeItems(writer: ByteWriter, schema: ContainerSchema, keys: readonly RowKey[]): void {
    rowCodec(schema, 'wire').writeKeys(writer, keys);
  }

  protected readItems(reader: ByteReader, schema: ContainerSchema, count: number): RowKey[] {
    if (schema.rowKeyColumnCount === 0) {
      throw protocolError(`container ${JSON.stringify(schema.name)} has no row key`);
    }
    return rowCodec(schema, 'wire').readKeys(reader, count);
  }

  protected get what(): string {
    return 'keys';
  }
}

function batchRead(reader: ByteReader, what: string): { count: number; bytes: Uint8Array } {
  const count = reader.varuint();
  const sizeBytes = reader.u32();
  // Every row has a bitmap byte or a value byte; a key at least one value byte.
  if (count > sizeBytes) throw protocolError(`${count} ${what} cannot fit in ${sizeBytes} bytes`);
  return { count, bytes: reader.bytes(sizeBytes) };
}
