// A container for the row PUT's tests (rows-put.test.ts, rows-json-scan.test.ts): the client's
// real model of a schema (validator, row codec), and what is sent recorded as batches of
// canonical rows, decoded from the bytes the PUT encoded as the node would decode them.

import type { ClientContainer, EncodedRowsPut } from '../../../lib/client/client-container.ts';
import { containerModel } from '../../../lib/client/client-schema.ts';
import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import type { ContainerInfo } from '../../../lib/protocol/wire-schema.ts';

export interface SentBatch {
  rows: Row[];
  /** What `read()` said when the batch was sent. */
  bodyReadBytes: number;
}

export function fakeRowsContainer(
  columns: ColumnSchema[],
  rowKeyColumnCount: number,
  read: () => number = () => 0,
): { container: ClientContainer; batches: SentBatch[]; info: ContainerInfo } {
  const info: ContainerInfo = {
    name: 'fake', type: rowKeyColumnCount > 0 && columns[0]!.type === 'TIMESTAMP'
      ? 'TIME_SERIES' : 'COLLECTION',
    columns, rowKeyColumnCount, dataAffinity: undefined, indexes: [], schemaVersion: 1,
    partitionId: 0, containerId: 1, rowCount: 0, blockCount: 0,
  };
  const model = containerModel(info, { partitionNum: 128, storeBlockSizeBytes: 64 * 1024 });
  const batches: SentBatch[] = [];
  const container = {
    info,
    rowModel: model,
    multiPut: async (rows: Row[]) => {
      batches.push({ rows: model.rows(rows), bodyReadBytes: read() });
    },
    multiPutEncodedRows: async (put: EncodedRowsPut) => {
      const reader = new ByteReader(put.bytes);
      const rows = rowCodec(put.schema, 'wire').readRows(reader, put.count);
      reader.expectEnd();
      batches.push({ rows, bodyReadBytes: read() });
    },
  } as unknown as ClientContainer;
  return { container, batches, info };
}
