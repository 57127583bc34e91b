// Helpers for the compaction tests: a durable data directory on a SimFileSystem, block images
// (a real row block of sensor readings, and incompressible noise), and cplog files written
// through CplogWriter.

import { blockId, containerId, generation, lsn, partitionId, type BlockId, type Generation } from
  '../../../lib/base/ids.ts';
import { BLOCK_KIND_ROW, encodeRowBlock } from '../../../lib/block/block-format.ts';
import { blockLayout } from '../../../lib/block/row-block-layout.ts';
import { RowBlock } from '../../../lib/block/row-block.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { BlockCodec, type CplogEntry } from '../../../compaction/cplog-format.ts';
import { CplogWriter } from '../../../compaction/cplog-writer.ts';
import { Prng } from '../../sim/prng.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

export const DATA_ROOT = '/data';
export const P5 = partitionId(5);
export const BLOCK_SIZE_BYTES = 64 * 1024;

/** A SimFileSystem with a durable, empty data directory. */
export async function newSimData(seed = 1): Promise<SimFileSystem> {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(DATA_ROOT);
  await fileSystem.syncDirectory('/');
  return fileSystem;
}

const SENSOR_SCHEMA: ContainerSchema = {
  name: 'sensor_1', type: 'TIME_SERIES', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' },
    { name: 'celsius', type: 'DOUBLE', array: false, notNull: false },
    { name: 'status', type: 'INTEGER', array: false, notNull: false },
  ],
};

/**
 * The image of a full row block of a sensor's readings, one a second: temperatures to a tenth of
 * a degree, a status that is nearly always 0. What a time-series checkpoint mostly writes.
 */
export function sensorBlockImage(seed: number, blockSizeBytes = BLOCK_SIZE_BYTES): Uint8Array {
  const prng = new Prng(seed);
  const layout = blockLayout(SENSOR_SCHEMA);
  const block = new RowBlock({ layout, containerId: containerId(9), blockSizeBytes });
  const count = block.appendCountFit({ from: 0, to: 1_000_000 }, undefined);
  const rows: Row[] = [];
  let celsius = 200;
  for (let i = 0; i < count; i++) {
    celsius += prng.nextIntBetween({ min: -1, max: 1 });
    const status = prng.nextIndex(100) === 0 ? 1 : 0;
    rows.push([1_700_000_000_000 + (seed * count + i) * 1000, celsius / 10, status]);
  }
  block.appendRows(rows, { from: 0, to: count }, { payloadBytes: 0 });
  block.blockId = blockId(seed);
  return encodeRowBlock(block);
}

/** Noise: snappy cannot shrink it. */
export function randomImage(seed: number, blockSizeBytes = BLOCK_SIZE_BYTES): Uint8Array {
  const prng = new Prng(seed);
  const image = new Uint8Array(blockSizeBytes);
  const words = new Uint32Array(image.buffer);
  for (let i = 0; i < words.length; i++) words[i] = prng.nextUint32();
  return image;
}

/** A BLOCK entry with made-up storage details, enough for map tests. */
export function blockEntry(id: number, slot: number): CplogEntry {
  return {
    type: 'BLOCK', blockId: blockId(id), slot, storedSizeBytes: BLOCK_SIZE_BYTES,
    codec: BlockCodec.RAW, checksum: (id * 2654435761) >>> 0, kind: BLOCK_KIND_ROW,
  };
}

export function freeEntry(id: number): CplogEntry {
  return { type: 'FREE', blockId: blockId(id) };
}

/** Writes a complete cplog of generation `g` of partition P5; returns its path. */
export async function writeCplog(
  fileSystem: FileSystem,
  options: { generation: number; checkpointLsn: bigint; entries: readonly CplogEntry[] },
): Promise<string> {
  const writer = await CplogWriter.create({
    fileSystem, dataRoot: DATA_ROOT, partitionId: P5, generation: generation(options.generation),
    blockSizeBytes: BLOCK_SIZE_BYTES, checkpointLsn: lsn(options.checkpointLsn),
    writeBufferBytes: 64,
  });
  for (const entry of options.entries) writer.append(entry);
  await writer.finish();
  return writer.path;
}

export function generations(...numbers: number[]): Generation[] {
  return numbers.map(generation);
}

export function blockIds(...numbers: number[]): BlockId[] {
  return numbers.map(blockId);
}
