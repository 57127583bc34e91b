// The row read of POST /containers/<name>/rows (and of its BLOB variant): GridDB's web API
// writes the request as TQL,
//   select *[ where <condition>][ order by <sort>] limit <min(limit, maxLimit)>[ offset <offset>]
// and counts `total` with `select count(*)[ where <condition>]` (spec/surface.md §1.6.7). The
// condition and sort are TQL text and are checked by the node's TQL parser (400 when bad).

import type { ClientContainer, ClientStore } from '../../client/store-factory.ts';
import type { Row } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { badRequest, containerNotExisted, MESSAGES } from '../errors/webapi-error.ts';
import { characterCheck } from '../http/request-context.ts';
import type { RowsQueryBody } from './body-schemas.ts';

export interface RowsPage {
  columns: readonly ColumnSchema[];
  rows: Row[];
  offset: number;
  limit: number;
  total: number;
}

export interface RowsRequest {
  limit: number;
  offset: number;
  condition: string | undefined;
  sort: string | undefined;
}

/** The request's members, or the spec's 400s. */
export function rowsRequestOf(body: RowsQueryBody | undefined): RowsRequest {
  const limit = body?.limit;
  if (limit === undefined || limit === null || limit < 1) throw badRequest("'limit' is invalid");
  const offset = body?.offset ?? 0;
  if (offset < 0) throw badRequest("'offset' is invalid");
  const condition = nonBlank(body?.condition);
  const sort = nonBlank(body?.sort);
  if (condition !== undefined) characterCheck(condition);
  if (sort !== undefined) characterCheck(sort);
  return { limit, offset, condition, sort };
}

export async function containerOr404(store: ClientStore, name: string): Promise<ClientContainer> {
  const container = await store.getContainer(name);
  if (container === undefined) throw containerNotExisted(name);
  return container;
}

export async function queryRowsPage(
  container: ClientContainer,
  request: RowsRequest,
  settings: WebApiSettings,
): Promise<RowsPage> {
  const limit = Math.min(request.limit, settings.maxLimit);
  const where = request.condition === undefined ? '' : ` where ${request.condition}`;
  const order = request.sort === undefined ? '' : ` order by ${request.sort}`;
  const offset = request.offset > 0 ? ` offset ${request.offset}` : '';
  const rowSet = await container.query(`select *${where}${order} limit ${limit}${offset}`)
    .fetch();
  const rows = await rowSet.toArray();
  const counted = await (await container.query(`select count(*)${where}`).fetch())
    .aggregationValue();
  return {
    columns: rowSet.columns, rows, offset: request.offset, limit, total: Number(counted ?? 0),
  };
}

function nonBlank(text: string | null | undefined): string | undefined {
  return text === undefined || text === null || text.trim() === '' ? undefined : text;
}

/** 400 `Too many result` when an answer's estimated size passes the limit. */
export function responseSizeCheck(sizeBytes: number, sizeBytesMax: number): void {
  if (sizeBytes > sizeBytesMax) throw badRequest(MESSAGES.tooManyResult);
}
