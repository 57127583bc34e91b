import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem, assertThrowsCode, call, typeOf } from './function-test-helpers.ts';

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

describe('SQL ABS', () => {
  it('gives LONG for integers and DOUBLE for floating values', () => {
    assert.equal(call('ABS', [-5, 'INTEGER']), 5n);
    assert.equal(call('ABS', LONG_MAX), LONG_MAX);
    assert.equal(call('ABS', -LONG_MAX), LONG_MAX);
    assert.equal(call('ABS', -2.5), 2.5);
    assert(Number.isNaN(call('ABS', NaN)));
    assert.equal(call('ABS', null), null);
    assert.equal(typeOf('ABS', [1, 'BYTE']), 'LONG');
    assert.equal(typeOf('ABS', [1, 'FLOAT']), 'DOUBLE');
    assertProblem(typeOf('ABS', 'x'));
  });
  it('overflows for -2^63', () => {
    assertThrowsCode(() => call('ABS', LONG_MIN), 'SQL_PROC_VALUE_OVERFLOW');
  });
});

describe('SQL ROUND and TRUNC', () => {
  it('ROUND rounds halves away from zero; integers come back as they are; m < 0 counts as 0', () => {
    assert.equal(call('ROUND', 2.5), 3);
    assert.equal(call('ROUND', -2.5), -3);
    assert.equal(call('ROUND', 1.2345, 2n), 1.23);
    assert.equal(call('ROUND', -1.235, 1n), -1.2);
    assert.equal(call('ROUND', 1234.5, -2n), 1235);
    assert.equal(call('ROUND', 17n, 1n), 17n);
    assert.equal(call('ROUND', LONG_MIN), LONG_MIN);
    assert.equal(call('ROUND', Infinity, 2n), Infinity);
    assert.equal(call('ROUND', 1e300, 400n), 1e300);
    assert.equal(call('ROUND', 1.5, null), null);
  });
  it('TRUNC cuts toward zero at m places, integers to the left of the point', () => {
    assert.equal(call('TRUNC', -2.7), -2);
    assert.equal(call('TRUNC', 2.789, 2n), 2.78);
    assert.equal(call('TRUNC', 1234.5, -2n), 1200);
    assert.equal(call('TRUNC', 1234n, -2n), 1200n);
    assert.equal(call('TRUNC', -1299n, -2n), -1200n);
    assert.equal(call('TRUNC', 1234n, 3n), 1234n);
    assert.equal(call('TRUNC', LONG_MAX, -19n), 0n);
    assert.equal(call('TRUNC', 0, 500n), 0);
    assertThrowsCode(() => call('TRUNC', 1.5, 309n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('TRUNC', 1.5, -308n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
});

describe('SQL SQRT, LOG, RANDOM, HEX_TO_DEC', () => {
  it('SQRT of numbers; negative is an error', () => {
    assert.equal(call('SQRT', 16n), 4);
    assert.equal(call('SQRT', 0), 0);
    assert.equal(call('SQRT', Infinity), Infinity);
    assertThrowsCode(() => call('SQRT', -1), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
  it('LOG(base, x); base ≤ 0, base 1 and x ≤ 0 are errors', () => {
    assert.equal(call('LOG', 2n, 8n), 3);
    assert.equal(call('LOG', 10, 0.001), Math.log(0.001) / Math.log(10));
    assertThrowsCode(() => call('LOG', 1n, 8n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('LOG', 0n, 8n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('LOG', 2n, 0n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assert.equal(call('LOG', null, 8n), null);
  });
  it('RANDOM is a LONG from the context\'s random bytes', () => {
    assert.equal(typeof call('RANDOM'), 'bigint');
    assert.equal(typeOf('RANDOM'), 'LONG');
  });
  it('HEX_TO_DEC reads up to 16 hex digits between spaces', () => {
    assert.equal(call('HEX_TO_DEC', 'ff'), 255n);
    assert.equal(call('HEX_TO_DEC', '  7FFFFFFFFFFFFFFF '), LONG_MAX);
    assertThrowsCode(() => call('HEX_TO_DEC', '8000000000000000'), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => call('HEX_TO_DEC', '10000000000000000'), 'SQL_PROC_VALUE_OVERFLOW');
    assertThrowsCode(() => call('HEX_TO_DEC', ''), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('HEX_TO_DEC', '1 2'), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('HEX_TO_DEC', 'xyz'), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
});

describe('SQL scalar MAX and MIN', () => {
  it('take the extreme of two or more values of a common type', () => {
    assert.equal(call('MAX', [1, 'INTEGER'], 5n, [-3, 'BYTE']), 5n);
    assert.equal(typeOf('MAX', [1, 'INTEGER'], 5n), 'LONG');
    assert.equal(call('MIN', [1, 'INTEGER'], 0.5), 0.5);
    assert.equal(typeOf('MIN', [1, 'INTEGER'], 0.5), 'DOUBLE');
    assert.equal(call('MAX', 'b', 'ab', 'B'), 'b');
    assert.equal(call('MIN', 'b', '', 'B'), '');
    assert.equal(call('MAX', 1n, null), null);
    assert.equal(call('MAX', [5, 'TIMESTAMP'], [4_000n, 'TIMESTAMP(6)']), 5000n);
    assertProblem(typeOf('MAX', 1n, 'a'));
  });
});
