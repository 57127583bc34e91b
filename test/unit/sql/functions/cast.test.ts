import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertThrowsCode, cast, castProblem } from './function-test-helpers.ts';

const TS = Date.UTC(2020, 0, 2, 3, 4, 5, 6);

describe('SQL CAST to STRING', () => {
  it('writes every type', () => {
    assert.equal(cast('STRING', true), 'true');
    assert.equal(cast('STRING', false), 'false');
    assert.equal(cast('STRING', [-128, 'BYTE']), '-128');
    assert.equal(cast('STRING', -(2n ** 63n)), '-9223372036854775808');
    assert.equal(cast('STRING', 1.5), '1.5');
    assert.equal(cast('STRING', NaN), 'NaN');
    assert.equal(cast('STRING', -Infinity), '-Infinity');
    assert.equal(cast('STRING', [Math.fround(0.1), 'FLOAT']), '0.1');
    assert.equal(cast('STRING', ''), '');
    assert.equal(cast('STRING', new Uint8Array([0, 171, 255])), '00ABFF');
    assert.equal(cast('STRING', null), null);
  });
  it('writes timestamps in the session zone with their precision', () => {
    assert.equal(cast('STRING', [TS, 'TIMESTAMP']), '2020-01-02T03:04:05.006Z');
    assert.equal(cast('STRING', [TS, 'TIMESTAMP'], 540), '2020-01-02T12:04:05.006+09:00');
    assert.equal(cast('STRING', [TS, 'TIMESTAMP'], -330), '2020-01-01T21:34:05.006-05:30');
    assert.equal(cast('STRING', [BigInt(TS) * 1000n + 7n, 'TIMESTAMP(6)']),
      '2020-01-02T03:04:05.006007Z');
    assert.equal(cast('STRING', [BigInt(TS) * 1_000_000n + 7n, 'TIMESTAMP(9)']),
      '2020-01-02T03:04:05.006000007Z');
  });
});

describe('SQL CAST to numbers', () => {
  it('converts BOOL, numbers and text', () => {
    assert.equal(cast('INTEGER', true), 1);
    assert.equal(cast('LONG', false), 0n);
    assert.equal(cast('LONG', '-42'), -42n);
    assert.equal(cast('LONG', ' 7 '), 7n);
    assert.equal(cast('LONG', '1.9'), 1n);
    assert.equal(cast('LONG', '-1e3'), -1000n);
    assert.equal(cast('LONG', -2.9), -2n);
    assert.equal(cast('LONG', '-9223372036854775808'), -(2n ** 63n));
    assert.equal(cast('DOUBLE', '1.5E2'), 150);
    assert.equal(cast('DOUBLE', 'Inf'), Infinity);
    assert.equal(cast('DOUBLE', '-infinity'), -Infinity);
    assert(Number.isNaN(cast('DOUBLE', 'NaN')));
    assert.equal(cast('FLOAT', 0.1), Math.fround(0.1));
    assert.equal(cast('DOUBLE', 2n ** 53n), 2 ** 53);
    assert.equal(cast('BYTE', [127n, 'LONG']), 127);
    assert.equal(cast('SHORT', [-32768, 'INTEGER']), -32768);
  });
  it('refuses values beyond the target type', () => {
    assertThrowsCode(() => cast('BYTE', [128, 'INTEGER']), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('BYTE', [-129n, 'LONG']), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('SHORT', 32768.5), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('INTEGER', '2147483648'), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('LONG', '9223372036854775808'), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('LONG', NaN), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('LONG', Infinity), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('FLOAT', 1e300), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('DOUBLE', '1e400'), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => cast('FLOAT', '-1e400'), 'SQL_PROC_VALUE_OVERFLOW');
  });
  it('refuses text that is not a number', () => {
    for (const text of ['', 'abc', '1x', '--1', '1e', '.', '0x10']) {
      assertThrowsCode(() => cast('LONG', text), 'SQL_PROC_VALUE_SYNTAX_ERROR');
      assertThrowsCode(() => cast('DOUBLE', text), 'SQL_PROC_VALUE_SYNTAX_ERROR');
    }
  });
});

describe('SQL CAST to TIMESTAMP, BOOL and BLOB', () => {
  it('reads timestamp text per precision, in the session zone when it has none', () => {
    assert.equal(cast('TIMESTAMP', '2020-01-02T03:04:05.006Z'), TS);
    assert.equal(cast('TIMESTAMP', '2020-01-02T12:04:05.006+09:00'), TS);
    assert.equal(cast('TIMESTAMP', '2020-01-02T12:04:05.006', 540), TS);
    assert.equal(cast('TIMESTAMP', '2020-01-02'), Date.UTC(2020, 0, 2));
    assert.equal(cast('TIMESTAMP(6)', '1970-01-01T00:00:00.000001Z'), 1n);
    assert.equal(cast('TIMESTAMP(9)', '1970-01-01T00:00:01.000000001Z'), 1_000_000_001n);
    assertThrowsCode(() => cast('TIMESTAMP', '1970-01-01T00:00:00.0001Z'),
      'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertThrowsCode(() => cast('TIMESTAMP', '2019-02-29'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertThrowsCode(() => cast('TIMESTAMP', '1969-12-31T23:59:59Z'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertThrowsCode(() => cast('TIMESTAMP', 'yesterday'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
  });
  it('changes timestamp precision, cutting finer digits', () => {
    assert.equal(cast('TIMESTAMP', [1_999_999n, 'TIMESTAMP(6)']), 1999);
    assert.equal(cast('TIMESTAMP(9)', [5, 'TIMESTAMP']), 5_000_000n);
    assert.equal(cast('TIMESTAMP(6)', [1_999n, 'TIMESTAMP(9)']), 1n);
  });
  it('reads BOOL from words and integers', () => {
    assert.equal(cast('BOOL', 'TRUE'), true);
    assert.equal(cast('BOOL', 'false'), false);
    assert.equal(cast('BOOL', 0n), false);
    assert.equal(cast('BOOL', [-3, 'INTEGER']), true);
    assertThrowsCode(() => cast('BOOL', 'yes'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
  });
  it('reads BLOB from hex text', () => {
    assert.deepEqual(cast('BLOB', '00abFF'), new Uint8Array([0, 171, 255]));
    assert.deepEqual(cast('BLOB', ''), new Uint8Array([]));
    assertThrowsCode(() => cast('BLOB', 'abc'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
    assertThrowsCode(() => cast('BLOB', 'zz'), 'SQL_PROC_VALUE_SYNTAX_ERROR');
  });
  it('refuses the conversions GridDB refuses when the statement is planned', () => {
    assert(castProblem('TIMESTAMP', 'LONG'));
    assert(castProblem('LONG', 'TIMESTAMP'));
    assert(castProblem('BOOL', 'DOUBLE'));
    assert(castProblem('BLOB', 'LONG'));
    assert(castProblem('LONG', 'BLOB'));
    assert(castProblem('TIMESTAMP', 'BOOL'));
    assert(!castProblem('LONG', 'UNKNOWN'));
    assert(!castProblem('STRING', 'BLOB'));
    assert(!castProblem('TIMESTAMP(9)', 'TIMESTAMP'));
  });
});
