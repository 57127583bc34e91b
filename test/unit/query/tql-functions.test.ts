import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareTql } from '../../../lib/query/tql/prepare.ts';
import { evaluate, NOW_MS, SAMPLE, sampleRow, tqlError, valueOf } from './tql-test-helpers.ts';

/** The value of a scalar expression: `expr = expected` must hold. */
function holds(condition: string, row = sampleRow({})): void {
  assert.equal(evaluate(condition, row), true, condition);
}

describe('TQL functions', () => {
  it('CHAR_LENGTH counts characters', () => {
    holds("CHAR_LENGTH('abc') = 3");
    holds("CHAR_LENGTH('') = 0");
    holds("CHAR_LENGTH('😀é') = 2");
    assert.equal(evaluate('CHAR_LENGTH(s) = 0'), null);
  });

  it('CONCAT skips NULL arguments', () => {
    holds("CONCAT('a', 'b', 'c') = 'abc'");
    holds("CONCAT('a', NULL, 'c') = 'ac'");
    holds("CONCAT(s, 'x') = 'x'");
    holds("CONCAT(NULL) = ''");
    assert.throws(
      () => evaluate("CONCAT('a', 1) = 'a1'"),
      tqlError('TQL_SEMANTIC', { column: 28 }, /argument 2 of CONCAT must be a STRING/),
    );
  });

  it('SUBSTRING is 1-based, by characters, empty out of range', () => {
    holds("SUBSTRING('abcdef', 2, 3) = 'bcd'");
    holds("SUBSTRING('abcdef', 4) = 'def'");
    holds("SUBSTRING('abcdef', 7) = ''");
    holds("SUBSTRING('abcdef', 3, 0) = ''");
    holds("SUBSTRING('abcdef', 5, 100) = 'ef'");
    holds("SUBSTRING('😀ab', 2, 1) = 'a'");
    assert.throws(
      () => evaluate("SUBSTRING('abc', 0) = ''"),
      tqlError('TQL_EVALUATION', { column: 16 }, /start/),
    );
    assert.throws(
      () => evaluate("SUBSTRING('abc', 1, -1) = ''"),
      tqlError('TQL_EVALUATION', { column: 16 }, /length/),
    );
    assert.throws(
      () => evaluate("SUBSTRING('abc', 1.5) = ''"),
      tqlError('TQL_SEMANTIC', { column: 33 }, /integer/),
    );
    assert.throws(
      () => evaluate("SUBSTRING('abc') = ''"),
      tqlError('TQL_SEMANTIC', { column: 16 }, /2 to 3 arguments/),
    );
  });

  it('UPPER and LOWER change ASCII letters only', () => {
    holds("UPPER('abcÄé1') = 'ABCÄé1'");
    holds("LOWER('ABCÄÉ1') = 'abcÄÉ1'");
  });

  it("ROUND, FLOOR and CEILING give doubles as GridDB's table says", () => {
    const cases: Array<[number, number, number, number]> = [
      [1.34, 1, 1, 2],
      [3.67, 4, 3, 4],
      [-0.23, 0, -1, -0],
      [-3.89, -4, -4, -3],
      [2.5, 3, 2, 3],
      [-2.5, -3, -3, -2],
    ];
    for (const [value, round, floor, ceiling] of cases) {
      const row = sampleRow({ d: value });
      assert.ok(Object.is(evaluateNumber('ROUND(d)', row), round), `ROUND(${value})`);
      assert.ok(Object.is(evaluateNumber('FLOOR(d)', row), floor), `FLOOR(${value})`);
      assert.ok(Object.is(evaluateNumber('CEILING(d)', row), ceiling), `CEILING(${value})`);
    }
    for (const special of [0, -0, 5, Number.NaN, Infinity, -Infinity]) {
      assert.ok(Object.is(evaluateNumber('ROUND(d)', sampleRow({ d: special })), special));
    }
    holds('ROUND(i) = 7', sampleRow({ i: 7 }));
    assert.throws(() => evaluate("ROUND('a') = 1"), tqlError('TQL_SEMANTIC', undefined, /number/));
  });

  it("NOW() is the query's time, the same for every row", () => {
    holds(`TO_EPOCH_MS(NOW()) = ${NOW_MS}`);
    holds("NOW() = TIMESTAMP('2026-01-01T00:00:00Z')");
  });

  it('TIMESTAMPADD adds calendar units in UTC, keeping the precision', () => {
    holds(
      "TIMESTAMPADD(DAY, TIMESTAMP('2026-01-31T10:00:00Z'), 1) = TIMESTAMP('2026-02-01T10:00:00Z')",
    );
    holds(
      "TIMESTAMPADD(MONTH, TIMESTAMP('2026-01-31T10:00:00Z'), 1) = TIMESTAMP('2026-02-28T10:00:00Z')",
    );
    holds(
      "TIMESTAMPADD(MONTH, TIMESTAMP('2024-03-31T00:00:00Z'), -1) = TIMESTAMP('2024-02-29T00:00:00Z')",
    );
    holds(
      "TIMESTAMPADD(YEAR, TIMESTAMP('2024-02-29T00:00:00Z'), 1) = TIMESTAMP('2025-02-28T00:00:00Z')",
    );
    holds("TIMESTAMPADD(hour, NOW(), -1) = TIMESTAMP('2025-12-31T23:00:00Z')");
    holds(
      "TIMESTAMP_ADD(MILLISECOND, TIMESTAMP('2026-01-01T00:00:00Z'), 1500) = TIMESTAMP('2026-01-01T00:00:01.500Z')",
    );
    holds(
      "TIMESTAMPADD(SECOND, TIMESTAMP_NS('2026-01-01T00:00:00.000000007Z'), 1) = " +
        "TIMESTAMP_NS('2026-01-01T00:00:01.000000007Z')",
    );
    holds(
      "TIMESTAMPADD(MONTH, tn, 1) = TIMESTAMP_NS('1970-02-01T00:00:00.000000005Z')",
      sampleRow({ tn: 5n }),
    );
    assert.throws(
      () => evaluate('TIMESTAMPADD(WEEK, t, 1) = t'),
      tqlError('TQL_SEMANTIC', { column: 29 }, /time unit/),
    );
    assert.throws(
      () => evaluate('TIMESTAMPADD(DAY, t, 1.5) = t'),
      tqlError('TQL_SEMANTIC', { column: 37 }, /argument 3 .* integer/),
    );
    assert.throws(
      () => evaluate('TIMESTAMPADD(DAY, i, 1) = t'),
      tqlError('TQL_SEMANTIC', { column: 34 }, /argument 2 .* TIMESTAMP/),
    );
    assert.throws(
      () => evaluate('TIMESTAMPADD(YEAR, t, 9000000) = t', sampleRow({ t: 0 })),
      tqlError('TQL_EVALUATION', undefined, /out of range/),
    );
  });

  it('TIMESTAMPDIFF counts whole units of ts1 − ts2', () => {
    const diff = (unit: string, a: string, b: string) =>
      evaluateNumber(`TIMESTAMPDIFF(${unit}, TIMESTAMP('${a}'), TIMESTAMP('${b}'))`);
    assert.equal(diff('DAY', '2026-01-04T00:00:00Z', '2026-01-01T00:00:00Z'), 3);
    assert.equal(diff('DAY', '2026-01-03T23:59:59Z', '2026-01-01T00:00:00Z'), 2);
    assert.equal(diff('DAY', '2026-01-01T00:00:00Z', '2026-01-03T23:59:59Z'), -2);
    assert.equal(diff('HOUR', '2026-01-01T10:30:00Z', '2026-01-01T00:00:00Z'), 10);
    assert.equal(diff('MILLISECOND', '2026-01-01T00:00:00.250Z', '2026-01-01T00:00:00Z'), 250);
    assert.equal(diff('MONTH', '2026-05-01T00:00:00Z', '2026-02-01T00:00:00Z'), 3);
    assert.equal(diff('MONTH', '2026-04-30T23:59:59Z', '2026-02-01T00:00:00Z'), 2);
    assert.equal(diff('MONTH', '2026-02-01T00:00:00Z', '2026-05-01T00:00:00Z'), -3);
    assert.equal(diff('YEAR', '2026-01-01T00:00:00Z', '2001-06-01T00:00:00Z'), 24);
    assert.equal(diff('YEAR', '2001-06-01T00:00:00Z', '2026-01-01T00:00:00Z'), -24);
    holds(
      "TIMESTAMPDIFF(MILLISECOND, tn, TIMESTAMP('1970-01-01T00:00:00Z')) = 1",
      sampleRow({ tn: 1_999_999n }),
    );
    holds('TIMESTAMP_DIFF(SECOND, t, t) = 0', sampleRow({ t: 5 }));
  });

  it('TO_TIMESTAMP_MS and TO_EPOCH_MS convert both ways, refusing non-times', () => {
    holds("TO_TIMESTAMP_MS(1000) = TIMESTAMP('1970-01-01T00:00:01Z')");
    holds('TO_EPOCH_MS(TO_TIMESTAMP_MS(l)) = l', sampleRow({ l: 253_402_300_799_999n }));
    holds("TO_EPOCH_MS(TIMESTAMP_US('1970-01-01T00:00:00.001999Z')) = 1");
    assert.throws(
      () => evaluate('TO_TIMESTAMP_MS(l) = t', sampleRow({ l: -1n })),
      tqlError('TQL_EVALUATION', { column: 16 }, /1970/),
    );
    assert.throws(
      () => evaluate('TO_TIMESTAMP_MS(253402300800000) = t'),
      tqlError('TQL_EVALUATION'),
    );
    assert.throws(
      () => evaluate('TO_TIMESTAMP_MS(1.5) = t'),
      tqlError('TQL_SEMANTIC', undefined, /integer/),
    );
    assert.throws(
      () => evaluate('TO_EPOCH_MS(i) = 1'),
      tqlError('TQL_SEMANTIC', undefined, /TIMESTAMP/),
    );
  });

  it('ARRAY_LENGTH and ELEMENT read arrays, ELEMENT refusing a missing element', () => {
    const row = sampleRow({ la: [5n, 9_007_199_254_740_993n] });
    holds('ARRAY_LENGTH(la) = 2', row);
    holds('ELEMENT(0, la) = 5', row);
    holds('ELEMENT(1, la) = 9007199254740993', row);
    holds('ARRAY_LENGTH(la) >= 3 AND ELEMENT(2, la) = 1 OR TRUE', row);
    assert.throws(
      () => evaluate('ELEMENT(2, la) = 1', row),
      tqlError('TQL_EVALUATION', { column: 16 }, /no such element/),
    );
    assert.throws(() => evaluate('ELEMENT(-1, la) = 1', row), tqlError('TQL_EVALUATION'));
    assert.throws(() => evaluate('ELEMENT(0.5, la) = 1', row), tqlError('TQL_SEMANTIC'));
    assert.throws(
      () => evaluate('ARRAY_LENGTH(l) = 1'),
      tqlError('TQL_SEMANTIC', undefined, /array/),
    );
  });

  it('names unknown functions, aggregates in WHERE and functions that come later', () => {
    assert.throws(
      () => evaluate('FOO(1) = 1'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /unknown function FOO/),
    );
    assert.throws(
      () => evaluate('COUNT(*) = 1'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /aggregate/),
    );
    assert.throws(
      () => evaluate('POINT(1, 1) IS NULL'),
      tqlError('NOT_SUPPORTED', { column: 16 }, /POINT is not supported yet \(geometry constr/),
    );
    assert.throws(
      () => evaluate('UPPER(*) = 1'),
      tqlError('TQL_SEMANTIC', undefined, /does not take \*/),
    );
    assert.throws(
      () => evaluate('NOW(1) = t'),
      tqlError('TQL_SEMANTIC', undefined, /NOW takes 0 arguments/),
    );
    for (const select of ['TIME_WINDOW_AGG(d, NOW(), NOW(), 1, HOUR)', 'STRING(d)']) {
      assert.throws(
        () => prepareTql(`SELECT ${select}`, SAMPLE, { nowMs: NOW_MS }),
        tqlError('NOT_SUPPORTED', { column: 8 }, /is not supported yet \(an undocumented/),
        select,
      );
    }
    assert.throws(
      () => prepareTql('SELECT UPPER(s)', SAMPLE, { nowMs: NOW_MS }),
      tqlError('TQL_SEMANTIC', { column: 8 }, /SELECT takes \* or one aggregate/),
    );
  });
});

function evaluateNumber(expression: string, row = sampleRow({})): number {
  const value = valueOf(expression, row);
  assert.equal(typeof value, 'number', `${expression} gave ${String(value)}`);
  return value as number;
}
