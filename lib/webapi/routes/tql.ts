// POST /tql: one to `maxQueryNum` TQL statements, each on its container (spec/surface.md
// §1.6.13). As GridDB's web API: line breaks become spaces; a statement without a trailing
// `LIMIT n [OFFSET m]` gets ` limit <maxLimit>`, and a larger LIMIT is lowered to maxLimit;
// `total` is a derived `select count(*)` for `select *` statements (ORDER BY, LIMIT and OFFSET
// removed), 1 for aggregates, -1 for the rest (TIME_SAMPLING, ...). An aggregate answers one
// column `aggregationResult`, numeric results as DOUBLE, MAX/MIN of a TIMESTAMP as TIMESTAMP.

import { Buffer } from 'node:buffer';
import { isStorageError } from '../../base/errors.ts';
import { WEBAPI_TQL_STATEMENTS_IN_FLIGHT_MAX } from '../../base/limits.ts';
import type { ClientStore, RowSet } from '../../client/store-factory.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { Row, Value } from '../../schema/column-type.ts';
import { doubleText } from '../../io/double-text.ts';
import { columnJson } from '../codec/column-json.ts';
import { rowsWireJson, rowsWireJsonFits, type WirePage } from '../codec/rows-wire-json.ts';
import { ValueEncoder } from '../codec/value-encode.ts';
import { badRequest, containerNotExisted } from '../errors/webapi-error.ts';
import {
  characterCheck, requestContext, type WebApiDependencies,
} from '../http/request-context.ts';
import { sendJsonText } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { TqlBody } from './body-schemas.ts';
import { responseSizeCheck } from './rows-query.ts';

const TRAILING_LIMIT = /\s+limit\s+(\d+)(?:\s+offset\s+(\d+))?\s*$/i;
const ORDER_BY = /\s+order\s+by\s+[\s\S]*$/i;
const SELECT_ALL = /^\s*select\s+\*/i;
const AGGREGATE = /^\s*select\s+(MAX|MIN|COUNT|SUM|AVG|VARIANCE|STDDEV|TIME_AVG)\s*\(/i;

interface TqlItem {
  name: string;
  stmt: string;
  columns: string[] | undefined;
  partialExecution: boolean;
}

export function tqlRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('POST', '/tql', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const items = tqlItemsOf(request.body as TqlBody | undefined, context.settings);
    const text = await context.use(async (store) => {
      const parts: Array<string | Buffer> = [];
      let totalSizeBytes = 0;
      // The statements of a window go to the node together, so their round trips overlap; their
      // answers are taken in request order, so the first failure (or the size limit) is the answer,
      // as when they ran one after another.
      for (let from = 0; from < items.length; from += WEBAPI_TQL_STATEMENTS_IN_FLIGHT_MAX) {
        const window = items.slice(from, from + WEBAPI_TQL_STATEMENTS_IN_FLIGHT_MAX);
        const settled = await Promise.allSettled(window.map((item) =>
          runTql(store, item, context.settings)));
        for (const outcome of settled) {
          if (outcome.status === 'rejected') throw outcome.reason;
          totalSizeBytes += outcome.value.sizeBytes;
          responseSizeCheck(totalSizeBytes, context.settings.maxTotalResponseSizeBytes);
          parts.push(outcome.value.text);
        }
      }
      return answerOf(parts);
    });
    return sendJsonText(reply, 200, text);
  }, { body: TqlBody });
}

/** `[part,part,...]`: one string, or the bytes when a part is (rows written from page bytes). */
function answerOf(parts: ReadonlyArray<string | Buffer>): string | Buffer {
  if (parts.every((part) => typeof part === 'string')) return `[${parts.join(',')}]`;
  const pieces: Buffer[] = [];
  parts.forEach((part, i) => {
    pieces.push(Buffer.from(i === 0 ? '[' : ','), typeof part === 'string' ? Buffer.from(part, 'utf8') : part);
  });
  pieces.push(Buffer.from(']'));
  return Buffer.concat(pieces);
}

function tqlItemsOf(body: TqlBody | undefined, settings: WebApiSettings): TqlItem[] {
  if (!Array.isArray(body) || body.length === 0) throw badRequest('List of TQL is empty');
  if (body.length > settings.maxQueryNum) {
    throw badRequest('Exceed maximum of TQLs that can be executed');
  }
  return body.map((item) => {
    if (typeof item.name !== 'string' || item.name.trim() === '') {
      throw badRequest('Container invalid');
    }
    if (typeof item.stmt !== 'string' || item.stmt.trim() === '') {
      throw badRequest('Statement invalid');
    }
    // The node answers EXPLAIN [ANALYZE] (a client's query gets the plan as rows); GridDB's web
    // API refuses it in /tql all the same (spec/surface.md §1.6.13, §3.7), and so does this one.
    if (/^\s*explain\b/i.test(item.stmt)) throw badRequest("'EXPLAIN/ANALYZE' is not supported");
    characterCheck(item.stmt);
    return {
      name: item.name, stmt: item.stmt.replace(/\r\n|\r|\n/g, ' '),
      columns: item.columns ?? undefined, partialExecution: item.hasPartialExecution === true,
    };
  });
}

/**
 * One statement, as a query by container name (no schema round trip first; a missing container
 * is the node's CONTAINER_NOT_FOUND). `total` of a `select *` is counted by a second query only
 * when the rows do not tell it: fewer rows than the limit from offset 0 are every row matched.
 * A statement with its own LIMIT or OFFSET likely needs the count, so it goes with the query.
 */
async function runTql(store: ClientStore, item: TqlItem, settings: WebApiSettings):
  Promise<{ text: string | Buffer; sizeBytes: number }> {
  const { statement, limit, offset } = limitedStatement(item.stmt, settings.maxLimit);
  const counting = countingStatement(item.stmt);
  const query = await store.queryByName(item.name, statement);
  if (item.partialExecution) query.setFetchOption('PARTIAL_EXECUTION', true);
  const early = counting !== undefined && (offset > 0 || limit < settings.maxLimit)
    ? countOf(store, item.name, counting) : undefined;
  // Handled now: it may fail before the query does (on another connection), and is awaited later.
  early?.catch(() => undefined);
  let rowSet: RowSet;
  let rows: Row[] = [];
  let pages: WirePage[] | undefined;
  let rowCount = 0;
  let total: number;
  try {
    rowSet = await query.fetch();
    if (rowSet.kind !== 'AGGREGATION') {
      // Every column, in pages the node's bytes can be written from: no row arrays at all.
      if (item.columns === undefined && rowsWireJsonFits(rowSet.columns, settings.timeZone,
        doubleText)) {
        pages = [];
        for (let page = await rowSet.nextPageEncoded(); page !== undefined;
          page = await rowSet.nextPageEncoded()) {
          pages.push(page);
          rowCount += page.count;
        }
      } else {
        rows = await rowSet.toArray();
        rowCount = rows.length;
      }
    }
    total = counting === undefined ? (AGGREGATE.test(item.stmt) ? 1 : -1)
      : early !== undefined ? await early
        : offset === 0 && rowCount < limit && !item.partialExecution ? rowCount
          : await countOf(store, item.name, counting);
  } catch (error) {
    if (isStorageError(error, 'CONTAINER_NOT_FOUND')) throw containerNotExisted(item.name);
    throw error;
  }
  const encoder = new ValueEncoder(settings.timeZone);
  if (rowSet.kind === 'AGGREGATION') return aggregationText(rowSet, encoder);
  if (pages !== undefined) {
    // The rows' bytes go into the answer as they are (ASCII), the rest of it around them.
    const { columns } = rowSet;
    const written = rowsWireJson(columns, pages, doubleText!);
    responseSizeCheck(written.sizeBytes, settings.maxResponseSizeBytes);
    const head = `{"columns":${JSON.stringify(columns.map((c) => columnJson(c)))},"results":`;
    const tail = `,"offset":${offset},"limit":${limit},"total":${total},` +
      `"responseSizeByte":${written.sizeBytes}}`;
    return {
      text: Buffer.concat([Buffer.from(head, 'utf8'), written.bytes, Buffer.from(tail)]),
      sizeBytes: written.sizeBytes,
    };
  }
  const { columns, rowsOut } = selectColumns(rowSet.columns, rows, item.columns);
  const rowsText = encoder.rows(columns, rowsOut);
  responseSizeCheck(encoder.sizeBytes, settings.maxResponseSizeBytes);
  const text = `{"columns":${JSON.stringify(columns.map((c) => columnJson(c)))},` +
    `"results":${rowsText},"offset":${offset},"limit":${limit},"total":${total},` +
    `"responseSizeByte":${encoder.sizeBytes}}`;
  return { text, sizeBytes: encoder.sizeBytes };
}

/** The statement as run, with the limit and offset the answer reports. */
export function limitedStatement(stmt: string, maxLimit: number):
  { statement: string; limit: number; offset: number } {
  const match = TRAILING_LIMIT.exec(stmt);
  if (match === null) {
    return { statement: `${stmt} limit ${maxLimit}`, limit: maxLimit, offset: 0 };
  }
  const requested = Number(match[1]);
  const offset = match[2] === undefined ? 0 : Number(match[2]);
  if (requested <= maxLimit) return { statement: stmt, limit: requested, offset };
  const rewritten = `${stmt.slice(0, match.index)} limit ${maxLimit}` +
    (match[2] === undefined ? '' : ` offset ${match[2]}`);
  return { statement: rewritten, limit: maxLimit, offset };
}

/** The `select count(*)` of a `select *` statement (ORDER BY, LIMIT, OFFSET removed). */
function countingStatement(stmt: string): string | undefined {
  if (AGGREGATE.test(stmt) || !SELECT_ALL.test(stmt)) return undefined;
  return stmt.replace(TRAILING_LIMIT, '').replace(ORDER_BY, '')
    .replace(SELECT_ALL, 'select count(*)');
}

async function countOf(store: ClientStore, name: string, counting: string): Promise<number> {
  const value = (await (await store.queryByName(name, counting)).fetch()).aggregationValue();
  return Number(value ?? 0);
}

function aggregationText(rowSet: RowSet, encoder: ValueEncoder):
  { text: string; sizeBytes: number } {
  const source = rowSet.columns[0];
  const isTime = source?.type === 'TIMESTAMP';
  const column: ColumnSchema = {
    name: 'aggregationResult', type: isTime ? 'TIMESTAMP' : 'DOUBLE', array: false,
    notNull: false, ...(isTime && source.timePrecision !== undefined
      ? { timePrecision: source.timePrecision } : {}),
  };
  const value = rowSet.aggregationValue();
  const rows: Row[] = value === undefined ? [] : [[isTime ? value : numberOf(value)]];
  const text = `{"columns":${JSON.stringify([columnJson(column)])},` +
    `"results":${encoder.rows([column], rows)}}`;
  return { text, sizeBytes: encoder.sizeBytes };
}

function numberOf(value: Value): Value {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** The result restricted to the named columns, in the order named; 400 for an unknown one. */
function selectColumns(
  columns: readonly ColumnSchema[],
  rows: Row[],
  names: readonly string[] | undefined,
): { columns: readonly ColumnSchema[]; rowsOut: Row[] } {
  if (names === undefined) return { columns, rowsOut: rows };
  const indexes = names.map((name) => {
    const index = columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
    if (index < 0) throw badRequest(`Column '${name}' not existed`);
    return index;
  });
  return {
    columns: indexes.map((i) => columns[i]!),
    rowsOut: rows.map((row) => indexes.map((i) => row[i] ?? null)),
  };
}
