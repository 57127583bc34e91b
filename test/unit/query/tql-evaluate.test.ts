import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate, runTql, SAMPLE, sampleRow, tqlError } from './tql-test-helpers.ts';

const VALUES = ['TRUE', 'FALSE', 'NULL'] as const;
const value = (text: string) => (text === 'NULL' ? null : text === 'TRUE');

describe('TQL evaluation', () => {
  it('follows the NULL truth tables of NOT, AND, OR and XOR', () => {
    const expected = {
      AND: {
        TRUE: { TRUE: true, FALSE: false, NULL: null },
        FALSE: { TRUE: false, FALSE: false, NULL: false },
        NULL: { TRUE: null, FALSE: false, NULL: null },
      },
      OR: {
        TRUE: { TRUE: true, FALSE: true, NULL: true },
        FALSE: { TRUE: true, FALSE: false, NULL: null },
        NULL: { TRUE: true, FALSE: null, NULL: null },
      },
      XOR: {
        TRUE: { TRUE: false, FALSE: true, NULL: null },
        FALSE: { TRUE: true, FALSE: false, NULL: null },
        NULL: { TRUE: null, FALSE: null, NULL: null },
      },
    } as const;
    for (const operator of ['AND', 'OR', 'XOR'] as const) {
      for (const a of VALUES) {
        for (const b of VALUES) {
          // Through a column too, so nothing is folded away.
          assert.equal(
            evaluate(`${a} ${operator} ${b}`),
            expected[operator][a][b],
            `${a} ${operator} ${b}`,
          );
          assert.equal(
            evaluate(`b ${operator} ${b}`, sampleRow({ b: value(a) })),
            expected[operator][a][b],
            `b=${a} ${operator} ${b}`,
          );
        }
      }
    }
    assert.equal(evaluate('NOT TRUE'), false);
    assert.equal(evaluate('NOT FALSE'), true);
    assert.equal(evaluate('NOT NULL'), null);
    assert.equal(evaluate('NOT b', sampleRow({ b: null })), null);
  });

  it('short-circuits AND and OR: the decided part is not evaluated', () => {
    // 1/0 would fail; the FALSE (TRUE) operand before it decides.
    assert.equal(evaluate('b AND i / 0 = 1', sampleRow({ b: false, i: 1 })), false);
    assert.equal(evaluate('b OR i / 0 = 1', sampleRow({ b: true, i: 1 })), true);
    assert.throws(
      () => evaluate('b AND i / 0 = 1', sampleRow({ b: true, i: 1 })),
      tqlError('TQL_EVALUATION', { column: 22 }, /division by zero/),
    );
  });

  it('gives NULL for a comparison or an operator with a NULL operand', () => {
    for (const condition of [
      'i = 1',
      'i <> 1',
      'i < 1',
      '1 >= i',
      "s = 'a'",
      'i + 1 = 2',
      '-i = 1',
      'i = NULL',
      'NULL = NULL',
      't > NOW()',
      'd * 2 > 0',
    ]) {
      assert.equal(evaluate(condition), null, condition);
    }
    assert.equal(evaluate('i IS NULL'), true);
    assert.equal(evaluate('i IS NOT NULL'), false);
    assert.equal(evaluate('i IS NULL', sampleRow({ i: 0 })), false);
    assert.equal(evaluate('NULL IS NULL'), true);
  });

  it('compares numbers of every width exactly, and LONG with DOUBLE as doubles', () => {
    const row = sampleRow({ i: 7, l: 9_007_199_254_740_993n, d: 7.5, f: Math.fround(0.1) });
    assert.equal(evaluate('i = 7', row), true);
    assert.equal(evaluate('i < 7.5', row), true);
    assert.equal(evaluate('l = 9007199254740993', row), true);
    assert.equal(evaluate('l > 9007199254740992', row), true);
    assert.equal(evaluate('l = i + 9007199254740986', row), true);
    assert.equal(evaluate('d >= i', row), true);
    // FLOAT 0.1 widened to a double is not the double 0.1.
    assert.equal(evaluate('f = 0.1', row), false);
    assert.equal(evaluate('f < 0.11', row), true);
  });

  it('treats NaN as equal to itself and greater than every other value', () => {
    const row = sampleRow({ d: Number.NaN });
    assert.equal(evaluate('d = NaN', row), true);
    assert.equal(evaluate('d <> NaN', row), false);
    assert.equal(evaluate('d > INF', row), true);
    assert.equal(evaluate('d >= 1', row), true);
    assert.equal(evaluate('1 < d', row), true);
    assert.equal(evaluate('-INF < d', row), true);
    assert.equal(evaluate('d < 1', row), false);
    assert.equal(evaluate('0.0 / 0 = NaN'), true);
  });

  it('compares BOOL and STRING values for equality only', () => {
    assert.equal(evaluate("s = 'abc'", sampleRow({ s: 'abc' })), true);
    assert.equal(evaluate("s <> 'abc'", sampleRow({ s: 'abd' })), true);
    assert.equal(evaluate('b = TRUE', sampleRow({ b: true })), true);
    assert.throws(
      () => evaluate("s < 'b'"),
      tqlError('TQL_SEMANTIC', { column: 16 }, /only = and <>/),
    );
    assert.throws(
      () => evaluate('b >= FALSE'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /only = and <>/),
    );
  });

  it('compares TIMESTAMPs of different precisions in the finer one', () => {
    const row = sampleRow({ t: 1000, tn: 1_000_000_001n });
    assert.equal(evaluate('tn > t', row), true);
    assert.equal(evaluate('t < tn', row), true);
    assert.equal(evaluate('tn = t', sampleRow({ t: 1000, tn: 1_000_000_000n })), true);
    assert.equal(evaluate("tn = TIMESTAMP_NS('1970-01-01T00:00:01.000000001Z')", row), true);
    assert.equal(evaluate("t = TIMESTAMP('1970-01-01T00:00:01.000Z')", row), true);
  });

  it('refuses comparisons of unlike types, naming both sides', () => {
    assert.throws(
      () => evaluate('s = 1'),
      tqlError(
        'TQL_SEMANTIC',
        { column: 16 },
        /cannot compare column s \(STRING\) with a LONG value/,
      ),
    );
    assert.throws(
      () => evaluate("t > '2026-01-01T00:00:00Z'"),
      tqlError('TQL_SEMANTIC', { column: 16 }, /TIMESTAMP\('2026/),
    );
    assert.throws(() => evaluate('t > 5'), tqlError('TQL_SEMANTIC', undefined, /TO_TIMESTAMP_MS/));
    assert.throws(() => evaluate('b = 1'), tqlError('TQL_SEMANTIC'));
    assert.throws(() => evaluate("blob = X'00'"), tqlError('TQL_SEMANTIC', undefined, /BLOB/));
    assert.throws(() => evaluate('la = 1'), tqlError('TQL_SEMANTIC', undefined, /LONG_ARRAY/));
    assert.throws(
      () => runTql(SAMPLE, [], 'SELECT * WHERE i'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /WHERE needs a condition/),
    );
    assert.throws(
      () => evaluate('i AND b'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /AND needs BOOL/),
    );
    assert.throws(() => evaluate('NOT s'), tqlError('TQL_SEMANTIC', undefined, /NOT needs BOOL/));
    assert.throws(
      () => evaluate('nope = 1'),
      tqlError('COLUMN_NOT_FOUND', { column: 16 }, /"nope"/),
    );
  });

  it('resolves column names case-insensitively, quoted or not', () => {
    const row = sampleRow({ s: 'x' });
    assert.equal(evaluate("S = 'x'", row), true);
    assert.equal(evaluate(`"S" = 'x'`, row), true);
  });

  it('does integer arithmetic as LONG, exactly, truncating division toward zero', () => {
    assert.equal(evaluate('7 / 2 = 3'), true);
    assert.equal(evaluate('-7 / 2 = -3'), true);
    assert.equal(evaluate('-7 % 2 = -1'), true);
    assert.equal(evaluate('7 % -2 = 1'), true);
    assert.equal(evaluate('i * i = 4611686014132420609', sampleRow({ i: 2_147_483_647 })), true);
    assert.equal(
      evaluate('l + 1 = 9007199254740994', sampleRow({ l: 9_007_199_254_740_993n })),
      true,
    );
    assert.equal(evaluate('9007199254740991 + 2 = 9007199254740993'), true);
    // int64 overflow wraps, as GridDB's C++ arithmetic.
    assert.equal(evaluate('9223372036854775807 + 1 = -9223372036854775808'), true);
    assert.equal(evaluate('-9223372036854775808 / -1 = -9223372036854775808'), true);
    assert.equal(evaluate('-(-9223372036854775808) = -9223372036854775808'), true);
    assert.equal(evaluate('6 & 3 = 2 AND (6 | 3) = 7 AND 1 << 4 = 16 AND -16 >> 2 = -4'), true);
    assert.throws(
      () => evaluate('1 % 0 = 0'),
      tqlError('TQL_EVALUATION', { column: 16 }, /division by zero/),
    );
    assert.throws(
      () => evaluate('9223372036854775808 = 1'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /LONG range/),
    );
  });

  it('does floating arithmetic as IEEE 754', () => {
    assert.equal(evaluate('1.0 / 0 = INF'), true);
    assert.equal(evaluate('-1 / 0.0 = -INF'), true);
    assert.equal(evaluate('d / 2 = 1.25', sampleRow({ d: 2.5 })), true);
    assert.equal(evaluate('1e308 * 10 = INF'), true);
    assert.equal(evaluate('i + 0.5 = 3.5', sampleRow({ i: 3 })), true);
    assert.throws(
      () => evaluate('d % 2 = 0'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /integers only/),
    );
    assert.throws(
      () => evaluate('s + 1 = 0'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /needs numbers/),
    );
    assert.throws(
      () => evaluate('-s = 0'),
      tqlError('TQL_SEMANTIC', { column: 16 }, /needs a number/),
    );
  });

  it('matches LIKE by characters, case-sensitively, with an escape', () => {
    const matches = (text: string, pattern: string, escape?: string) =>
      evaluate(
        `s LIKE '${pattern}'${escape === undefined ? '' : ` ESCAPE '${escape}'`}`,
        sampleRow({ s: text }),
      );
    assert.equal(matches('RDBMS', '_DB%'), true);
    assert.equal(matches('ORDB', '_DB%'), false);
    assert.equal(matches('rdb', '_DB%'), false);
    assert.equal(matches('', '%'), true);
    assert.equal(matches('', ''), false);
    assert.equal(matches('x', ''), false);
    assert.equal(matches('10%', '10$%', '$'), true);
    assert.equal(matches('10$%', '10$%', '$'), false);
    assert.equal(matches('a_b', 'a$_b', '$'), true);
    assert.equal(matches('axb', 'a$_b', '$'), false);
    assert.equal(matches('😀x', '_x'), true);
    assert.equal(matches('abcabcabd', '%abc%abd'), true);
    assert.equal(matches('aaaa', '%a%a%a%a%a'), false);
    assert.equal(evaluate("s NOT LIKE 'a%'", sampleRow({ s: 'ba' })), true);
    assert.equal(evaluate('s LIKE s', sampleRow({ s: 'a%' })), true);
    assert.equal(evaluate('s LIKE NULL', sampleRow({ s: 'a' })), null);
    assert.throws(
      () => evaluate("s LIKE 'a' ESCAPE 'ab'"),
      tqlError('TQL_SEMANTIC', { column: 34 }, /one character/),
    );
    assert.throws(
      () => evaluate("s LIKE 'a' ESCAPE s", sampleRow({ s: 'ab' })),
      tqlError('TQL_EVALUATION', undefined, /one character/),
    );
    assert.throws(() => evaluate('i LIKE 1'), tqlError('TQL_SEMANTIC', undefined, /STRING/));
  });

  it('evaluates IN and BETWEEN with NULL logic', () => {
    assert.equal(evaluate('i IN (1, 2, 3)', sampleRow({ i: 2 })), true);
    assert.equal(evaluate('i IN (1, 3)', sampleRow({ i: 2 })), false);
    assert.equal(evaluate('i IN (1, NULL)', sampleRow({ i: 2 })), null);
    assert.equal(evaluate('i IN (2, NULL)', sampleRow({ i: 2 })), true);
    assert.equal(evaluate('i NOT IN (1, NULL)', sampleRow({ i: 2 })), null);
    assert.equal(evaluate('i NOT IN (1, 3)', sampleRow({ i: 2 })), true);
    assert.equal(evaluate('i IN (1)'), null);
    assert.equal(evaluate('l IN (5, 6)', sampleRow({ l: 5n })), true);
    assert.equal(
      evaluate('l IN (9223372036854775807)', sampleRow({ l: 9_223_372_036_854_775_807n })),
      true,
    );
    assert.equal(evaluate('i IN (1, 2.5)', sampleRow({ i: 1 })), true);
    assert.equal(evaluate('i IN (i, 7)', sampleRow({ i: 3 })), true);
    assert.equal(evaluate("s IN ('a', 'b')", sampleRow({ s: 'b' })), true);
    assert.equal(evaluate('i BETWEEN 1 AND 3', sampleRow({ i: 3 })), true);
    assert.equal(evaluate('i NOT BETWEEN 1 AND 3', sampleRow({ i: 4 })), true);
    assert.equal(evaluate('i BETWEEN 1 AND NULL', sampleRow({ i: 4 })), null);
    assert.equal(evaluate('i BETWEEN 1 AND NULL', sampleRow({ i: 0 })), false);
    assert.equal(evaluate('i BETWEEN NULL AND 5', sampleRow({ i: 4 })), null);
    assert.throws(() => evaluate("i IN (1, 'a')"), tqlError('TQL_SEMANTIC'));
  });
});
