// The BLOB variants of the row routes (spec/surface.md §1.6.9–1.6.10), BLOBs travelling as the
// files of a zip (fflate) in a multipart/form-data body instead of base64 in the JSON:
//   POST /containers/<name>/rows/blob   the read of POST .../rows, answered with two parts:
//        `rows` (JSON; each BLOB cell "(BLOB)<file name>") and `file` (the zip). File names are
//        the `fileNameCol` column's value when it is a usable, unused name, else a random UUID;
//        with several BLOB columns a name is prefixed `1_`, `2_`, ... by BLOB column.
//   PUT  /containers/<name>/rows/blob   parts `rows` (JSON rows; a BLOB cell names a file of the
//        zip, a blank name is NULL) and `file` (the zip): {"count": n}
// An upload that is not a zip is 400 `File type is invalid`; one that does not unzip is 400
// `Cannot extract file` (GridDB answers 500: it is the caller's file that is broken). Files are
// unzipped in memory, never to disk, their sizes bounded by maxRequestSize before inflating.

import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { WEBAPI_ZIP_FILE_COUNT_MAX } from '../../base/limits.ts';
import type { Row } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { columnJson } from '../codec/column-json.ts';
import { parseJsonBody } from '../codec/json-body.ts';
import { decodeRows, rowsBodyCheck, ValueDecoder } from '../codec/value-decode.ts';
import { ValueEncoder } from '../codec/value-encode.ts';
import { badRequest, MESSAGES } from '../errors/webapi-error.ts';
import { buildMultipart, multipartBoundary, parseMultipart } from '../http/multipart.ts';
import {
  containerNameCheck, requestContext, type WebApiDependencies,
} from '../http/request-context.ts';
import { sendJson } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import { RowsQueryBody } from './body-schemas.ts';
import {
  containerOr404, queryRowsPage, responseSizeCheck, rowsRequestOf, type RowsPage,
} from './rows-query.ts';

const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_END_OF_DIRECTORY = 0x06054b50;
/** File names a zip entry may take from a column: no path, no control or reserved characters. */
const USABLE_FILE_NAME = /^[^\\/:*?"<>|\u0000-\u001f]{1,200}$/;

interface ContainerParams {
  container: string;
}

export function blobRowRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  table.add('POST', '/containers/:container/rows/blob', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as ContainerParams).container);
    const body = request.body as RowsQueryBody | undefined;
    const rowsRequest = rowsRequestOf(body);
    const fileNameCol = body?.fileNameCol ?? undefined;
    const page = await context.use(async (store) =>
      queryRowsPage(await containerOr404(store, name), rowsRequest, context.settings));
    const { rowsJson, zip } = blobAnswer(page, fileNameCol, context.settings);
    const multipart = buildMultipart([
      { name: 'rows', fileName: undefined, contentType: 'application/json;charset=UTF-8',
        data: Buffer.from(rowsJson, 'utf8') },
      { name: 'file', fileName: `${randomUUID()}.zip`, contentType: 'application/zip',
        data: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength) },
    ]);
    return reply.code(200).type(multipart.contentType).send(multipart.body);
  }, { body: RowsQueryBody });

  table.add('PUT', '/containers/:container/rows/blob', async (request, reply) => {
    const context = requestContext(request, dependencies);
    const name = containerNameCheck((request.params as ContainerParams).container);
    const boundary = multipartBoundary(request.headers['content-type']);
    if (boundary === undefined || !Buffer.isBuffer(request.body)) {
      throw badRequest('A multipart/form-data body with the parts rows and file is required');
    }
    const parts = parseMultipart(request.body, boundary);
    const rowsPart = parts.get('rows');
    const filePart = parts.get('file');
    if (rowsPart === undefined) throw badRequest("Part 'rows' is required");
    if (filePart === undefined) throw badRequest("Part 'file' is required");
    if (filePart.data.length > context.settings.uploadFileSizeBytesMax) {
      throw badRequest('File is too large');
    }
    const body = parseJsonBody(rowsPart.data.toString('utf8'));
    rowsBodyCheck(body);
    const files = unzipUpload(filePart.data, context.settings);
    const count = await context.use(async (store) => {
      const container = await containerOr404(store, name);
      const rows = decodeRows(container.info.columns, body, {
        mode: 'json', sizeBytesMax: context.settings.maxRequestSizeBytes,
        decoder: new ValueDecoder('json', files),
      });
      await container.multiPut(rows as Row[]);
      return rows.length;
    });
    return sendJson(reply, 200, { count });
  });
}

/** The rows part (BLOB cells replaced by their file names) and the zip of the BLOBs. */
function blobAnswer(page: RowsPage, fileNameCol: string | undefined, settings: WebApiSettings):
  { rowsJson: string; zip: Uint8Array } {
  const columns = page.columns;
  const blobColumns = columns.flatMap((c, i) => (c.type === 'BLOB' && !c.array ? [i] : []));
  const nameColumn = fileNameCol === undefined ? -1
    : columns.findIndex((c) => c.name.toLowerCase() === fileNameCol.toLowerCase());
  if (fileNameCol !== undefined && nameColumn < 0) {
    throw badRequest(`Column '${fileNameCol}' not existed`);
  }
  const files: Zippable = {};
  let fileCount = 0;
  const rowsOut = page.rows.map((row) => {
    const out = row.slice();
    blobColumns.forEach((column, b) => {
      const bytes = row[column];
      if (!(bytes instanceof Uint8Array)) return;
      if (++fileCount > WEBAPI_ZIP_FILE_COUNT_MAX) throw badRequest(MESSAGES.tooManyResult);
      const wanted = nameColumn < 0 ? undefined : row[nameColumn];
      let fileName = typeof wanted === 'string' && USABLE_FILE_NAME.test(wanted) ? wanted
        : randomUUID();
      if (blobColumns.length > 1) fileName = `${b + 1}_${fileName}`;
      if (fileName in files) fileName = randomUUID();
      files[fileName] = bytes;
      out[column] = `(BLOB)${fileName}`;
    });
    return out;
  });
  const textColumns: ColumnSchema[] = columns.map((c, i) => blobColumns.includes(i)
    ? { ...c, type: 'STRING' } : c);
  const encoder = new ValueEncoder(settings.timeZone);
  const rowsText = encoder.rows(textColumns, rowsOut);
  for (const bytes of Object.values(files)) encoder.sizeBytes += (bytes as Uint8Array).byteLength;
  responseSizeCheck(encoder.sizeBytes, settings.maxResponseSizeBytes);
  const rowsJson = `{"columns":${JSON.stringify(columns.map((c) => columnJson(c)))},` +
    `"rows":${rowsText},"offset":${page.offset},"limit":${page.limit},"total":${page.total}}`;
  return { rowsJson, zip: zipSync(files, { level: 0 }) };
}

/** The files of an uploaded zip by path; 400 for what is not a zip, too large, or broken. */
function unzipUpload(data: Buffer, settings: WebApiSettings): Map<string, Uint8Array> {
  const signature = data.length >= 4 ? data.readUInt32LE(0) : 0;
  if (signature !== ZIP_LOCAL_HEADER && signature !== ZIP_END_OF_DIRECTORY) {
    throw badRequest('File type is invalid');
  }
  let sizeBytes = 0;
  let count = 0;
  let tooLarge = false;
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
      filter: (file) => {
        sizeBytes += file.originalSize;
        count++;
        tooLarge ||= sizeBytes > settings.maxRequestSizeBytes || count > WEBAPI_ZIP_FILE_COUNT_MAX;
        return !tooLarge && !file.name.endsWith('/');
      },
    });
  } catch (error) {
    throw badRequest(`Cannot extract file: ${error instanceof Error ? error.message : ''}`);
  }
  if (tooLarge) throw badRequest(MESSAGES.tooManyRowsData);
  return new Map(Object.entries(unzipped));
}
