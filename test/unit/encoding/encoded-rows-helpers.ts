// Rows in a real RowStore and encoded from its blocks' columns (EncodedRowsBuilder), as a plain
// SELECT * on a node encodes them: for the tests of the row-free encoder and of what pages it.

import { containerId } from '../../../lib/base/ids.ts';
import { BlockSpace } from '../../../lib/block/block-space.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import { EncodedRowsBuilder, type EncodedRows } from '../../../lib/encoding/encoded-rows.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';

/** Small blocks: a few dozen rows span several, so batches and their order are tested. */
const BLOCK_SIZE_BYTES = 4096;

/** The rows in a RowStore of `schema`: its blocks' columns are what the encoder reads. */
export function storeOf(schema: ContainerSchema, rows: readonly Row[]): RowStore {
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const store = new RowStore({
    containerId: containerId(1), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  });
  if (rows.length > 0) store.put(rows);
  return store;
}

export function encodedOf(
  store: RowStore, direction: 'asc' | 'desc', chunkBytesTarget: number,
): EncodedRows {
  const builder = new EncodedRowsBuilder(rowCodec(store.schema, 'wire'), chunkBytesTarget);
  for (const { rowCount, columns } of store.scanBatches({ direction })) {
    for (let n = 0; n < rowCount; n++) {
      builder.add(columns, direction === 'asc' ? n : rowCount - 1 - n);
    }
  }
  return builder.finish();
}
