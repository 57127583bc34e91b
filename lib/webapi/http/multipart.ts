// multipart/form-data for the BLOB routes (RFC 7578): the upload of PUT .../rows/blob is read,
// the answer of POST .../rows/blob written. Bodies are whole Buffers already bounded by the
// request size limit, so the parts are found by searching for the boundary; no streaming
// parser is needed for that.
//
//   --<boundary>\r\n
//   Content-Disposition: form-data; name="rows"\r\n
//   Content-Type: application/json;charset=UTF-8\r\n
//   \r\n
//   <bytes>\r\n
//   --<boundary>\r\n ... \r\n
//   --<boundary>--\r\n

import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { badRequest } from '../errors/webapi-error.ts';

export interface FormPart {
  name: string;
  fileName: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');
/** Parts of one upload, at most (the BLOB routes use two). */
const PART_COUNT_MAX = 16;

/** The boundary of a multipart/form-data content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match === null ? undefined : (match[1] ?? match[2]);
}

/** The parts of `body`, by name; 400 when it is not well-formed multipart. */
export function parseMultipart(body: Buffer, boundary: string): Map<string, FormPart> {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts = new Map<string, FormPart>();
  let at = body.indexOf(delimiter);
  if (at < 0) throw badRequest('Multipart body has no boundary');
  for (;;) {
    let start = at + delimiter.length;
    if (body[start] === 0x2d && body[start + 1] === 0x2d) return parts;
    if (body[start] === 0x0d && body[start + 1] === 0x0a) start += 2;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), start);
    if (next < 0) throw badRequest('Multipart body is not terminated');
    const part = parsePart(body.subarray(start, next));
    if (parts.size >= PART_COUNT_MAX) throw badRequest('Multipart body has too many parts');
    parts.set(part.name, part);
    at = next + 2;
  }
}

function parsePart(bytes: Buffer): FormPart {
  const headerEnd = bytes.indexOf(HEADER_END);
  if (headerEnd < 0) throw badRequest('Multipart part has no headers');
  const headers = bytes.subarray(0, headerEnd).toString('latin1').split('\r\n');
  let name: string | undefined;
  let fileName: string | undefined;
  let contentType: string | undefined;
  for (const header of headers) {
    const colon = header.indexOf(':');
    if (colon < 0) continue;
    const key = header.slice(0, colon).trim().toLowerCase();
    const value = header.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      name = /\bname="([^"]*)"/i.exec(value)?.[1];
      fileName = /\bfilename="([^"]*)"/i.exec(value)?.[1];
    } else if (key === 'content-type') {
      contentType = value;
    }
  }
  if (name === undefined) throw badRequest('Multipart part has no name');
  return { name, fileName, contentType, data: bytes.subarray(headerEnd + HEADER_END.length) };
}

/** A multipart/form-data body of these parts, and its content type. */
export function buildMultipart(parts: readonly FormPart[]):
  { body: Buffer; contentType: string } {
  const boundary = randomBytes(24).toString('base64url');
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const fileName = part.fileName === undefined ? '' : `; filename="${part.fileName}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ` +
      `name="${part.name}"${fileName}\r\n` +
      `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`),
      part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
