import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertThrowsCode, call, typeOf, assertProblem } from './function-test-helpers.ts';

describe('SQL PRINTF', () => {
  it('formats integers with flags, width and precision', () => {
    assert.equal(call('PRINTF', '%d|%5d|%-5d|%05d|%+d|% d', 42n, 42n, 42n, -42n, 42n, 42n),
      '42|   42|42   |-0042|+42| 42');
    assert.equal(call('PRINTF', '%.3d', 7n), '007');
    assert.equal(call('PRINTF', '%x %X %o %#x', 255n, 255n, 8n, 255n), 'ff FF 10 0xff');
    assert.equal(call('PRINTF', '%x', -1n), 'ffffffffffffffff');
    assert.equal(call('PRINTF', '%d', -(2n ** 63n)), '-9223372036854775808');
    assert.equal(call('PRINTF', '%d', 3.9), '3');
    assert.equal(call('PRINTF', '%d', '12abc'), '12');
  });
  it('formats doubles as %f, %e and %g', () => {
    assert.equal(call('PRINTF', '%f', 1.5), '1.500000');
    assert.equal(call('PRINTF', '%.2f', 2.345), '2.35');
    assert.equal(call('PRINTF', '%8.3f|', -1.5), '  -1.500|');
    assert.equal(call('PRINTF', '%e', 12345.678), '1.234568e+04');
    assert.equal(call('PRINTF', '%E', 0.00012), '1.200000E-04');
    assert.equal(call('PRINTF', '%g %g %g', 100000, 1e6, 0.0001), '100000 1e+06 0.0001');
    assert.equal(call('PRINTF', '%g', 1.5e-5), '1.5e-05');
    assert.equal(call('PRINTF', '%f %f', Infinity, NaN), 'Inf NaN');
    assert.equal(call('PRINTF', '%.0f', 1e22), '10000000000000000000000');
  });
  it('formats text with %s, %c, %q and %Q', () => {
    assert.equal(call('PRINTF', '[%s] [%5s] [%-5s] [%.2s]', 'abc', 'abc', 'abc', 'abc'),
      '[abc] [  abc] [abc  ] [ab]');
    assert.equal(call('PRINTF', '%s %s %s', 1n, true, null), '1 true ');
    assert.equal(call('PRINTF', '%c', 'xyz'), 'x');
    assert.equal(call('PRINTF', '%q', "it's"), "it''s");
    assert.equal(call('PRINTF', '%Q', "it's"), "'it''s'");
    assert.equal(call('PRINTF', '%Q|%q', null, null), 'NULL|(NULL)');
    assert.equal(call('PRINTF', '100%%'), '100%');
    assert.equal(call('PRINTF', '%s-%d'), '-0');
    assert.equal(call('PRINTF', 'end %'), 'end ');
    assert.equal(call('PRINTF', null, 1n), null);
    assert.equal(call('PRINTF', ''), '');
  });
  it('refuses unknown conversions, huge widths and a non-string format', () => {
    assertThrowsCode(() => call('PRINTF', '%k', 1n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('PRINTF', '%999999999d', 1n), 'LIMIT_EXCEEDED');
    assertProblem(typeOf('PRINTF', 1n));
  });
});
