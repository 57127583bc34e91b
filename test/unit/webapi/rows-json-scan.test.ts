// The row PUT's fast reader (lib/webapi/codec/rows-json-scan.ts) against the general path it
// stands in for: for any body, cut in any chunks and batches, putRowsStreamed stores the same
// rows in the same batches and ends with the same answer (the count, or the same error: class,
// status, code and message, positions included) as the reference below, which is the PUT as it
// was before the fast reader: every piece by JSON.parse, decodeRow, the client's validator.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { readJsonArrayStream } from '../../../lib/webapi/codec/json-array-stream.ts';
import { readJsonStream } from '../../../lib/webapi/codec/json-stream.ts';
import { doubleText } from '../../../lib/io/double-text.ts';
import { rowsJsonScanner, SCAN_GIVEN_UP } from '../../../lib/webapi/codec/rows-json-scan.ts';
import { RowsPutBatch } from '../../../lib/webapi/codec/rows-put-batch.ts';
import { decodeRow, ValueDecoder } from '../../../lib/webapi/codec/value-decode.ts';
import { WEBAPI_SETTINGS_DEFAULT, type WebApiSettings } from
  '../../../lib/webapi/config/webapi-settings.ts';
import { badRequest, MESSAGES } from '../../../lib/webapi/errors/webapi-error.ts';
import { putRowsStreamed } from '../../../lib/webapi/routes/rows-put.ts';
import { fakeRowsContainer, type SentBatch } from './rows-put-fake.ts';

type Kind = 'TIMESTAMP' | 'DOUBLE' | 'FLOAT' | 'LONG' | 'INTEGER' | 'SHORT' | 'BYTE' | 'BOOL';
const KINDS: Kind[] = ['TIMESTAMP', 'DOUBLE', 'FLOAT', 'LONG', 'INTEGER', 'SHORT', 'BYTE', 'BOOL'];

/** The PUT before the fast reader: rows parsed by JSON.parse, decoded, validated at the send. */
async function referencePut(
  body: AsyncIterable<Uint8Array>,
  columns: ColumnSchema[],
  record: (rows: Row[]) => void,
  validate: (rows: unknown[][]) => Row[],
  settings: WebApiSettings,
): Promise<number> {
  const decoder = new ValueDecoder('text');
  let batch: unknown[][] = [];
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    record(validate(rows));
  };
  const read = await readJsonArrayStream(body, {
    bodySizeBytesMax: settings.requestJsonBodySizeBytesMax,
    batchSizeBytes: settings.putBatchSizeBytes,
    onElement: (value) => {
      batch.push(decodeRow(columns, value, decoder, settings.maxRequestSizeBytes,
        { rowIndex: count }));
      count++;
    },
    onBatch: flush,
  });
  if (read.read) {
    if (read.sizeBytes === 0 || (read.opened && count === 0)) {
      throw badRequest(MESSAGES.rowsDataEmpty);
    }
    if (!read.opened) throw badRequest(MESSAGES.parseError);
    await flush();
    return count;
  }
  const general = await readJsonStream(read.rest, {
    paths: ['$.*'],
    bodySizeBytesMax: settings.requestJsonBodySizeBytesMax,
    batchSizeBytes: settings.putBatchSizeBytes,
    onValue: ({ value, parent }) => {
      if (!Array.isArray(parent)) throw badRequest(MESSAGES.parseError);
      batch.push(decodeRow(columns, value, decoder, settings.maxRequestSizeBytes,
        { rowIndex: count }));
      count++;
    },
    onBatch: flush,
  });
  if (general.sizeBytes === 0 || (general.opening === '[' && count === 0)) {
    throw badRequest(MESSAGES.rowsDataEmpty);
  }
  if (general.opening !== '[') throw badRequest(MESSAGES.parseError);
  await flush();
  return count;
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max })
    .map((list) => list.join(''));

/** Number literals, valid JSON or nearly: short and long mantissas, exponents, leading zeros. */
const numberText = fc.oneof(
  fc.integer({ min: -40_000, max: 40_000 }).map(String),
  fc.double({ noNaN: true }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String),
  fc.tuple(fc.constantFrom('', '-'), digits(1, 19), fc.constantFrom('', '.'), digits(0, 19),
    fc.constantFrom('', 'e', 'E', 'e-', 'e+'), digits(0, 4))
    .map(([sign, whole, dot, fraction, e, exponent]) =>
      `${sign}${whole}${dot}${fraction}${e}${e === '' ? '' : exponent}`),
  fc.constantFrom('-0', '0.0', '-0.0', '1e400', '-1e400', '1e-400', '2147483647',
    '2147483648', '-2147483649', '32768', '-129', '127', '9007199254740993', '1.5', '01', '.5',
    '-', '1.', '+1', '1e', '999999999999999', '1000000000000000'),
);

/** The days of validValueText's timestamps, with time fields in and out of range. */
const sameDayTimestampText = fc.oneof(
  fc.tuple(fc.constantFrom('2016-01-01', '2016-01-02'), fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 999 }))
    .map(([day, hour, minute, second, milli]) => JSON.stringify(`${day}T` +
      `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:` +
      `${String(second).padStart(2, '0')}.${String(milli).padStart(3, '0')}Z`)),
  fc.constantFrom('"2016-01-01T1:00:00.000Z"', '"2016-01-01T10:00:00.000"',
    '"2016-01-01T10:00:00.0000Z"', '"2016-01-01T10-00:00.000Z"', '"2016-01-01T10:00:0a.000Z"'),
);

const timestampText = fc.oneof(
  fc.integer({ min: 0, max: 253_402_300_799_999 }).map((ms) => new Date(ms).toISOString()),
  fc.integer({ min: 1_451_606_400_000, max: 1_451_606_400_000 + 3 * 86_400_000 })
    .map((ms) => new Date(ms).toISOString()),
  // Days shared by many rows (the reader keeps the last day read), with fields out of range too.
  fc.tuple(fc.constantFrom('2016-01-01', '2016-01-02', '2016-02-29', '2015-02-29', '2016-13-01'),
    fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 999 }))
    .map(([day, hour, minute, second, milli]) => `${day}T${String(hour).padStart(2, '0')}:` +
      `${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.` +
      `${String(milli).padStart(3, '0')}Z`),
  fc.constantFrom('2016-02-30T00:00:00.000Z', '1969-12-31T23:59:59.999Z',
    '2016-01-01T24:00:00.000Z', '2016-01-01T00:60:00.000Z', '2016-01-01T00:00:00.000+09:00',
    '2016-01-01T00:00:00Z', '2016-01-01 00:00:00.000Z', '1970-01-01T00:00:00.000Z',
    '2016-01-01T00:00:00.00aZ', '9999-12-31T23:59:59.999Z', 'abc'),
).map((text) => JSON.stringify(text));

/** Values the reader takes for a column of `kind` (NULL aside). */
function validValueText(kind: Kind): fc.Arbitrary<string> {
  switch (kind) {
    case 'TIMESTAMP':
      return fc.integer({ min: 1_451_606_400_000, max: 1_451_606_400_000 + 2 * 86_400_000 })
        .map((ms) => JSON.stringify(new Date(ms).toISOString()));
    case 'BOOL': return fc.constantFrom('true', 'false');
    case 'DOUBLE': return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.integer({ min: -99_999, max: 99_999 }).map((n) => String(n / 100)));
    case 'FLOAT': return fc.integer({ min: -99_999, max: 99_999 }).map((n) => String(n / 8));
    case 'LONG': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map(String);
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(String);
    case 'SHORT': return fc.integer({ min: -32_768, max: 32_767 }).map(String);
    case 'BYTE': return fc.integer({ min: -128, max: 127 }).map(String);
  }
}

function valueText(kind: Kind, clean: boolean): fc.Arbitrary<string> {
  const odd = fc.constantFrom('null', 'true', 'false', '"12.5"', '"abc"', '[1]', '{}', '"\\u0031"');
  const own = kind === 'TIMESTAMP' ? fc.oneof(sameDayTimestampText, sameDayTimestampText,
    timestampText)
    : kind === 'BOOL' ? fc.constantFrom('true', 'false')
    : numberText;
  // A clean body has values the reader takes, now and then one of the column's kind it does not.
  return clean ? fc.oneof({ weight: 300, arbitrary: validValueText(kind) },
    { weight: kind === 'TIMESTAMP' ? 3 : 1, arbitrary: own }) : fc.oneof({ weight: 12, arbitrary: own }, { weight: 1, arbitrary: odd },
    { weight: 1, arbitrary: kind === 'TIMESTAMP' ? numberText : timestampText });
}

const whiteSpace = fc.constantFrom('', '', '', ' ', '\n', '\t ', '\r\n');

const columnsArbitrary = fc.array(fc.record({
  kind: fc.constantFrom(...KINDS), notNull: fc.boolean(),
}, { noNullPrototype: true }), { minLength: 1, maxLength: 5 });

/** A body of rows for `kinds`, some rows a value short or long, then maybe one edit of a byte. */
function bodyArbitrary(kinds: Kind[], clean: boolean): fc.Arbitrary<string> {
  const row = fc.tuple(fc.tuple(...kinds.map((kind) => valueText(kind, clean))), whiteSpace,
    clean ? fc.constant(0) : fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, -1, 1))
    .map(([values, space, change]) => {
      const list = change < 0 ? values.slice(0, -1) : change > 0 ? [...values, '1'] : values;
      return `[${space}${list.join(`${space},`)}${space}]`;
    });
  return fc.tuple(fc.array(row, { minLength: 0, maxLength: 80 }), whiteSpace,
    fc.option(fc.tuple(fc.nat(), fc.constantFrom('', ',', ']', '[', '"', ' ', 'x', '1')),
      { freq: clean ? 1 : 2 }))
    .map(([rows, space, edit]) => {
      let text = `${space}[${space}${rows.join(`,${space}`)}${space}]${space}`;
      if (edit !== null) {
        const at = edit[0] % (text.length + 1);
        text = text.slice(0, at) + edit[1] + text.slice(at + (edit[1] === '' ? 1 : 0));
      }
      return text;
    });
}

function chunks(text: string, sizes: number[]): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  return (async function* body() {
    let at = 0;
    for (let k = 0; at < bytes.length; k++) {
      const size = sizes[k % sizes.length]!;
      yield Uint8Array.prototype.slice.call(bytes, at, at + size);
      at += size;
    }
  })();
}

type Outcome = { count: number } | { error: string };

function outcomeOf(error: unknown): Outcome {
  if (!(error instanceof Error)) return { error: String(error) };
  const fields = error as Error & { status?: number; code?: string };
  return { error: `${error.constructor.name} ${fields.status ?? ''} ${fields.code ?? ''} ` +
    error.message };
}

/** putRowsStreamed against referencePut on the same body, chunks and settings. */
async function assertSameAsReference(columns: ColumnSchema[], rowKeyColumnCount: number,
  text: string, chunkSizes: number[], settings: WebApiSettings): Promise<void> {
  const fast = fakeRowsContainer(columns, rowKeyColumnCount);
  const fastOutcome: Outcome = await putRowsStreamed(chunks(text, chunkSizes),
    fast.container, settings).then((count) => ({ count }), outcomeOf);
  const reference = fakeRowsContainer(columns, rowKeyColumnCount);
  const model = reference.container.rowModel;
  const referenceBatches: SentBatch[] = [];
  const referenceOutcome: Outcome = await referencePut(chunks(text, chunkSizes), columns,
    (rows) => referenceBatches.push({ rows, bodyReadBytes: 0 }),
    (rows) => model.rows(rows), settings).then((count) => ({ count }), outcomeOf);
  assert.deepEqual(fastOutcome, referenceOutcome, text);
  assert.deepEqual(fast.batches, referenceBatches, text);
}

describe('row PUT fast reader', () => {
  it('stores what the general path stores and fails as it fails, for any body', async () => {
    await fc.assert(fc.asyncProperty(
      columnsArbitrary.chain((columns) => fc.tuple(fc.constant(columns),
        fc.boolean().chain((clean) => bodyArbitrary(columns.map((column) => column.kind), clean)),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 2000 }), fc.boolean(), fc.constantFrom(0, 1))),
      async ([shape, text, chunkSizes, batchSizeBytes, tightSize, rowKeyColumnCount]) => {
        const columns: ColumnSchema[] = shape.map((column, i) => ({
          name: `c${i}`, type: column.kind, array: false,
          notNull: column.notNull || i < rowKeyColumnCount,
        }));
        const settings: WebApiSettings = { ...WEBAPI_SETTINGS_DEFAULT,
          putBatchSizeBytes: batchSizeBytes,
          ...(tightSize ? { maxRequestSizeBytes: 200 } : {}) };
        await assertSameAsReference(columns, rowKeyColumnCount, text, chunkSizes, settings);
      }), { numRuns: 400 });
  });

  it('refuses a time of a day it has read as the general path does', async () => {
    const columns: ColumnSchema[] = [
      { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
      { name: 'v', type: 'DOUBLE', array: false, notNull: false }];
    const bad = ['24:00:00.000', '23:60:00.000', '23:00:60.000', '2a:00:00.000', '23:00:00.0a0',
      '23-00:00.000', '23:00:00,000', '23:00:00.000+'];
    for (const time of bad) {
      const text = `[["2016-01-01T10:00:00.000Z",1],["2016-01-01T11:00:00.000Z",2],` +
        `["2016-01-01T${time}Z",3],["2016-01-01T12:00:00.000Z",4]]`;
      for (const chunkSize of [5, 64, 1000]) {
        await assertSameAsReference(columns, 1, text, [chunkSize], WEBAPI_SETTINGS_DEFAULT);
      }
    }
  });

  it('stops at a chunk\'s end only inside a value, never before a comma', async () => {
    // A short string, a bare n or t: complete, yet shorter than the value the reader expects.
    const cases: Array<[ColumnSchema['type'], string]> = [
      ['TIMESTAMP', '[["2016-01-01T00:00:00Z",1],["2016-01-01T00:00:00.000Z",2]]'],
      ['TIMESTAMP', '[["2016-01-01T00:00:00.000Z",1],["x",2],["2016-01-01T00:00:01.000Z",2]]'],
      ['BOOL', '[[true,1],[t,1],[false,2]]'],
      ['BOOL', '[[true,1],[n,1],[false,2]]'],
      ['BOOL', '[[true,1],[fals,1],[false,2]]'],
    ];
    for (const [type, text] of cases) {
      const columns: ColumnSchema[] = [{ name: 'k', type, array: false, notNull: false },
        { name: 'v', type: 'DOUBLE', array: false, notNull: false }];
      for (let chunkSize = 1; chunkSize <= 40; chunkSize++) {
        await assertSameAsReference(columns, 0, text, [chunkSize], WEBAPI_SETTINGS_DEFAULT);
      }
    }
  });

  it('takes the TSBS shape itself: a piece whole, a chunk up to its last comma', async () => {
    const columns: ColumnSchema[] = [
      { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
      ...Array.from({ length: 10 }, (_, i): ColumnSchema =>
        ({ name: `u${i}`, type: 'DOUBLE', array: false, notNull: false }))];
    const rows = Array.from({ length: 500 }, (_, r) =>
      [new Date(1_451_606_400_000 + r * 10_000).toISOString(),
        ...Array.from({ length: 10 }, (_, c) => ((r * 31 + c * 17) % 1000) / 7.3)]);
    const piece = Buffer.from(rows.map((row) => JSON.stringify(row)).join(','));
    const expected = rows.map(([ts, ...values]) => [Date.parse(ts as string), ...values]);
    // With double_text.node's parseDoubles when it is built, and with Number() of the text.
    for (const parseDoubles of [doubleText?.parseDoubles, undefined]) {
      const { container, batches } = fakeRowsContainer(columns, 1);
      const batch = new RowsPutBatch(container, new ValueDecoder('text'));
      const scanner = rowsJsonScanner(batch.model.schema, batch, parseDoubles)!;
      assert.equal(scanner.scan(piece, true, 1e9), piece.length);
      const cut = piece.length - 40;
      const restAt = scanner.scan(piece.subarray(0, cut), false, 1e9);
      assert.equal(restAt, piece.lastIndexOf('],[', cut) + 2);
      // A double beyond the range gives the piece up, whichever converts it.
      assert.equal(scanner.scan(Buffer.from('["2016-01-01T00:00:00.000Z",1,1,1,1,1,1,1,1,1,' +
        '1.0000000000000001e400]'), true, 1e9), SCAN_GIVEN_UP);
      await batch.flush();
      assert.deepEqual(batches.flatMap((sent) => sent.rows),
        [...expected, ...expected.slice(0, -1)]);
    }
  });
});
