// GridDB's CREATE_INDEX_DETAIL (162: gsCreateIndex, gsCreateIndexDetail) and DROP_INDEX_DETAIL
// (163: gsDropIndex, gsDropIndexDetail), run as store's CREATE_INDEX and DROP_INDEX (an existing
// index and a selector that names none are no errors, as in GridDB). Bodies after the statement
// id (the C client's GSContainerTag::createOrDropIndex, GSGridStoreTag::exportIndexInfo):
//
//   | containerId i64 | schemaVersion i32 | optional request (with the client id) |
//   | infoBytes i32 | name str ("" for none) | columnCount i32 | columnId i32 × count |
//   |   type i8 (0 TREE, 1 HASH, 2 SPATIAL, -1 the default) |
//   | anyName i8 | anyType i8 |   (DROP_INDEX_DETAIL only: the name, the type select any)
//   reply empty
//
// (The client's DDL-session form, with a session id and UUID after the container id, is not what
// the 5.8 client sends at v15: it sends none, checked against it.) Column ids become store's
// column names; the index definition or selector goes to the engine
// as store's own JSON, so its checks and errors are store's (HASH, which store does not have, is
// refused there).

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { CREATE_INDEX, DROP_INDEX } from '../../protocol/messages-index.ts';
import { GriddbFrameError, griddbDecode, griddbStringRead } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import {
  containerOf, griddbContainerIdRead, type RowStatementContext,
} from './griddb-row-statements.ts';
import { GriddbStatement } from './griddb-statements.ts';

const INDEX_TYPES = ['TREE', 'HASH', 'SPATIAL'] as const;
const INDEX_TYPE_DEFAULT = -1;
/** Columns one index may name here (store's own limit is lower and says so). */
const INDEX_COLUMNS_MAX = 1024;

interface IndexStatement {
  containerId: number;
  schemaVersion: number;
  name: string;
  columnIds: number[];
  type: number;
  anyName: boolean;
  anyType: boolean;
}

export function indexStatementDecode(type: number, body: Uint8Array): IndexStatement {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const containerId = griddbContainerIdRead(reader);
    const schemaVersion = reader.i32();
    griddbOptionalRequestSkip(reader);
    const infoBytes = reader.i32();
    if (infoBytes < 0 || infoBytes > reader.remainingBytes) {
      throw new GriddbFrameError(`index info of ${infoBytes} bytes runs past the body`);
    }
    const info = new ByteReader(reader.bytes(infoBytes));
    const name = griddbStringRead(info, 'index name');
    const count = info.i32();
    if (count < 0 || count > INDEX_COLUMNS_MAX) {
      throw new GriddbFrameError(`index column count ${count} is outside 0..${INDEX_COLUMNS_MAX}`);
    }
    const columnIds: number[] = [];
    for (let i = 0; i < count; i++) columnIds.push(info.i32());
    const indexType = info.i8();
    info.expectEnd();
    if (indexType !== INDEX_TYPE_DEFAULT && INDEX_TYPES[indexType] === undefined) {
      throw new GriddbFrameError(`index type ${indexType} is not GridDB's`);
    }
    const drop = type === GriddbStatement.DROP_INDEX_DETAIL;
    const anyName = drop ? reader.i8() !== 0 : false;
    const anyType = drop ? reader.i8() !== 0 : false;
    reader.expectEnd();
    return { containerId, schemaVersion, name, columnIds, type: indexType, anyName, anyType };
  });
}

/** CREATE_INDEX_DETAIL and DROP_INDEX_DETAIL. */
export async function indexStatementRun(context: RowStatementContext, type: number,
  body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const statement = indexStatementDecode(type, body);
  const { schema, ref } = await containerOf(context, statement);
  const columnNames = statement.columnIds.map((id) => {
    const column = schema.columns[id];
    if (column === undefined) throw new GriddbFrameError(`column ${id} does not exist`);
    return column.name;
  });
  const indexType = statement.type === INDEX_TYPE_DEFAULT ? undefined
    : INDEX_TYPES[statement.type];
  const json = JSON.stringify({
    ...(columnNames.length > 0 ? { columnNames } : {}),
    ...(indexType !== undefined && !statement.anyType ? { type: indexType } : {}),
    ...(statement.name !== '' && !statement.anyName ? { name: statement.name } : {}),
  });
  const request = { statement: context.sessions.statement(undefined, 0),
    ref: { partitionId: ref.partitionId, name: ref.name }, json };
  if (type === GriddbStatement.CREATE_INDEX_DETAIL) {
    await context.engine.call(CREATE_INDEX, request);
  } else {
    await context.engine.call(DROP_INDEX, request);
  }
  return () => undefined;
}
