// The two PUTs of rows, read as their bodies arrive (codec/json-stream.ts) and sent to the node
// in batches of `putBatchSize` body bytes, so that a body takes about one batch of memory however
// large it is (up to `maxRequestBodySize`):
//   PUT /containers/<name>/rows   [[v, ...], ...]                       → rows count
//   PUT /containers/rows          [{containerName, rows: [[v, ...]]}]  → rows per container
// A PUT of several batches is not atomic: each batch is one multiPut, and a bad row, a missing
// container or a failure of the node ends the request with its error while the batches before
// it stay stored (GridDB's web API, which sends one put of every row, is not atomic either: on an
// exception only part may be stored). A body under one batch is one multiPut, as before.
//
// The single-container PUT's rows are held encoded (codec/rows-put-batch.ts) and sent as those
// bytes; most bodies are read by codec/rows-json-scan.ts straight into that encoding, and what
// it does not take by JSON.parse and decodeRow as before, with the same answers.
//
// In the multi-container body a container's rows are decoded once its `containerName` is known;
// rows that come before the name in their object wait for it, which is the one case where a body
// is held whole (still bounded by `maxRequestBodySize`).

import { assert } from '../../base/assert.ts';
import { WEBAPI_MULTI_CONTAINER_COUNT_MAX } from '../../base/limits.ts';
import type { ClientContainer, ClientStore, ContainerInfo } from '../../client/store-factory.ts';
import type { Row } from '../../schema/column-type.ts';
import { normalizeName } from '../../schema/names.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { readJsonArrayStream } from '../codec/json-array-stream.ts';
import { readJsonStream, type ElementKind } from '../codec/json-stream.ts';
import { RowsPutBatch } from '../codec/rows-put-batch.ts';
import { RowsPutScratchPool } from '../codec/rows-put-scratch.ts';
import { rowsJsonScanner } from '../codec/rows-json-scan.ts';
import { decodeRow, ValueDecoder } from '../codec/value-decode.ts';
import { badRequest, containerNotExisted, MESSAGES } from '../errors/webapi-error.ts';
import { unknownMember } from './body-schemas.ts';

/** The body of a streamed route: the request's stream, or undefined when it has none. */
export type StreamedBody = AsyncIterable<Uint8Array> | undefined;

/**
 * Rows of one container's PUT, in batches; the count of rows stored. Its buffers come from
 * `scratchPool` (the server's) and go back to it when the PUT ends, however it ends.
 */
export async function putRowsStreamed(
  body: StreamedBody,
  container: ClientContainer,
  settings: WebApiSettings,
  scratchPool = new RowsPutScratchPool(),
): Promise<number> {
  if (body === undefined) throw badRequest(MESSAGES.rowsDataEmpty);
  const scratch = scratchPool.take();
  try {
    return await putRowsBatched(body, container, settings,
      new RowsPutBatch(container, new ValueDecoder('text'), scratch));
  } finally {
    scratchPool.give(scratch);
  }
}

async function putRowsBatched(
  body: AsyncIterable<Uint8Array>,
  container: ClientContainer,
  settings: WebApiSettings,
  batch: RowsPutBatch,
): Promise<number> {
  const columns = container.info.columns;
  const onRow = (value: unknown) => {
    batch.addDecoded(decodeRow(columns, value, batch.decoder, settings.maxRequestSizeBytes,
      { rowIndex: batch.rowIndex }));
  };
  const flush = () => batch.flush();
  // An array is read by the fast readers; anything else by the general one, which refuses it.
  const scanner = rowsJsonScanner(batch.model.schema, batch);
  const fast = await readJsonArrayStream(body, {
    bodySizeBytesMax: settings.requestJsonBodySizeBytesMax,
    batchSizeBytes: settings.putBatchSizeBytes,
    onElement: onRow,
    onBatch: flush,
    ...(scanner === undefined ? {} : { elements: {
      scan: (data, whole) => scanner.scan(data, whole, settings.maxRequestSizeBytes),
      get takenCount() {
        return batch.rowIndex;
      },
    } }),
  });
  if (fast.read) {
    if (fast.sizeBytes === 0 || (fast.opened && batch.rowIndex === 0)) {
      throw badRequest(MESSAGES.rowsDataEmpty);
    }
    if (!fast.opened) throw badRequest(MESSAGES.parseError);
    await flush();
    return batch.rowIndex;
  }
  const read = await readJsonStream(fast.rest, {
    paths: ['$.*'],
    bodySizeBytesMax: settings.requestJsonBodySizeBytesMax,
    batchSizeBytes: settings.putBatchSizeBytes,
    onValue: ({ value, parent }) => {
      if (!Array.isArray(parent)) throw badRequest(MESSAGES.parseError);
      onRow(value);
    },
    onBatch: flush,
  });
  if (read.sizeBytes === 0 || (read.opening === '[' && batch.rowIndex === 0)) {
    throw badRequest(MESSAGES.rowsDataEmpty);
  }
  if (read.opening !== '[') throw badRequest(MESSAGES.parseError);
  await flush();
  return batch.rowIndex;
}

export interface MultiPutAnswer {
  containerName: string;
  updatedRows: number;
}

interface Item {
  name: string | undefined;
  rowCount: number;
}

/** Rows of several containers, in batches; per container of the body, the rows stored. */
export async function multiPutStreamed(
  body: StreamedBody,
  store: ClientStore,
  settings: WebApiSettings,
): Promise<MultiPutAnswer[]> {
  if (body === undefined) throw badRequest('A list of containers is required');
  const writer = new MultiPutWriter(store, settings);
  const items: Item[] = [];
  const answers: MultiPutAnswer[] = [];
  const itemAt = (index: number): Item => {
    if (index >= WEBAPI_MULTI_CONTAINER_COUNT_MAX) {
      throw badRequest(`More than ${WEBAPI_MULTI_CONTAINER_COUNT_MAX} containers in one request`);
    }
    items[index] ??= { name: undefined, rowCount: 0 };
    return items[index];
  };
  const read = await readJsonStream(body, {
    paths: ['$.*.containerName', '$.*.rows.*'],
    bodySizeBytesMax: settings.requestJsonBodySizeBytesMax,
    batchSizeBytes: settings.putBatchSizeBytes,
    onValue: ({ value, key, parent, stack }) => {
      const index = stack[1]?.key;
      if (typeof index !== 'number') return; // a member of a top-level object: refused below
      const item = itemAt(index);
      if (key === 'containerName') {
        if (value !== null && typeof value !== 'string') throw mappingError(index, 'containerName');
        if (value === null || value.trim() === '') throw badRequest('The container is invalid');
        item.name = value;
        return;
      }
      if (!Array.isArray(parent)) throw mappingError(index, 'rows');
      writer.add(index, item.rowCount, value);
      item.rowCount++;
    },
    onElementEnd: (index, kind: ElementKind) => {
      const item = itemAt(index);
      if (kind !== 'object') throw badRequest(`Mapping JSON data error at object ${index}`);
      if (item.name === undefined) throw badRequest('The container is invalid');
      if (item.rowCount === 0) {
        throw badRequest(`${MESSAGES.rowDataInvalid}: container "${item.name}" has no rows`);
      }
      answers.push({ containerName: item.name, updatedRows: item.rowCount });
    },
    onElementMember: (index, name) => {
      if (!MULTI_PUT_MEMBERS.has(name)) throw unknownMember(index, name, MULTI_PUT_MEMBERS);
    },
    onBatch: () => writer.flush(items),
  });
  if (read.opening !== '[') throw badRequest('Mapping JSON data error at the body (expected array)');
  await writer.flush(items);
  assert(writer.pendingCount === 0);
  return answers;
}

/** Members of an element of the multi-container PUT's body; any other is refused (400). */
const MULTI_PUT_MEMBERS: ReadonlySet<string> = new Set(['containerName', 'rows']);

function mappingError(index: number, field: string) {
  return badRequest(`Mapping JSON data error at object ${index} field '${field}'`);
}

/** Raw rows by item until a batch is sent: decoded then, one multiPut for every container. */
class MultiPutWriter {
  /** `index`: the item of the body; `rowIndex`: the row within its `rows`, from 0. */
  private pending: Array<{ index: number; rowIndex: number; raw: unknown }> = [];
  private readonly infos = new Map<string, ContainerInfo>();
  /** One size budget over every container, as GridDB's maxRequestSize guard. */
  private readonly decoder = new ValueDecoder('json');

  constructor(
    private readonly store: ClientStore,
    private readonly settings: WebApiSettings,
  ) {}

  get pendingCount(): number {
    return this.pending.length;
  }

  add(index: number, rowIndex: number, raw: unknown): void {
    this.pending.push({ index, rowIndex, raw });
  }

  /** Sends the rows whose container is named; the others wait for their name. */
  async flush(items: readonly Item[]): Promise<void> {
    const waiting: typeof this.pending = [];
    const byContainer = new Map<string, Row[]>();
    for (const entry of this.pending) {
      const name = items[entry.index]!.name;
      if (name === undefined) {
        waiting.push(entry);
        continue;
      }
      const info = await this.infoOf(name);
      const row = decodeRow(info.columns, entry.raw, this.decoder,
        this.settings.maxRequestSizeBytes, { rowIndex: entry.rowIndex, containerName: name });
      let rows = byContainer.get(info.name);
      if (rows === undefined) byContainer.set(info.name, rows = []);
      rows.push(row as Row);
    }
    this.pending = waiting;
    if (byContainer.size > 0) await this.store.multiPut(byContainer);
  }

  private async infoOf(name: string): Promise<ContainerInfo> {
    const key = normalizeName(name);
    const known = this.infos.get(key);
    if (known !== undefined) return known;
    const info = await this.store.getContainerInfo(name);
    if (info === undefined) throw containerNotExisted(name);
    this.infos.set(key, info);
    return info;
  }
}
