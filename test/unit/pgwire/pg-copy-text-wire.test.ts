// COPY FROM's text lines read straight into the row encoding (pg-copy-text-wire.ts) give the rows
// and the errors of the general path: the same COPY with its columns named (`COPY t (a, b, …)`,
// which the byte path leaves to the general one) is the reference. Random tables of the types it
// reads, lines of good and bad values (NULLs in key columns, escapes, wrong field counts, numbers
// and times the general reader reads its own way or refuses, non-ASCII text, CRLF, the `\.`
// marker), cut into CopyData at random bytes (inside UTF-8 sequences too).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { PgCopyIn } from '../../../lib/pgwire/pg-copy.ts';
import { parseCopyStatement } from '../../../lib/pgwire/pg-copy-statement.ts';
import { plainTimestampMs } from '../../../lib/pgwire/pg-copy-text-wire.ts';
import { PgError, pgErrorFieldsOf } from '../../../lib/pgwire/pg-errors.ts';
import type { PgSqlBackend } from '../../../lib/pgwire/pg-sql-backend.ts';
import { containerSchemaOf, type ContainerInfo } from '../../../lib/protocol/wire-schema.ts';
import type { RowBatch } from '../../../lib/protocol/wire-rows.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { rowValidator } from '../../../lib/schema/row-validate.ts';

type Kind = 'DOUBLE' | 'FLOAT' | 'BYTE' | 'SHORT' | 'INTEGER' | 'LONG' | 'TIMESTAMP' | 'STRING';
const KINDS: Kind[] = ['DOUBLE', 'FLOAT', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'TIMESTAMP', 'STRING'];
const LIMITS = blockSizeLimits(64 * 1024);

/** A field's text for a column of `kind`: mostly good, sometimes what the general path handles or refuses. */
function fieldOf(kind: Kind): fc.Arbitrary<string> {
  const odd = fc.constantFrom('\\N', '', ' 1', '+5', '-0', '1x', '0x1f', 'NaN', '-', '1e400', '.5', '1.', '1e5',
    'a\\tb', '\\\\', 'é', '2016-02-30 00:00:00+00', '9', '-129', '128', '40000', '3000000000', '99999999999999999999');
  let good: fc.Arbitrary<string>;
  switch (kind) {
    case 'DOUBLE': case 'FLOAT':
      good = fc.oneof(fc.double({ noNaN: true }).map(String), fc.integer().map(String),
        fc.double({ min: 0, max: 100, noNaN: true }).map(String),
        // beyond a double's range both ways, subnormal, long, exponent spellings: all read by Number
        fc.constantFrom('1e400', '-1e400', '1e-400', '5e-324', '2.2250738585072011e-308', '0.1', '-0', '1E5',
          '1e+5', '123456789012345678901234567890.000000000000000000001', '007.50'));
      break;
    case 'BYTE': good = fc.integer({ min: -130, max: 130 }).map(String); break;
    case 'SHORT': good = fc.integer({ min: -33000, max: 33000 }).map(String); break;
    case 'INTEGER': good = fc.integer().map(String); break;
    case 'LONG': good = fc.oneof(fc.integer().map(String), fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String)); break;
    case 'TIMESTAMP':
      good = fc.tuple(fc.integer({ min: -86_400_000, max: 253_402_300_799_999 + 86_400_000 }), fc.constantFrom(0, 1, 2, 3, 4))
        .map(([ms, form]) => {
          const iso = new Date(Math.max(-8.64e15, Math.min(8.64e15, ms))).toISOString();
          switch (form) {
            case 0: return iso;
            case 1: return `${iso.slice(0, 10)} ${iso.slice(11, 23)}+00`;
            case 2: return `${iso.slice(0, 10)} ${iso.slice(11, 19)}+00`;
            case 3: return `${iso.slice(0, 10)}T${iso.slice(11, 21)}+00`;
            default: return `${iso.slice(0, 10)} ${iso.slice(11, 19)}+01`;
          }
        });
      break;
    case 'STRING':
      good = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '~', '_', 'é', '€', '😀', '\\\\', '\\t', '"'), maxLength: 8 });
      break;
  }
  return fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: fc.constant('\\N') }, { weight: 1, arbitrary: odd });
}

const copyCase = fc.record({
  kinds: fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 6 }),
  keyed: fc.boolean(),
  notNullLast: fc.boolean(),
}, { noNullPrototype: true }).chain(({ kinds, keyed, notNullLast }) => fc.record({
  kinds: fc.constant(kinds),
  keyed: fc.constant(keyed && (kinds[0] === 'STRING' || kinds[0] === 'INTEGER' || kinds[0] === 'LONG' || kinds[0] === 'TIMESTAMP')),
  notNullLast: fc.constant(notNullLast),
  lines: fc.array(fc.oneof(
    { weight: 12, arbitrary: fc.tuple(...kinds.map(fieldOf)).map((fields) => fields.join('\t')) },
    { weight: 1, arbitrary: fc.tuple(...kinds.map(fieldOf)).map((fields) => fields.slice(1).join('\t')) },
    { weight: 1, arbitrary: fc.tuple(...kinds.map(fieldOf), fc.constantFrom('1', '')).map((fields) => fields.join('\t')) },
    { weight: 1, arbitrary: fc.constantFrom('\\.', '') }), { maxLength: 25 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  cuts: fc.array(fc.nat(), { maxLength: 6 }),
  header: fc.boolean(),
}, { noNullPrototype: true }));

function infoOf(kinds: readonly Kind[], keyed: boolean, notNullLast: boolean): ContainerInfo {
  const columns: ColumnSchema[] = kinds.map((type, i) => ({
    name: `c${i}`, type, array: false, notNull: (keyed && i === 0) || (notNullLast && i === kinds.length - 1 && i > 0),
  }));
  return { name: 't', type: 'COLLECTION', columns, rowKeyColumnCount: keyed ? 1 : 0, dataAffinity: undefined,
    indexes: [], schemaVersion: 1, partitionId: 0, containerId: 1, rowCount: 0, blockCount: 0 };
}

/** A backend that keeps each batch's rows as the engine would decode them. */
function recordingBackend(info: ContainerInfo, batches: Row[][]): PgSqlBackend {
  const schema = containerSchemaOf(info);
  return {
    open() {}, close() {},
    async execute() { throw new Error('not in this test'); },
    async cancel() {},
    async containerInfo() { return info; },
    rowValidator: () => rowValidator(schema, LIMITS),
    async putRows(_id, _info, rows: RowBatch) {
      batches.push(rows.decode(schema));
    },
  };
}

async function runCopy(sql: string, info: ContainerInfo, chunks: Buffer[]) {
  const batches: Row[][] = [];
  let copy: PgCopyIn | undefined;
  try {
    copy = await PgCopyIn.open(recordingBackend(info, batches), 1, parseCopyStatement(sql) as never);
    for (const chunk of chunks) await copy.data(chunk);
    const count = await copy.done();
    return { batches, count, error: undefined };
  } catch (error) {
    if (!(error instanceof PgError) && !isStorageError(error)) throw error;
    return { batches, count: copy?.rowCount, error: { ...pgErrorFieldsOf(error) } };
  }
}

describe('pg-copy-text-wire', () => {
  it('gives the rows and errors of the general path, however the input is cut', async () => {
    await fc.assert(fc.asyncProperty(copyCase, async ({ kinds, keyed, notNullLast, lines, crlf, finalNewline, cuts, header }) => {
      const info = infoOf(kinds, keyed, notNullLast);
      const input = Buffer.from(lines.join(crlf ? '\r\n' : '\n') + (finalNewline && lines.length > 0 ? '\n' : ''), 'utf8');
      const at = [...new Set(cuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
      const chunks = [...at, input.length].map((end, i) => input.subarray(i === 0 ? 0 : at[i - 1]!, end));
      const options = header ? ' WITH (HEADER true)' : '';
      const fast = await runCopy(`COPY t FROM STDIN${options}`, info, chunks);
      const general = await runCopy(`COPY t (${kinds.map((_k, i) => `c${i}`).join(', ')}) FROM STDIN${options}`, info, chunks);
      assert.deepStrictEqual(fast, general);
    }), { numRuns: 400 });
  });

  it('reads the plain timestamps as Date.parse does, and leaves the rest to the general reader', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 253_402_300_799_999 }), (ms) => {
      const iso = new Date(ms).toISOString();
      for (const text of [iso, `${iso.slice(0, 10)} ${iso.slice(11, 23)}+00`]) {
        const bytes = Buffer.from(text, 'latin1');
        assert.equal(plainTimestampMs(bytes, 0, bytes.length), ms, text);
      }
    }));
    for (const text of ['2016-02-30 00:00:00+00', '2016-01-01 24:00:00+00', '2016-01-01 00:00:00+01',
      '2016-01-01 00:00:00.1234+00', '1970-01-01T00:00:00.000Z', '2016-13-01T00:00:00Z', '2016-01-01T00:00:00']) {
      const bytes = Buffer.from(text, 'latin1');
      assert.equal(plainTimestampMs(bytes, 0, bytes.length), -1, text);
    }
    const leap = Buffer.from('2016-02-29T12:00:00.5Z', 'latin1');
    assert.equal(plainTimestampMs(leap, 0, leap.length), Date.parse('2016-02-29T12:00:00.500Z'));
  });
});
