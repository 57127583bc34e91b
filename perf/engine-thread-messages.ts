// What the engine/thread workload sends to a Store, whether the Store runs in the calling thread or
// in a worker thread: plain data, as DESIGN.md's partition groups would receive it from the
// network thread. Rows travel as the bytes of the row codec (lib/encoding/row-codec.ts draws the
// layout: a null bitmap, then each value) of the TSBS schema, in an ArrayBuffer that is
// transferred to the worker, not copied. Each request has an id; the reply carries it back, so
// many requests can be in flight at once and complete in any order.
//
//   request  { id, kind: 'open', home, options, containerNames }   Store.open + one container each
//            { id, kind: 'put', containerIndex, rowCount, bytes }   decode, put (1 row) or multiPut
//            { id, kind: 'count', containerIndex }                   the container's row count
//            { id, kind: 'logSyncCount' }                            xlog fdatasyncs so far
//            { id, kind: 'close' }                                   Store.close
//   reply    { id, value?, error? }      value: a count's answer; error: the message, if it failed

import { ByteReader } from '../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../lib/encoding/byte-writer.ts';
import { rowCodec, type RowCodec } from '../lib/encoding/row-codec.ts';
import { blockSizeLimits } from '../lib/base/limits.ts';
import type { StorageOptions } from '../lib/base/options.ts';
import type { Row } from '../lib/schema/column-type.ts';
import { validateContainerDefinition } from '../lib/schema/schema-validate.ts';
import { tsbsContainerDefinition } from './tsbs.ts';

export type EngineRequest =
  | {
    id: number; kind: 'open'; home: string; options: Partial<StorageOptions>;
    containerNames: string[];
  }
  | { id: number; kind: 'put'; containerIndex: number; rowCount: number; bytes: ArrayBuffer }
  | { id: number; kind: 'count'; containerIndex: number }
  | { id: number; kind: 'logSyncCount' }
  | { id: number; kind: 'close' };

export interface EngineReply {
  id: number;
  value?: number;
  error?: string;
}

/** Every TSBS container has the same columns, so one codec reads and writes the rows of all. */
function tsbsRowCodec(): RowCodec {
  const schema = validateContainerDefinition(tsbsContainerDefinition('cpu'),
    blockSizeLimits(64 * 1024));
  return rowCodec(schema, 'storage');
}

export class TsbsRowBytes {
  private readonly codec = tsbsRowCodec();
  private readonly writer = new ByteWriter(64 * 1024);

  /** The rows' bytes in an ArrayBuffer of their own (one that can be transferred). */
  encode(rows: readonly Row[]): ArrayBuffer {
    this.writer.reset();
    this.codec.writeRows(this.writer, rows);
    return this.writer.finish().slice().buffer;
  }

  decode(bytes: ArrayBuffer, rowCount: number): Row[] {
    const reader = new ByteReader(new Uint8Array(bytes));
    const rows = this.codec.readRows(reader, rowCount);
    reader.expectEnd();
    return rows;
  }
}
