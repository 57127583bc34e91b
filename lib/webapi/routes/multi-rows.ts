// Rows of several containers in one request (spec/surface.md §1.6.11–1.6.12):
//   POST /containers/rows  [{name, keyValues | startKeyValue/finishKeyValue, offset, limit}]
//        one multiGet for every container; paging in the web API; `total` = rows matched
//   PUT  /containers/rows  [{containerName, rows}]
//        read as it arrives, multiPuts of every container in batches (rows-put.ts):
//        [{containerName, updatedRows}]
// Answers follow the order of the request (GridDB's follow a hash map's). A container named
// twice is read (or written) once per mention.

import { WEBAPI_MULTI_CONTAINER_COUNT_MAX } from '../../base/limits.ts';
import type { ClientStore, RowKeyPredicate } from '../../client/store-factory.ts';
import { normalizeName } from '../../schema/names.ts';
import type { Row, RowKey } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { ContainerInfo } from '../../client/store-factory.ts';
import { columnJson } from '../codec/column-json.ts';
import { ValueDecoder } from '../codec/value-decode.ts';
import { ValueEncoder } from '../codec/value-encode.ts';
import { badRequest, containerNotExisted } from '../errors/webapi-error.ts';
import { requestContext, type WebApiDependencies } from '../http/request-context.ts';
import { sendJson, sendJsonText } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { MultiGetBody } from './body-schemas.ts';
import { multiPutStreamed, type StreamedBody } from './rows-put.ts';
import { responseSizeCheck } from './rows-query.ts';

/** Rows per container when the request gives no limit (GridDB's). */
const MULTI_GET_LIMIT_DEFAULT = 10_000;

interface GetEntry {
  name: string;
  predicate: RowKeyPredicate | undefined;
  offset: number;
  limit: number;
}

export function multiRowRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('POST', '/containers/rows', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const body = listOf(request.body as MultiGetBody | undefined);
    const entries = body.map((item): Omit<GetEntry, 'predicate'> & { item: typeof item } => {
      if (typeof item.name !== 'string' || item.name.trim() === '') {
        throw badRequest('The container is invalid');
      }
      const offset = item.offset ?? 0;
      if (offset < 0) throw badRequest('The offset is invalid');
      const limit = item.limit ?? MULTI_GET_LIMIT_DEFAULT;
      if (limit < 0) throw badRequest('The limit is invalid');
      return { name: item.name, offset, limit: Math.min(limit, context.settings.maxLimit), item };
    });
    const text = await context.use(async (store) => {
      const infos = await infosOf(store, entries.map((entry) => entry.name));
      const gets: GetEntry[] = entries.map((entry, i) => ({
        ...entry, predicate: predicateOf(infos[i]!, entry.item),
      }));
      const results = await readAll(store, gets);
      return multiGetText(gets, infos, results, context.settings);
    });
    return sendJsonText(reply, 200, text);
  }, { body: MultiGetBody });

  table.add('PUT', '/containers/rows', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const answer = await context.use((store) =>
      multiPutStreamed(request.body as StreamedBody, store, context.settings));
    return sendJson(reply, 200, answer);
  }, undefined, { streamBody: true });
}

function listOf<T>(body: T[] | undefined): T[] {
  if (!Array.isArray(body)) throw badRequest('A list of containers is required');
  if (body.length > WEBAPI_MULTI_CONTAINER_COUNT_MAX) {
    throw badRequest(`More than ${WEBAPI_MULTI_CONTAINER_COUNT_MAX} containers in one request`);
  }
  return body;
}

/** The info of each name, in order; 404 for the first that does not exist. */
async function infosOf(store: ClientStore, names: readonly string[]): Promise<ContainerInfo[]> {
  const known = new Map<string, ContainerInfo>();
  const infos: ContainerInfo[] = [];
  for (const name of names) {
    const key = normalizeName(name);
    const info = known.get(key) ?? await store.getContainerInfo(name);
    if (info === undefined) throw containerNotExisted(name);
    known.set(key, info);
    infos.push(info);
  }
  return infos;
}

/** The client's predicate for an entry; undefined for a container without a row key. */
function predicateOf(info: ContainerInfo, item: MultiGetBody[number]):
  RowKeyPredicate | undefined {
  if (info.rowKeyColumnCount !== 1) return undefined;
  const keyColumn = info.columns[0]!;
  const key = (raw: unknown): RowKey => new ValueDecoder('json').value(keyColumn, raw) as RowKey;
  if (item.keyValues !== undefined && item.keyValues !== null) {
    return { keys: item.keyValues.map(key) };
  }
  const predicate: { start?: RowKey; finish?: RowKey } = {};
  if (item.startKeyValue !== undefined && item.startKeyValue !== null) {
    predicate.start = key(item.startKeyValue);
  }
  if (item.finishKeyValue !== undefined && item.finishKeyValue !== null) {
    predicate.finish = key(item.finishKeyValue);
  }
  return predicate;
}

/** Every matching row of every entry: multiGet in rounds of distinct names, TQL for keyless. */
async function readAll(store: ClientStore, entries: readonly GetEntry[]): Promise<Row[][]> {
  const results: Row[][] = new Array<Row[]>(entries.length);
  let pending = entries.map((_, i) => i);
  while (pending.length > 0) {
    const round = new Map<string, number>();
    const later: number[] = [];
    for (const i of pending) {
      const entry = entries[i]!;
      if (entry.predicate === undefined) {
        results[i] = await readKeyless(store, entry.name);
        continue;
      }
      const key = normalizeName(entry.name);
      if (round.has(key)) later.push(i);
      else round.set(key, i);
    }
    if (round.size > 0) {
      const indexes = [...round.values()];
      const got = await store.multiGet(new Map(indexes.map((i) =>
        [entries[i]!.name, entries[i]!.predicate!])));
      for (const i of indexes) results[i] = got.get(entries[i]!.name) ?? [];
    }
    pending = later;
  }
  return results;
}

async function readKeyless(store: ClientStore, name: string): Promise<Row[]> {
  const container = await store.getContainer(name);
  if (container === undefined) throw containerNotExisted(name);
  return (await container.query('select *').fetch()).toArray();
}

function multiGetText(
  entries: readonly GetEntry[],
  infos: readonly ContainerInfo[],
  results: readonly Row[][],
  settings: WebApiSettings,
): string {
  let totalSizeBytes = 0;
  const parts = entries.map((entry, i) => {
    const columns: readonly ColumnSchema[] = infos[i]!.columns;
    const matched = results[i]!;
    const page = matched.slice(entry.offset, entry.offset + entry.limit);
    const encoder = new ValueEncoder(settings.timeZone);
    const rowsText = encoder.rows(columns, page);
    responseSizeCheck(encoder.sizeBytes, settings.maxResponseSizeBytes);
    totalSizeBytes += encoder.sizeBytes;
    responseSizeCheck(totalSizeBytes, settings.maxTotalResponseSizeBytes);
    return `{"container":${JSON.stringify(infos[i]!.name)},"columns":` +
      `${JSON.stringify(columns.map((c) => columnJson(c)))},"results":${rowsText},` +
      `"offset":${entry.offset},"limit":${entry.limit},"total":${matched.length}}`;
  });
  return `[${parts.join(',')}]`;
}
