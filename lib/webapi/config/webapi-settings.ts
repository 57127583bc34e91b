// The web API's settings file, `GS_HOME/webapi/conf/store_webapi.properties`: GridDB's
// griddb_webapi.properties keys, and the keys of its application.properties that an operator
// changes (port, header and upload sizes), in one Java properties file. Every key is optional and
// defaults to the value GridDB's code uses (where its documentation disagrees, spec/surface.md
// §2.2 ⚠, the code and the shipped file win: maxLimit 1000000, checkConnection's timeout in ms).
// Every bad key is reported at once in one CONFIG_INVALID naming the file and the key, in
// GridDB's words (`property 'maxLimit' is invalid.`); keys nobody reads are returned as warnings.

import { StorageError } from '../../base/errors.ts';
import {
  WEBAPI_QUERY_COUNT_MAX, WEBAPI_ROW_SIZE_MB_MAX, WEBAPI_TOTAL_REQUEST_BODY_COUNT_DEFAULT,
  WEBAPI_TOTAL_RESPONSE_SIZE_MB_MAX,
} from '../../base/limits.ts';
import { MiB, parseSizeBytes } from '../../base/units.ts';
import { parseTimeZone, TIME_ZONE_UTC, type TimeZone } from './time-zone.ts';

export const WEBAPI_SETTINGS_FILE_NAME = 'store_webapi.properties';
export const WEBAPI_PORT_DEFAULT = 8081;
/** One day: a longer wait for a body is a connection held, not a slow client. */
const REQUEST_BODY_TIMEOUT_S_MAX = 86_400;
/** Waiting requests each hold a connection: more than this many is a flood, not a queue. */
const QUEUED_REQUEST_COUNT_MAX = 100_000;
/** Node's server takes any number; past this the file descriptors run out first. */
const CONNECTION_COUNT_MAX = 1_000_000;
/** `basePath` names at most this many first path segments (each one a copy of every route). */
const BASE_PATH_COUNT_MAX = 4;
/** One first path segment of `basePath`. */
const BASE_PATH_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

export interface WebApiSettings {
  /**
   * `basePath` (GridDB's application.properties key): the first segments of the URLs the routes
   * answer under, `/<basePath>/v2/<cluster>/dbs/<database>/...`. This project's `store` and
   * GridDB's own `griddb` by default, so that clients written for GridDB work unchanged.
   */
  basePaths: string[];
  /** `server.port`; 0 lets the kernel pick (tests). */
  port: number;
  /** `server.address`: the interface to listen on. */
  address: string;
  /** Seconds the client keeps retrying a node (GridDB client's failoverTimeout). */
  failoverTimeoutS: number;
  /** Seconds a transaction may last; 0 leaves the node's limit. */
  transactionTimeoutS: number;
  containerCacheSize: number;
  /** Bytes of one result (rows, one TQL result) and of one row registration, estimated. */
  maxResponseSizeBytes: number;
  maxRequestSizeBytes: number;
  /** `maxRequestBodySize`: the largest JSON request body, bytes (413); maxRequestSize unset. */
  requestJsonBodySizeBytesMax: number;
  /**
   * `maxTotalRequestBodySize`: bytes of the bodies held whole (all but the streamed PUTs) by
   * every request together; a request with no room waits, then 503.
   */
  totalRequestBodySizeBytesMax: number;
  /** `maxQueuedRequests`: requests waiting for room for their body; more is 503 at once. */
  queuedRequestCountMax: number;
  /** `maxConnections`: open connections to the web API; more are closed when accepted. */
  connectionCountMax: number;
  /** `putBatchSize`: body bytes of the rows a streamed PUT sends to the node in one batch. */
  putBatchSizeBytes: number;
  /** `requestBodyTimeout`: a request not wholly received this long after it began is closed. */
  requestBodyTimeoutS: number;
  /** Bytes of every result of one request together. */
  maxTotalResponseSizeBytes: number;
  loginTimeoutS: number;
  /** Statements of one /tql request. */
  maxQueryNum: number;
  /** Rows one query returns at most; larger limits are lowered to it. */
  maxLimit: number;
  timeZone: TimeZone;
  applicationName: string;
  /** `server.max-http-header-size`, bytes. */
  httpHeaderSizeBytesMax: number;
  /** `spring.servlet.multipart.max-file-size`: the zip of a BLOB upload, bytes. */
  uploadFileSizeBytesMax: number;
  /** `spring.servlet.multipart.max-request-size`: the largest request body of a route, bytes. */
  requestBodySizeBytesMax: number;
}

export const WEBAPI_SETTINGS_DEFAULT: Readonly<WebApiSettings> = {
  basePaths: ['store', 'griddb'],
  port: WEBAPI_PORT_DEFAULT,
  address: '127.0.0.1',
  failoverTimeoutS: 5,
  transactionTimeoutS: 30,
  containerCacheSize: 100,
  maxResponseSizeBytes: 20 * MiB,
  maxRequestSizeBytes: 20 * MiB,
  requestJsonBodySizeBytesMax: 20 * MiB,
  totalRequestBodySizeBytesMax: WEBAPI_TOTAL_REQUEST_BODY_COUNT_DEFAULT * 20 * MiB,
  queuedRequestCountMax: 64,
  connectionCountMax: 256,
  putBatchSizeBytes: 1 * MiB,
  requestBodyTimeoutS: 60,
  maxTotalResponseSizeBytes: 2048 * MiB,
  loginTimeoutS: 5,
  maxQueryNum: 10,
  maxLimit: 1_000_000,
  timeZone: TIME_ZONE_UTC,
  applicationName: 'webapi',
  httpHeaderSizeBytesMax: 48_000,
  uploadFileSizeBytesMax: 500 * MiB,
  requestBodySizeBytesMax: 500 * MiB,
};

/** The settings file as written on the first start: every key, commented out, at its default. */
export function defaultSettingsText(): string {
  return [
    '# Web API settings (Java properties). Uncomment a key to change it; restart to apply.',
    '#basePath=store,griddb',
    '#server.port=8081',
    '#server.address=127.0.0.1',
    '#server.max-http-header-size=48000',
    '#spring.servlet.multipart.max-file-size=500MB',
    '#spring.servlet.multipart.max-request-size=500MB',
    'failoverTimeout=5',
    'transactionTimeout=30',
    'containerCacheSize=100',
    'maxResponseSize=20',
    'maxRequestSize=20',
    '#maxRequestBodySize=20MB',
    '#maxTotalRequestBodySize=80MB',
    '#maxQueuedRequests=64',
    '#maxConnections=256',
    '#putBatchSize=1MB',
    '#requestBodyTimeout=60',
    '#maxTotalResponseSize=2048',
    'loginTimeout=5',
    'maxQueryNum=10',
    'maxLimit=1000000',
    '#timeZone=Z',
    '#applicationName=webapi',
    '',
  ].join('\n');
}

/** Keys GridDB knows that only its SQL side, multicast or LDAP would read; checked, then unused. */
const ACCEPTED_UNUSED = new Set([
  'notificationInterfaceAddress', 'consistency', 'blobPath', 'sslMode', 'authenticationMethod',
  'maxSystemGetRowSize', 'maxSystemPutRowSize', 'maxSystemTotalResponseSize',
]);

export interface SettingsReading {
  settings: WebApiSettings;
  warnings: string[];
}

/** Settings from the file's properties; throws CONFIG_INVALID naming every bad key. */
export function readWebApiSettings(properties: ReadonlyMap<string, string>, path: string):
  SettingsReading {
  const problems: string[] = [];
  const warnings: string[] = [];
  const read = new PropertyReader(properties, problems);
  const getRowMb = read.integer('maxSystemGetRowSize', WEBAPI_ROW_SIZE_MB_MAX,
    { min: 1, max: WEBAPI_ROW_SIZE_MB_MAX });
  const putRowMb = read.integer('maxSystemPutRowSize', WEBAPI_ROW_SIZE_MB_MAX,
    { min: 1, max: WEBAPI_ROW_SIZE_MB_MAX });
  const totalMb = read.integer('maxSystemTotalResponseSize', WEBAPI_TOTAL_RESPONSE_SIZE_MB_MAX,
    { min: 2, max: WEBAPI_TOTAL_RESPONSE_SIZE_MB_MAX });
  const d = WEBAPI_SETTINGS_DEFAULT;
  const settings: WebApiSettings = {
    basePaths: read.list('basePath', d.basePaths, BASE_PATH_SEGMENT, BASE_PATH_COUNT_MAX),
    port: read.integer('server.port', d.port, { min: 0, max: 65_535 }),
    address: read.text('server.address', d.address, /^[0-9A-Za-z.:\-[\]]+$/),
    failoverTimeoutS: read.integer('failoverTimeout', d.failoverTimeoutS, { min: 0 }),
    transactionTimeoutS: read.integer('transactionTimeout', d.transactionTimeoutS, { min: 0 }),
    containerCacheSize: read.integer('containerCacheSize', d.containerCacheSize, { min: 0 }),
    maxResponseSizeBytes: MiB * read.integer('maxResponseSize', d.maxResponseSizeBytes / MiB,
      { min: 1, max: getRowMb, maxName: 'maxSystemGetRowSize' }),
    maxRequestSizeBytes: MiB * read.integer('maxRequestSize', d.maxRequestSizeBytes / MiB,
      { min: 1, max: putRowMb, maxName: 'maxSystemPutRowSize' }),
    requestJsonBodySizeBytesMax: 0,
    totalRequestBodySizeBytesMax: 0,
    queuedRequestCountMax: read.integer('maxQueuedRequests', d.queuedRequestCountMax,
      { min: 0, max: QUEUED_REQUEST_COUNT_MAX }),
    connectionCountMax: read.integer('maxConnections', d.connectionCountMax,
      { min: 1, max: CONNECTION_COUNT_MAX }),
    putBatchSizeBytes: read.size('putBatchSize', d.putBatchSizeBytes),
    requestBodyTimeoutS: read.integer('requestBodyTimeout', d.requestBodyTimeoutS,
      { min: 1, max: REQUEST_BODY_TIMEOUT_S_MAX }),
    maxTotalResponseSizeBytes: MiB * read.integer('maxTotalResponseSize',
      Math.min(totalMb, d.maxTotalResponseSizeBytes / MiB),
      { min: 2, max: totalMb, maxName: 'maxSystemTotalResponseSize' }),
    loginTimeoutS: read.integer('loginTimeout', d.loginTimeoutS, { min: 0 }),
    maxQueryNum: read.integer('maxQueryNum', d.maxQueryNum,
      { min: 1, max: WEBAPI_QUERY_COUNT_MAX }),
    maxLimit: read.integer('maxLimit', d.maxLimit, { min: 1 }),
    timeZone: read.timeZone('timeZone', d.timeZone),
    applicationName: read.text('applicationName', d.applicationName, /^[A-Za-z0-9_.\-]{1,64}$/),
    httpHeaderSizeBytesMax: read.size('server.max-http-header-size', d.httpHeaderSizeBytesMax),
    uploadFileSizeBytesMax: read.size('spring.servlet.multipart.max-file-size',
      d.uploadFileSizeBytesMax),
    requestBodySizeBytesMax: read.size('spring.servlet.multipart.max-request-size',
      d.requestBodySizeBytesMax),
  };
  settings.requestJsonBodySizeBytesMax = read.size('maxRequestBodySize',
    settings.maxRequestSizeBytes);
  settings.totalRequestBodySizeBytesMax = read.size('maxTotalRequestBodySize',
    WEBAPI_TOTAL_REQUEST_BODY_COUNT_DEFAULT * settings.requestJsonBodySizeBytesMax);
  read.text('notificationInterfaceAddress', '', /^\d{1,3}(\.\d{1,3}){3}$/);
  read.choice('authenticationMethod', ['INTERNAL'], 'LDAP is not supported; INTERNAL');
  read.choice('sslMode', ['DISABLED', 'PREFERRED'], 'DISABLED or PREFERRED (TLS is not offered)');
  read.choice('consistency', ['IMMEDIATE', 'EVENTUAL'], 'IMMEDIATE or EVENTUAL');
  for (const key of properties.keys()) {
    if (!read.used.has(key) && !ACCEPTED_UNUSED.has(key)) {
      warnings.push(`${path}: property '${key}' is not known; ignored`);
    }
  }
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `${path}: ${problems.join(' ')}`);
  }
  return { settings, warnings };
}

class PropertyReader {
  readonly used = new Set<string>();

  constructor(
    private readonly properties: ReadonlyMap<string, string>,
    private readonly problems: string[],
  ) {}

  integer(
    key: string,
    fallback: number,
    range: { min: number; max?: number; maxName?: string },
  ): number {
    const text = this.value(key);
    if (text === undefined) return fallback;
    if (!/^[+-]?\d{1,15}$/.test(text)) return this.invalid(key, fallback);
    const value = Number(text);
    if (value < range.min) {
      this.problems.push(`property '${key}' can not smaller than ${range.min}.`);
      return fallback;
    }
    if (range.max !== undefined && value > range.max) {
      const bound = range.maxName === undefined ? '' : `'${range.maxName}' `;
      this.problems.push(`property '${key}' can not larger than ${bound}${range.max}.`);
      return fallback;
    }
    return value;
  }

  text(key: string, fallback: string, pattern: RegExp): string {
    const text = this.value(key);
    if (text === undefined) return fallback;
    return pattern.test(text) ? text : this.invalid(key, fallback);
  }

  /** Comma-separated names, each matching `pattern`, `countMax` at most, none twice. */
  list(key: string, fallback: string[], pattern: RegExp, countMax: number): string[] {
    const text = this.value(key);
    if (text === undefined) return [...fallback];
    const names = text.split(',').map((name) => name.trim());
    const valid = names.length <= countMax && new Set(names).size === names.length &&
      names.every((name) => pattern.test(name));
    return valid ? names : this.invalid(key, [...fallback]);
  }

  size(key: string, fallback: number): number {
    const text = this.value(key);
    if (text === undefined) return fallback;
    const bytes = /^\d{1,15}$/.test(text) ? Number(text) : parseSizeBytes(text);
    return bytes === undefined || bytes < 1 ? this.invalid(key, fallback) : bytes;
  }

  timeZone(key: string, fallback: TimeZone): TimeZone {
    const text = this.value(key);
    if (text === undefined) return fallback;
    return parseTimeZone(text) ?? this.invalid(key, fallback);
  }

  choice(key: string, allowed: readonly string[], what: string): void {
    const text = this.value(key);
    if (text !== undefined && !allowed.includes(text)) {
      this.problems.push(`property '${key}' is invalid (${what}).`);
    }
  }

  private value(key: string): string | undefined {
    this.used.add(key);
    const text = this.properties.get(key)?.trim();
    return text === '' ? undefined : text;
  }

  private invalid<T>(key: string, fallback: T): T {
    this.problems.push(`property '${key}' is invalid.`);
    return fallback;
  }
}
