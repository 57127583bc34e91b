// The LevelDB peer: the same TSBS rows in LevelDB (the `level` package, which is classic-level on
// Node), stored as a LevelDB-backed time-series store would keep them.
//
// Key, name + 9 bytes:   | container name, UTF-8 | 0x00 | timestamp ms, u64 big-endian |
// The 0x00 ends the name, so one host's keys never interleave with a longer name's; big-endian
// timestamps sort in time order. Value: the row in lib/encoding/row-codec.ts format (timestamp
// included), the very bytes the store's xlog records carry for it.
//
// LevelDB runs with classic-level's defaults (4 MiB write buffer, 8 MiB block cache, snappy on),
// except where a workload says: the checkpoint and recovery workloads give it the largest write
// buffer LevelDB accepts, so a large load stays in its memtable and log (as the store's dirty
// blocks stay in memory and its xlog) until flush() or a reopen writes it to a table.
// Writes are one db.batch per TSBS batch, in its chained form (db.batch().put()….write()): one
// LevelDB WriteBatch either way, but abstract-level 3.1's array form with an options object costs
// about 10 µs of JavaScript per operation here (81k puts/s against 673k for the chained form in a
// 300k-put test), which would measure abstract-level rather than LevelDB. Scans page with nextv.

import { Buffer } from 'node:buffer';
import type { ClassicLevel } from 'classic-level';
import { Level } from 'level';
import { assert } from '../lib/base/assert.ts';
import { blockSizeLimits } from '../lib/base/limits.ts';
import { ByteReader } from '../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../lib/encoding/byte-writer.ts';
import { rowCodec, type RowCodec } from '../lib/encoding/row-codec.ts';
import type { Row } from '../lib/schema/column-type.ts';
import { validateContainerDefinition } from '../lib/schema/schema-validate.ts';
import { tsbsContainerDefinition, type TsbsBatch, type TsbsHost } from './tsbs.ts';

const TIMESTAMP_SIZE_BYTES = 8;
const TWO_POW_32 = 2 ** 32;
/** Entries a scan asks the iterator for at once. */
const SCAN_PAGE_ENTRY_COUNT = 1000;
/** Bytes one native iterator read may buffer; classic-level's 16 KiB default slows full scans. */
const SCAN_HIGH_WATER_MARK_BYTES = 1024 * 1024;
/** The null bitmap of an 11-column row, and where usage_user sits when ts and it are not NULL. */
const ROW_BITMAP_BYTES = 2;
const USAGE_USER_OFFSET_BYTES = ROW_BITMAP_BYTES + TIMESTAMP_SIZE_BYTES;

/** LevelDB clips write_buffer_size to [64 KiB, 1 GiB]. */
export const PEER_WRITE_BUFFER_SIZE_BYTES_MAX = 1024 * 1024 * 1024;
/** Above every key: a range from here to LAST_KEY overlaps no table. */
const LAST_KEY = Buffer.alloc(64, 0xff);

/** On Node, `level`'s Level is classic-level's class; its type adds compactRange. */
type Db = ClassicLevel<Buffer, Buffer>;

export interface LevelPeerOptions {
  /** classic-level's writeBufferSize; its default (4 MiB) when absent. */
  writeBufferSizeBytes?: number;
  /** Snappy for table blocks; on when absent, as classic-level. */
  compression?: boolean;
  /** classic-level's block cache (cacheSize); its default (8 MiB) when absent. */
  cacheSizeBytes?: number;
}

export class LevelPeer {
  private readonly codec: RowCodec;
  private readonly writer = new ByteWriter(1024 * 1024);
  private readonly single: Row[] = [[]];
  private readonly prefixes: Buffer[];

  private constructor(private readonly db: Db, hosts: readonly TsbsHost[]) {
    // Every host has the same columns, so one schema (one codec) writes the bytes of all of them.
    const schema = validateContainerDefinition(
      tsbsContainerDefinition(hosts[0]!.containerName), blockSizeLimits(64 * 1024));
    this.codec = rowCodec(schema, 'storage');
    this.prefixes = hosts.map((host) => Buffer.from(`${host.containerName}\0`, 'utf8'));
  }

  static async open(
    location: string,
    hosts: readonly TsbsHost[],
    options: LevelPeerOptions = {},
  ): Promise<LevelPeer> {
    assert(hosts.length > 0);
    const { writeBufferSizeBytes } = options;
    if (writeBufferSizeBytes !== undefined) {
      assert(writeBufferSizeBytes <= PEER_WRITE_BUFFER_SIZE_BYTES_MAX);
    }
    const level = new Level<Buffer, Buffer>(location, {
      keyEncoding: 'buffer', valueEncoding: 'buffer',
      writeBufferSize: writeBufferSizeBytes, compression: options.compression ?? true,
      cacheSize: options.cacheSizeBytes,
    });
    const db = level as unknown as Db;
    assert(typeof db.compactRange === 'function');
    await db.open();
    return new LevelPeer(db, hosts);
  }

  /** Encodes a batch (keys and row-codec values) and writes it as one LevelDB write batch. */
  async putBatch(batch: TsbsBatch, options: { sync: boolean }): Promise<void> {
    const { rows } = batch;
    const prefix = this.prefixes[batch.hostIndex]!;
    const keySizeBytes = prefix.length + TIMESTAMP_SIZE_BYTES;
    const keys = Buffer.allocUnsafe(rows.length * keySizeBytes);
    const ends = new Uint32Array(rows.length);
    this.writer.reset();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      keyWrite(keys, i * keySizeBytes, prefix, row[0] as number);
      this.single[0] = row;
      this.codec.writeRows(this.writer, this.single);
      ends[i] = this.writer.lengthBytes;
    }
    // One copy per batch: the writer's memory is reused by the next batch while this one is queued.
    const values = Buffer.from(this.writer.finish());
    const writeBatch = this.db.batch();
    for (let i = 0; i < rows.length; i++) {
      const keyOffsetBytes = i * keySizeBytes;
      writeBatch.put(keys.subarray(keyOffsetBytes, keyOffsetBytes + keySizeBytes),
        values.subarray(i === 0 ? 0 : ends[i - 1]!, ends[i]!));
    }
    await writeBatch.write({ sync: options.sync });
  }

  /** Compacts the whole key space, so scans see a settled tree rather than fresh level-0 files. */
  async compact(): Promise<void> {
    await this.db.compactRange(Buffer.alloc(0), Buffer.alloc(64, 0xff));
  }

  /**
   * Writes the memtable to a table file and syncs it (LevelDB's CompactRange flushes the memtable
   * first); the range lies above every key, so no table is compacted after. What a checkpoint is
   * to the store: the rows in memory and the log become a durable sorted file.
   */
  async flush(): Promise<void> {
    await this.db.compactRange(LAST_KEY, LAST_KEY);
  }

  /** The row of host `hostIndex` at timestampMs, or undefined. */
  async getRow(hostIndex: number, timestampMs: number): Promise<Row | undefined> {
    const value = await this.db.get(keyOf(this.prefixes[hostIndex]!, timestampMs));
    return value === undefined ? undefined : this.decode(value);
  }

  /** Every row, decoded with the row codec; calls visit on each. Returns the row count. */
  async scanRows(visit: (row: Row) => void): Promise<number> {
    const iterator = this.db.iterator({ highWaterMarkBytes: SCAN_HIGH_WATER_MARK_BYTES });
    let rowCount = 0;
    try {
      for (;;) {
        const entries = await iterator.nextv(SCAN_PAGE_ENTRY_COUNT);
        if (entries.length === 0) break;
        for (let i = 0; i < entries.length; i++) visit(this.decode(entries[i]![1]));
        rowCount += entries.length;
      }
    } finally {
      await iterator.close();
    }
    return rowCount;
  }

  /** Sums usage_user over every entry, decoding that one field from each value. */
  async scanUsageUserSum(): Promise<{ rowCount: number; sum: number }> {
    const iterator = this.db.iterator({ highWaterMarkBytes: SCAN_HIGH_WATER_MARK_BYTES });
    let rowCount = 0;
    let sum = 0;
    try {
      for (;;) {
        const entries = await iterator.nextv(SCAN_PAGE_ENTRY_COUNT);
        if (entries.length === 0) break;
        for (let i = 0; i < entries.length; i++) sum += this.usageUser(entries[i]![1]);
        rowCount += entries.length;
      }
    } finally {
      await iterator.close();
    }
    return { rowCount, sum };
  }

  /** Rows of one host with fromMs <= ts < toMs, decoded; calls visit on each. */
  async scanRange(range: { hostIndex: number; fromMs: number; toMs: number },
    visit: (row: Row) => void): Promise<number> {
    const prefix = this.prefixes[range.hostIndex]!;
    const entries = await this.db.iterator({
      gte: keyOf(prefix, range.fromMs), lt: keyOf(prefix, range.toMs),
    }).all();
    for (let i = 0; i < entries.length; i++) visit(this.decode(entries[i]![1]));
    return entries.length;
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  private decode(value: Buffer): Row {
    const reader = new ByteReader(value);
    const row = this.codec.readRows(reader, 1)[0]!;
    reader.expectEnd();
    return row;
  }

  private usageUser(value: Buffer): number {
    // Fast path: ts and usage_user not NULL, so the field sits at a fixed offset.
    if ((value[0]! & 0b11) === 0) return value.readDoubleLE(USAGE_USER_OFFSET_BYTES);
    const usageUser = this.decode(value)[1];
    return typeof usageUser === 'number' ? usageUser : 0;
  }
}

function keyWrite(into: Buffer, offsetBytes: number, prefix: Buffer, timestampMs: number): void {
  assert(Number.isSafeInteger(timestampMs) && timestampMs >= 0);
  prefix.copy(into, offsetBytes);
  const at = offsetBytes + prefix.length;
  const low = timestampMs % TWO_POW_32;
  into.writeUInt32BE((timestampMs - low) / TWO_POW_32, at);
  into.writeUInt32BE(low, at + 4);
}

function keyOf(prefix: Buffer, timestampMs: number): Buffer {
  const key = Buffer.allocUnsafe(prefix.length + TIMESTAMP_SIZE_BYTES);
  keyWrite(key, 0, prefix, timestampMs);
  return key;
}
