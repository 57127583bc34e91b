import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlScalarFunction, sqlScalarFunctionNames } from '../../../../lib/sql/functions/registry.ts';
import { assertProblem, assertThrowsCode, call, typeOf } from './function-test-helpers.ts';

describe('SQL COALESCE, IFNULL, NULLIF', () => {
  it('COALESCE takes the first non-NULL value in the common type', () => {
    assert.equal(call('COALESCE', null, [3, 'INTEGER'], 4n), 3n);
    assert.equal(typeOf('COALESCE', null, [3, 'INTEGER'], 4n), 'LONG');
    assert.equal(call('COALESCE', null, [3, 'INTEGER'], 0.5), 3);
    assert.equal(call('COALESCE', null, null), null);
    assert.equal(typeOf('COALESCE', null), 'UNKNOWN');
    assert.equal(call('COALESCE', '', 'x'), '');
    assertProblem(typeOf('COALESCE', 1n, 'x'));
  });
  it('IFNULL is COALESCE of two', () => {
    assert.equal(call('IFNULL', null, 'b'), 'b');
    assert.equal(call('IFNULL', 'a', 'b'), 'a');
  });
  it('NULLIF is NULL when both are equal, else the first', () => {
    assert.equal(call('NULLIF', 1n, 1n), null);
    assert.equal(call('NULLIF', [1, 'INTEGER'], 1.0), null);
    assert.equal(call('NULLIF', 1n, 2n), 1n);
    assert.equal(call('NULLIF', 1n, null), 1n);
    assert.equal(call('NULLIF', null, 1n), null);
    assert.equal(call('NULLIF', '', ''), null);
    assertProblem(typeOf('NULLIF', 1n, 'x'));
  });
});

describe('SQL RANDOMBLOB, ZEROBLOB, HEX, TYPEOF', () => {
  it('make BLOBs of n bytes; negative or huge n is an error', () => {
    assert.equal((call('RANDOMBLOB', 16n) as Uint8Array).length, 16);
    assert.deepEqual(call('ZEROBLOB', 3n), new Uint8Array(3));
    assert.deepEqual(call('ZEROBLOB', 0n), new Uint8Array(0));
    assertThrowsCode(() => call('ZEROBLOB', -1n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
    assertThrowsCode(() => call('RANDOMBLOB', 2n ** 40n), 'LIMIT_EXCEEDED');
  });
  it('HEX writes bytes, UTF-8 of text and the text of numbers, upper-case', () => {
    assert.equal(call('HEX', new Uint8Array([0xab, 0x01])), 'AB01');
    assert.equal(call('HEX', 'é'), 'C3A9');
    assert.equal(call('HEX', 12n), '3132');
    assert.equal(call('HEX', ''), '');
    assert.equal(call('HEX', null), null);
  });
  it('TYPEOF names the type, NULL for NULL', () => {
    assert.equal(call('TYPEOF', [1, 'BYTE']), 'BYTE');
    assert.equal(call('TYPEOF', [1n, 'TIMESTAMP(9)']), 'TIMESTAMP(9)');
    assert.equal(call('TYPEOF', null), 'NULL');
    assert.equal(call('TYPEOF', [null, 'LONG']), 'NULL');
  });
});

describe('SQL function registry', () => {
  it('holds every scalar function of §5.8 by any case', () => {
    const expected = ['ABS', 'ROUND', 'RANDOM', 'MAX', 'MIN', 'LOG', 'SQRT', 'TRUNC', 'HEX_TO_DEC',
      'LENGTH', 'LOWER', 'UPPER', 'SUBSTR', 'REPLACE', 'INSTR', 'LIKE', 'GLOB', 'TRIM', 'LTRIM',
      'RTRIM', 'QUOTE', 'UNICODE', 'CHAR', 'PRINTF', 'TRANSLATE', 'NOW', 'TIMESTAMP',
      'TIMESTAMP_MS', 'TIMESTAMP_US', 'TIMESTAMP_NS', 'TIMESTAMP_ADD', 'TIMESTAMPADD',
      'TIMESTAMP_DIFF', 'TIMESTAMPDIFF', 'TO_TIMESTAMP_MS', 'TO_EPOCH_MS', 'EXTRACT', 'STRFTIME',
      'MAKE_TIMESTAMP', 'TIMESTAMP_TRUNC', 'COALESCE', 'IFNULL', 'NULLIF', 'RANDOMBLOB',
      'ZEROBLOB', 'HEX', 'TYPEOF'];
    assert.deepEqual(sqlScalarFunctionNames().sort(), expected.sort());
    assert.equal(sqlScalarFunction('substr')?.name, 'SUBSTR');
    assert.equal(sqlScalarFunction('nope'), undefined);
  });
});
