// The containers of a database (spec/surface.md §1.6.2–1.6.5):
//   GET    /containers?limit=&offset=&type=&sort=   names, paged; `total` before paging
//   POST   /containers                              create: 201, or 409 if the name is taken
//   DELETE /containers  ["a","b"]                   drop each; names that do not exist are
//                                                   ignored (204 either way); a failure of
//                                                   the node is the answer (names before it
//                                                   stay dropped)
//   GET    /containers/<name>/info                  the schema, or 404

import { Buffer } from 'node:buffer';
import { isStorageError } from '../../base/errors.ts';
import { TIME_PRECISIONS } from '../../schema/column-type.ts';
import type { ContainerDefinition } from '../../schema/container-schema.ts';
import type { ContainerInfo } from '../../client/store-factory.ts';
import { columnJson, parseGsTypeName } from '../codec/column-json.ts';
import { badRequest, containerNotExisted, MESSAGES, WebApiError } from '../errors/webapi-error.ts';
import {
  containerNameCheck, requestContext, type WebApiDependencies,
} from '../http/request-context.ts';
import { sendEmpty, sendJson } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import { CreateContainerBody, DeleteContainersBody } from './body-schemas.ts';
import { queryChoice, queryInteger } from './query-parameters.ts';

const CONTAINER_TYPES = ['COLLECTION', 'TIME_SERIES'] as const;
/** Characters of a refused name quoted in a message, at most. */
const NAME_QUOTED_LENGTH_MAX = 100;
const INDEX_TYPES = ['TREE', 'SPATIAL'];

export function containerRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('GET', '/containers', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const limit = queryInteger(request.query, 'limit');
    if (limit === undefined) throw badRequest("'limit' is required");
    if (limit < 0) throw badRequest("'limit' is invalid");
    const offset = queryInteger(request.query, 'offset') ?? 0;
    if (offset < 0) throw badRequest("'offset' is invalid");
    const type = queryChoice(request.query, 'type', CONTAINER_TYPES);
    const sort = queryChoice(request.query, 'sort', ['ASC', 'DESC'] as const);
    const names = await context.use(async (store) => {
      const all = await store.getContainerNames();
      if (type === undefined) return all;
      const typed: string[] = [];
      for (const name of all) {
        if ((await store.getContainerInfo(name))?.type === type) typed.push(name);
      }
      return typed;
    });
    names.sort(codeUnitOrder);
    if (sort === 'DESC') names.reverse();
    const page = names.slice(offset, offset + limit);
    const sizeBytes = page.reduce((sum, name) => sum + Buffer.byteLength(name, 'utf8'), 0);
    if (sizeBytes > context.settings.maxResponseSizeBytes) {
      throw badRequest("Response size is too large. Please try to use 'limit' option.");
    }
    return sendJson(reply, 200, {
      names: page, total: names.length, offset, limit: Math.min(limit, context.settings.maxLimit),
    });
  });

  table.add('POST', '/containers', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const definition = definitionOf(request.body as CreateContainerBody | undefined);
    await context.use(async (store) => {
      if (await store.getContainerInfo(definition.name) !== undefined) {
        throw new WebApiError(409, MESSAGES.containerExisted);
      }
      await store.putContainer(definition);
    });
    return sendEmpty(reply, 201);
  }, { body: CreateContainerBody });

  table.add('DELETE', '/containers', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const names = request.body as Array<string | null> | undefined;
    if (!Array.isArray(names)) throw badRequest('Container names are required');
    await context.use(async (store) => {
      for (const name of names) {
        if (typeof name !== 'string' || name === '') continue;
        // A name with no container is false, not an error (nor is a name no container can
        // have); a failure of the node is one.
        await store.dropContainer(name).catch((error: unknown) => {
          if (!isStorageError(error, 'INVALID_NAME')) throw error;
        });
      }
    });
    return sendEmpty(reply, 204);
  }, { body: DeleteContainersBody });

  table.add('GET', '/containers/:container/info', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as { container: string }).container);
    const info = await context.use((store) => store.getContainerInfo(name));
    if (info === undefined) throw containerNotExisted(name);
    return sendJson(reply, 200, containerInfoJson(info));
  });
}

function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function containerInfoJson(info: ContainerInfo) {
  if (info.rowKeyColumnCount > 1) {
    throw badRequest('Containers with a composite row key are not supported by the web API');
  }
  return {
    container_name: info.name,
    container_type: info.type,
    rowkey: info.rowKeyColumnCount === 1,
    columns: info.columns.map((column, i) => {
      const index = new Set<string>();
      if (i === 0 && info.rowKeyColumnCount === 1) index.add('TREE');
      for (const entry of info.indexes) {
        if (entry.columnIndexes.length === 1 && entry.columnIndexes[0] === i) index.add(entry.type);
      }
      return columnJson(column, [...index]);
    }),
  };
}

/** The body of POST /containers as a client definition; the spec's 400s for what is missing. */
function definitionOf(body: CreateContainerBody | undefined): ContainerDefinition {
  if (body === undefined || body === null) throw badRequest('Container information is required');
  const name = containerNameCheck(body.container_name);
  const type = body.container_type;
  if (type === undefined || type === null) throw badRequest("'container_type' is required");
  if (!CONTAINER_TYPES.includes(type as (typeof CONTAINER_TYPES)[number])) {
    throw badRequest("Mapping JSON data error at field 'container_type': " +
      `'${type.slice(0, NAME_QUOTED_LENGTH_MAX)}' is not one of ${CONTAINER_TYPES.join(', ')}`);
  }
  const columns = body.columns;
  if (columns === undefined || columns === null || columns.length === 0) {
    throw badRequest("'columns' is required");
  }
  const rowKey = body.rowkey === true;
  const indexes: NonNullable<ContainerDefinition['indexes']> = [];
  const definitionColumns = columns.map((column, i) => {
    if (typeof column.name !== 'string' || column.name === '') {
      throw badRequest(`Column name is invalid at column ${i}`);
    }
    if (column.type === undefined || column.type === null) throw badRequest('Empty column type');
    const parsed = parseGsTypeName(column.type);
    if (parsed === undefined) {
      throw badRequest(`Mapping JSON data error at object ${i} field 'type'`);
    }
    for (const indexType of column.index ?? []) {
      if (!INDEX_TYPES.includes(indexType)) {
        throw badRequest(`Mapping JSON data error at object ${i} field 'index'`);
      }
      // The row key's TREE index is implicit.
      if (!(rowKey && i === 0 && indexType === 'TREE')) {
        indexes.push({ columnNames: [column.name], type: indexType });
      }
    }
    const precision = column.timePrecision;
    if (precision !== undefined && precision !== null &&
      !TIME_PRECISIONS.includes(precision as (typeof TIME_PRECISIONS)[number])) {
      throw badRequest(`Mapping JSON data error at object ${i} field 'timePrecision'`);
    }
    const honoured = parsed.type === 'TIMESTAMP' && !parsed.array && typeof precision === 'string';
    return {
      name: column.name, type: parsed.type, array: parsed.array,
      ...(honoured ? { timePrecision: precision } : {}),
    };
  });
  return {
    name, type: type as (typeof CONTAINER_TYPES)[number], rowKey, columns: definitionColumns,
    ...(indexes.length === 0 ? {} : { indexes }),
  };
}
