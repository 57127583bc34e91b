// Store types as PostgreSQL types: the OID a column is described with, and its values in text
// and binary format; parameters in either format back into the store's typed values.
//
//   LONG int8 (20)  INTEGER int4 (23)  SHORT, BYTE int2 (21)  FLOAT float4 (700)
//   DOUBLE float8 (701)  BOOL bool (16)  STRING text (25)  BLOB bytea (17)
//   TIMESTAMP, TIMESTAMP(6), TIMESTAMP(9) timestamptz (1184), typmod 3, 6 and -1: store times are
//   instants in UTC. Text shows every digit of the precision (9 for nanoseconds); binary is
//   PostgreSQL's µs since 2000-01-01, so nanoseconds are cut to microseconds there.
//   UNKNOWN (a bare NULL, GEOMETRY, arrays) text (25), always NULL.

import { StorageError } from '../base/errors.ts';
import { MsTimestampSplit } from '../base/ms-timestamp-split.ts';
import type { SqlTypedValue } from '../sql/plan/bind-expression.ts';
import type { SqlType } from '../sql/value.ts';

export const PgOid = {
  bool: 16, bytea: 17, name: 19, int8: 20, int2: 21, int4: 23, text: 25, oid: 26,
  float4: 700, float8: 701, unknown: 705, varchar: 1043, timestamp: 1114, timestamptz: 1184,
  numeric: 1700, char: 18, regclass: 2205,
} as const;

export interface PgColumnType {
  oid: number;
  /** Bytes of a value, -1 for variable. */
  sizeBytes: number;
  typmod: number;
}

export function pgTypeOf(type: SqlType): PgColumnType {
  switch (type) {
    case 'BOOL': return { oid: PgOid.bool, sizeBytes: 1, typmod: -1 };
    case 'BYTE': case 'SHORT': return { oid: PgOid.int2, sizeBytes: 2, typmod: -1 };
    case 'INTEGER': return { oid: PgOid.int4, sizeBytes: 4, typmod: -1 };
    case 'LONG': return { oid: PgOid.int8, sizeBytes: 8, typmod: -1 };
    case 'FLOAT': return { oid: PgOid.float4, sizeBytes: 4, typmod: -1 };
    case 'DOUBLE': return { oid: PgOid.float8, sizeBytes: 8, typmod: -1 };
    case 'TIMESTAMP': return { oid: PgOid.timestamptz, sizeBytes: 8, typmod: 3 };
    case 'TIMESTAMP(6)': return { oid: PgOid.timestamptz, sizeBytes: 8, typmod: 6 };
    case 'TIMESTAMP(9)': return { oid: PgOid.timestamptz, sizeBytes: 8, typmod: -1 };
    case 'BLOB': return { oid: PgOid.bytea, sizeBytes: -1, typmod: -1 };
    case 'STRING': case 'UNKNOWN': return { oid: PgOid.text, sizeBytes: -1, typmod: -1 };
  }
}

/** PostgreSQL's name of a store type, as format_type() and \d show it. */
export function pgTypeName(type: SqlType): string {
  switch (type) {
    case 'BOOL': return 'boolean';
    case 'BYTE': case 'SHORT': return 'smallint';
    case 'INTEGER': return 'integer';
    case 'LONG': return 'bigint';
    case 'FLOAT': return 'real';
    case 'DOUBLE': return 'double precision';
    case 'TIMESTAMP': return 'timestamp(3) with time zone';
    case 'TIMESTAMP(6)': return 'timestamp(6) with time zone';
    case 'TIMESTAMP(9)': return 'timestamp with time zone';
    case 'BLOB': return 'bytea';
    case 'STRING': case 'UNKNOWN': return 'text';
  }
}

const PG_EPOCH_MS = 946_684_800_000;
const NS_PER_MS = 1_000_000n;

/** A timestamp value as ns since the Unix epoch. */
function timestampNs(type: SqlType, value: unknown): bigint {
  if (type === 'TIMESTAMP(9)') return BigInt(value as bigint);
  if (type === 'TIMESTAMP(6)') return BigInt(value as bigint) * 1000n;
  return BigInt(Math.round(Number(value))) * NS_PER_MS;
}

function floorDivision(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

/** '00' … '99': the time of day's fields without padding per value. */
const TWO_DIGITS = Array.from({ length: 100 }, (_v, i) => String(i).padStart(2, '0'));
/** A millisecond fraction as PostgreSQL shows it: '.5', '.25', '.125'; '' for none. */
const MS_FRACTIONS = Array.from({ length: 1000 }, (_v, i) =>
  (i === 0 ? '' : `.${String(i).padStart(3, '0').replace(/0+$/, '')}`));
/** The last ms timestamp shown: a scan's rows mostly share days, whose date it makes once. */
const shown = new MsTimestampSplit(' ');

/** A TIMESTAMP (ms) as `YYYY-MM-DD hh:mm:ss[.fff]+00`, the date made once per day met. */
function msTimestampText(ms: number): string {
  shown.split(ms);
  const { hour, minute, second } = shown;
  return `${shown.dateText}${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}` +
    `${MS_FRACTIONS[shown.milli]}+00`;
}

function timestampText(type: SqlType, value: unknown): string {
  if (type === 'TIMESTAMP') { // ms: no BigInt on the common path
    if (Number.isInteger(value)) return msTimestampText(value as number);
    const iso = new Date(value as number).toISOString();
    const fraction = iso.slice(20, 23).replace(/0+$/, '');
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}+00`;
  }
  const ns = timestampNs(type, value);
  const ms = floorDivision(ns, NS_PER_MS);
  const iso = new Date(Number(ms)).toISOString(); // 2024-01-02T03:04:05.678Z
  const digits = type === 'TIMESTAMP(9)' ? 9 : type === 'TIMESTAMP(6)' ? 6 : 3;
  const fractionNs = ns - floorDivision(ns, 1_000_000_000n) * 1_000_000_000n;
  const fraction = fractionNs.toString().padStart(9, '0').slice(0, digits).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}+00`;
}

function floatText(value: number, single: boolean): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (!single) return String(value);
  for (let digits = 1; digits <= 9; digits++) {
    const text = value.toPrecision(digits);
    if (Math.fround(Number(text)) === value) return String(Number(text));
  }
  return String(value);
}

/** A non-NULL value in text format. */
export function pgTextOf(type: SqlType, value: unknown): string {
  switch (type) {
    case 'BOOL': return value === true || value === 1 ? 't' : 'f';
    case 'FLOAT': return floatText(value as number, true);
    case 'DOUBLE': return floatText(value as number, false);
    case 'TIMESTAMP': case 'TIMESTAMP(6)': case 'TIMESTAMP(9)': return timestampText(type, value);
    case 'BLOB': return `\\x${Buffer.from(value as Uint8Array).toString('hex')}`;
    default: return String(value);
  }
}

/** A non-NULL value in binary format. */
export function pgBinaryOf(type: SqlType, value: unknown): Buffer {
  switch (type) {
    case 'BOOL': return Buffer.of(value === true || value === 1 ? 1 : 0);
    case 'BYTE': case 'SHORT': { const b = Buffer.alloc(2); b.writeInt16BE(Number(value)); return b; }
    case 'INTEGER': { const b = Buffer.alloc(4); b.writeInt32BE(Number(value)); return b; }
    case 'LONG': { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(value as bigint)); return b; }
    case 'FLOAT': { const b = Buffer.alloc(4); b.writeFloatBE(value as number); return b; }
    case 'DOUBLE': { const b = Buffer.alloc(8); b.writeDoubleBE(value as number); return b; }
    case 'TIMESTAMP': case 'TIMESTAMP(6)': case 'TIMESTAMP(9)': {
      const us = floorDivision(timestampNs(type, value), 1000n) - BigInt(PG_EPOCH_MS) * 1000n;
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(us);
      return b;
    }
    case 'BLOB': return Buffer.from(value as Uint8Array);
    default: return Buffer.from(String(value), 'utf8');
  }
}

function invalid(what: string, text: string): StorageError {
  return new StorageError('SQL_PROC_VALUE_SYNTAX_ERROR', `invalid input syntax for type ${what}: "${text.slice(0, 100)}"`);
}

const INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;
const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$|^\s*[-+]?(Infinity|NaN|inf|infinity)\s*$/i;
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const FRACTION = /\.(\d+)/;

function parseFloatText(text: string): number {
  const lower = text.trim().toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === 'infinity' || lower === '+infinity' || lower === 'inf') return Infinity;
  if (lower === '-infinity' || lower === '-inf') return -Infinity;
  return Number(text);
}

function parseTimestampText(text: string): { ms: number; ns: bigint } {
  let normal = text.replace(' ', 'T');
  if (!/(Z|[+-]\d{2}(:?\d{2})?)$/.test(normal)) normal += 'Z';
  else normal = normal.replace(/([+-]\d{2})$/, '$1:00');
  const ms = Date.parse(normal);
  if (!Number.isFinite(ms)) throw invalid('timestamp with time zone', text);
  const fraction = FRACTION.exec(text)?.[1] ?? '';
  const subMsNs = BigInt((fraction.padEnd(9, '0').slice(3, 9)) || '0');
  return { ms, ns: BigInt(ms) * NS_PER_MS + subMsNs };
}

/** A parameter as the store takes it, from its declared OID (0: unspecified) and format. */
export function pgParameter(oid: number, binary: boolean, bytes: Buffer | null): SqlTypedValue {
  if (bytes === null) return { type: 'UNKNOWN', value: null };
  if (binary) return binaryParameter(oid, bytes);
  const text = bytes.toString('utf8');
  switch (oid) {
    case PgOid.bool: {
      const lower = text.trim().toLowerCase();
      if (['t', 'true', 'yes', 'on', '1', 'y'].includes(lower)) return { type: 'BOOL', value: true };
      if (['f', 'false', 'no', 'off', '0', 'n'].includes(lower)) return { type: 'BOOL', value: false };
      throw invalid('boolean', text);
    }
    case PgOid.int2: case PgOid.int4: case PgOid.int8: {
      if (!INTEGER_TEXT.test(text)) throw invalid('integer', text);
      const type = oid === PgOid.int2 ? 'SHORT' : oid === PgOid.int4 ? 'INTEGER' : 'LONG';
      return type === 'LONG' ? { type, value: BigInt(text.trim()) } : { type, value: Number(text) };
    }
    case PgOid.float4: case PgOid.float8: case PgOid.numeric:
      if (!NUMBER_TEXT.test(text)) throw invalid('double precision', text);
      return { type: oid === PgOid.float4 ? 'FLOAT' : 'DOUBLE', value: parseFloatText(text) };
    case PgOid.timestamp: case PgOid.timestamptz:
      return timestampParameter(text);
    case PgOid.bytea:
      if (!/^\\x([0-9a-fA-F]{2})*$/.test(text)) throw invalid('bytea', text);
      return { type: 'BLOB', value: new Uint8Array(Buffer.from(text.slice(2), 'hex')) };
    case 0: case PgOid.unknown:
      return inferredParameter(text);
    default:
      return { type: 'STRING', value: text };
  }
}

function timestampParameter(text: string): SqlTypedValue {
  const { ms, ns } = parseTimestampText(text.trim());
  if (ns % NS_PER_MS === 0n) return { type: 'TIMESTAMP', value: ms };
  if (ns % 1000n === 0n) return { type: 'TIMESTAMP(6)', value: ns / 1000n };
  return { type: 'TIMESTAMP(9)', value: ns };
}

/**
 * A text parameter of no declared type (node-postgres sends every parameter so): its type is
 * read from its shape, as a literal's would be. A string that looks like a number or a time must
 * be declared text (a `types` OID) to stay a string.
 */
function inferredParameter(text: string): SqlTypedValue {
  if (INTEGER_TEXT.test(text)) {
    const value = BigInt(text.trim());
    if (value >= -(2n ** 63n) && value < 2n ** 63n) return { type: 'LONG', value };
  }
  if (NUMBER_TEXT.test(text)) return { type: 'DOUBLE', value: parseFloatText(text) };
  if (text === 'true' || text === 'false') return { type: 'BOOL', value: text === 'true' };
  if (TIMESTAMP_TEXT.test(text.trim())) return timestampParameter(text);
  return { type: 'STRING', value: text };
}

function binaryParameter(oid: number, bytes: Buffer): SqlTypedValue {
  const size = (n: number, what: string) => {
    if (bytes.byteLength !== n) {
      throw new StorageError('PROTOCOL_ERROR', `a binary ${what} parameter has ${bytes.byteLength} bytes, not ${n}`);
    }
  };
  switch (oid) {
    case PgOid.bool: size(1, 'bool'); return { type: 'BOOL', value: bytes[0] !== 0 };
    case PgOid.int2: size(2, 'int2'); return { type: 'SHORT', value: bytes.readInt16BE(0) };
    case PgOid.int4: size(4, 'int4'); return { type: 'INTEGER', value: bytes.readInt32BE(0) };
    case PgOid.int8: size(8, 'int8'); return { type: 'LONG', value: bytes.readBigInt64BE(0) };
    case PgOid.float4: size(4, 'float4'); return { type: 'FLOAT', value: bytes.readFloatBE(0) };
    case PgOid.float8: size(8, 'float8'); return { type: 'DOUBLE', value: bytes.readDoubleBE(0) };
    case PgOid.timestamp: case PgOid.timestamptz: {
      size(8, 'timestamp');
      const us = bytes.readBigInt64BE(0) + BigInt(PG_EPOCH_MS) * 1000n;
      return us % 1000n === 0n ? { type: 'TIMESTAMP', value: Number(us / 1000n) }
        : { type: 'TIMESTAMP(6)', value: us };
    }
    case PgOid.text: case PgOid.varchar: case PgOid.name:
      return { type: 'STRING', value: bytes.toString('utf8') };
    default:
      // bytea, and a binary parameter of no declared type (node-postgres sends a Buffer so).
      return { type: 'BLOB', value: new Uint8Array(bytes) };
  }
}
