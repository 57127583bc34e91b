// COPY's text and CSV formats without a node: any strings written by COPY TO (copyLine) come back
// field for field through COPY FROM's splitter and field cutter, in any CopyData pieces, with NULL
// kept apart from the empty string; and the statement parser's options and refusals.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCopyStatement, type PgCopyOptions } from '../../../lib/pgwire/pg-copy-statement.ts';
import { copyFields, copyLine, PgCopyRecordSplitter, type PgCopyRecord } from '../../../lib/pgwire/pg-copy-text.ts';
import { PgError } from '../../../lib/pgwire/pg-errors.ts';

const field = fc.option(fc.string({ unit: fc.constantFrom('a', 'é', '日', '\t', '\n', '\r', '\\', '"', ',', ';', 'N', '.', ' ') }),
  { nil: null });

function roundTrip(options: PgCopyOptions, rows: Array<Array<string | null>>, cut: number): Array<Array<string | null>> {
  const columnTypes = rows[0]!.map(() => 'STRING' as const);
  const bytes = Buffer.from(rows.map((row) => copyLine(columnTypes, row, options)).join(''), 'utf8');
  const splitter = new PgCopyRecordSplitter(options);
  const records: PgCopyRecord[] = [];
  for (let at = 0; at < bytes.byteLength; at += cut) splitter.push(bytes.subarray(at, at + cut), records);
  splitter.end(records);
  return records.map((record) => copyFields(record, options));
}

describe('COPY text and CSV', () => {
  for (const statement of ['COPY t FROM STDIN', 'COPY t FROM STDIN WITH CSV',
    "COPY t FROM STDIN (FORMAT csv, DELIMITER ';', QUOTE '''', ESCAPE '\\')", "COPY t FROM STDIN DELIMITER '|' NULL 'nil'"]) {
    it(`any strings come back as they were written: ${statement}`, () => {
      const { options } = parseCopyStatement(statement);
      fc.assert(fc.property(fc.integer({ min: 1, max: 4 }).chain((width) =>
        fc.array(fc.array(field, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 8 })),
      fc.integer({ min: 1, max: 40 }), (rows, cut) => {
        // A line of one field equal to `\.` is the end-of-data marker in text format (PostgreSQL's rule too).
        fc.pre(options.format === 'csv' || !rows.some((row) => row.length === 1 && row[0] === '\\.'));
        assert.deepEqual(roundTrip(options, rows, cut), rows);
      }), { numRuns: 300 });
    });
  }

  it('options, and what is refused', () => {
    const csv = parseCopyStatement('copy "My T" (a, "B") from stdin with (format csv, header true, null \'-\')');
    assert.equal(csv.direction, 'in');
    assert.deepEqual([csv.table, csv.columns, csv.options.header, csv.options.nullText, csv.options.delimiter],
      ['My T', ['a', 'B'], true, '-', ',']);
    const out = parseCopyStatement('COPY (SELECT a, \'x)\' FROM t) TO STDOUT CSV HEADER');
    assert.equal(out.direction === 'out' ? out.query : undefined, "SELECT a, 'x)' FROM t");
    for (const [text, state] of [["COPY t FROM '/etc/passwd'", '0A000'], ['COPY t FROM STDIN (FORMAT binary, HEADER)', '42601'],
      ['COPY t TO STDIN', '0A000'], ['COPY t FROM STDIN (HEADER)', '0A000'], ['COPY t SIDEWAYS STDIN', '42601'],
      ["COPY t FROM STDIN (FORMAT csv, DELIMITER ',,')", '22023']] as const) {
      assert.throws(() => parseCopyStatement(text), (error: unknown) =>
        error instanceof PgError && error.fields.sqlState === state, text);
    }
  });
});
