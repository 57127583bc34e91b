// Rows of one container (spec/surface.md §1.6.6–1.6.8):
//   POST   /containers/<name>/rows  {limit, offset, condition, sort}   read a page
//   PUT    /containers/<name>/rows  [[v, v, ...], ...]                 upsert: {"count": n}
//   DELETE /containers/<name>/rows  [key, key, ...]                    remove by key: 204
// The PUT reads the body's numbers and strings as text (codec/value-decode.ts 'text' mode) as the
// body arrives, and sends the rows in batches (rows-put.ts). The DELETE ignores keys that do not convert or do not exist,
// as GridDB's; any other failure (a row locked past the transaction timeout, the node
// unreachable) is the caller's answer, and the keys before it stay removed.

import { columnJson } from '../codec/column-json.ts';
import { ValueDecoder } from '../codec/value-decode.ts';
import { ValueEncoder } from '../codec/value-encode.ts';
import { badRequest } from '../errors/webapi-error.ts';
import {
  containerNameCheck, requestContext, type WebApiDependencies,
} from '../http/request-context.ts';
import { sendEmpty, sendJson, sendJsonText } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import { KeysBody, RowsQueryBody } from './body-schemas.ts';
import {
  containerOr404, queryRowsPage, responseSizeCheck, rowsRequestOf,
} from './rows-query.ts';
import type { RowKey } from '../../schema/column-type.ts';
import { putRowsStreamed, type StreamedBody } from './rows-put.ts';

interface ContainerParams {
  container: string;
}

export function rowRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('POST', '/containers/:container/rows', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as ContainerParams).container);
    const rowsRequest = rowsRequestOf(request.body as RowsQueryBody | undefined);
    const page = await context.use(async (store) =>
      queryRowsPage(await containerOr404(store, name), rowsRequest, context.settings));
    const encoder = new ValueEncoder(context.settings.timeZone);
    const rowsText = encoder.rows(page.columns, page.rows);
    responseSizeCheck(encoder.sizeBytes, context.settings.maxResponseSizeBytes);
    return sendJsonText(reply, 200, `{"columns":${JSON.stringify(page.columns.map((c) =>
      columnJson(c)))},"rows":${rowsText},"offset":${page.offset},"limit":${page.limit},` +
      `"total":${page.total}}`);
  }, { body: RowsQueryBody });

  table.add('PUT', '/containers/:container/rows', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as ContainerParams).container);
    const count = await context.use(async (store) => putRowsStreamed(
      request.body as StreamedBody, await containerOr404(store, name), context.settings,
      dependencies.rowsPutScratch));
    return sendJson(reply, 200, { count });
  }, undefined, { streamBody: true });

  table.add('DELETE', '/containers/:container/rows', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as ContainerParams).container);
    const keys = request.body as unknown[] | undefined;
    if (!Array.isArray(keys)) throw badRequest('Row keys are required');
    await context.use(async (store) => {
      const container = await containerOr404(store, name);
      const info = container.info;
      if (info.rowKeyColumnCount === 0) throw badRequest('Row key does not exist');
      const keyColumn = info.columns[0]!;
      for (const raw of keys) {
        // No row has a null key: like a key that does not convert, it names no row.
        if (raw === null) continue;
        let key: RowKey;
        try {
          key = new ValueDecoder('json').value(keyColumn, raw) as RowKey;
        } catch {
          continue;
        }
        // A key with no row is not an error (remove says false); any failure of the node is.
        await container.remove(key);
      }
    });
    return sendEmpty(reply, 204);
  }, { body: KeysBody });
}
