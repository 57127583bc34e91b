import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertProblem, assertThrowsCode, call, callIn, typeOf,
} from './function-test-helpers.ts';

const blob = (...bytes: number[]) => new Uint8Array(bytes);

describe('SQL LENGTH, LOWER, UPPER', () => {
  it('counts code points of strings and bytes of BLOBs', () => {
    assert.equal(call('LENGTH', 'abc'), 3n);
    assert.equal(call('LENGTH', ''), 0n);
    assert.equal(call('LENGTH', 'é😀'), 2n);
    assert.equal(call('LENGTH', blob(1, 2)), 2n);
    assert.equal(call('LENGTH', null), null);
    assertProblem(typeOf('LENGTH', 1n));
  });
  it('changes ASCII letters only', () => {
    assert.equal(call('LOWER', 'AbC-É'), 'abc-É');
    assert.equal(call('UPPER', 'abc-é'), 'ABC-é');
    assert.equal(call('UPPER', ''), '');
  });
});

describe('SQL SUBSTR', () => {
  it('follows SQLite for every start and length', () => {
    assert.equal(call('SUBSTR', 'hello', 2n), 'ello');
    assert.equal(call('SUBSTR', 'hello', 2n, 3n), 'ell');
    assert.equal(call('SUBSTR', 'hello', 0n, 2n), 'h');
    assert.equal(call('SUBSTR', 'hello', -3n), 'llo');
    assert.equal(call('SUBSTR', 'hello', -3n, 2n), 'll');
    assert.equal(call('SUBSTR', 'hello', -10n, 7n), 'he');
    assert.equal(call('SUBSTR', 'hello', 3n, -2n), 'he');
    assert.equal(call('SUBSTR', 'hello', 9n), '');
    assert.equal(call('SUBSTR', 'hello', 2n, 0n), '');
    assert.equal(call('SUBSTR', 'a😀b', 2n, 1n), '😀');
    assert.deepEqual(call('SUBSTR', blob(1, 2, 3), 2n), blob(2, 3));
    assert.equal(typeOf('SUBSTR', blob(1), 1n), 'BLOB');
    assert.equal(call('SUBSTR', 'x', null), null);
  });
});

describe('SQL REPLACE, INSTR, TRANSLATE, TRIM', () => {
  it('REPLACE every occurrence; an empty search changes nothing', () => {
    assert.equal(call('REPLACE', 'aXbXc', 'X', '--'), 'a--b--c');
    assert.equal(call('REPLACE', 'abc', '', 'z'), 'abc');
    assert.equal(call('REPLACE', '', 'a', 'z'), '');
  });
  it('INSTR finds by position, offset and occurrence, backwards from a negative offset', () => {
    assert.equal(call('INSTR', 'abcabc', 'b'), 2n);
    assert.equal(call('INSTR', 'abcabc', 'z'), 0n);
    assert.equal(call('INSTR', 'abcabc', 'b', 3n), 5n);
    assert.equal(call('INSTR', 'abcabc', 'b', 1n, 2n), 5n);
    assert.equal(call('INSTR', 'abcabc', 'b', -1n), 5n);
    assert.equal(call('INSTR', 'abcabc', 'b', -1n, 2n), 2n);
    assert.equal(call('INSTR', 'abcabc', 'bc', -1n), 5n);
    assert.equal(call('INSTR', 'abc', 'b', -9n), 0n);
    assert.equal(call('INSTR', 'abc', 'b', 0n), 0n);
    assert.equal(call('INSTR', 'abc', ''), 1n);
    assertThrowsCode(() => call('INSTR', 'abc', 'b', 1n, 0n), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
  it('TRANSLATE maps characters, the first mapping wins, extras are deleted', () => {
    assert.equal(call('TRANSLATE', 'abcabc', 'ab', 'xy'), 'xycxyc');
    assert.equal(call('TRANSLATE', 'abcabc', 'aba', 'xyz'), 'xycxyc');
    assert.equal(call('TRANSLATE', 'abcabc', 'abc', 'x'), 'xx');
  });
  it('TRIM family removes spaces or the given characters', () => {
    assert.equal(call('TRIM', '  a b  '), 'a b');
    assert.equal(call('LTRIM', '  a  '), 'a  ');
    assert.equal(call('RTRIM', '  a  '), '  a');
    assert.equal(call('TRIM', 'xxaxyx', 'xy'), 'a');
    assert.equal(call('TRIM', '\ta\t'), '\ta\t');
    assert.equal(call('TRIM', 'abc', ''), 'abc');
    assert.equal(call('TRIM', null), null);
  });
});

describe('SQL QUOTE, UNICODE, CHAR', () => {
  it('QUOTE quotes strings and BLOBs, not numbers or timestamps', () => {
    assert.equal(call('QUOTE', "it's"), "'it''s'");
    assert.equal(call('QUOTE', 12n), '12');
    assert.equal(call('QUOTE', 1.5), '1.5');
    assert.equal(call('QUOTE', blob(0xab, 1)), "X'AB01'");
    assert.equal(call('QUOTE', null), 'NULL');
    assert.equal(call('QUOTE', true), 'true');
    assert.equal(callIn(60, 'QUOTE', [0, 'TIMESTAMP']), '1970-01-01T01:00:00.000+01:00');
  });
  it('UNICODE gives the first code point; CHAR makes text of code points', () => {
    assert.equal(call('UNICODE', '😀x'), 0x1f600n);
    assert.equal(call('UNICODE', ''), null);
    assert.equal(call('CHAR', 72n, 105n, 0x1f600n), 'Hi😀');
    assert.equal(call('CHAR'), '');
    assert.equal(call('CHAR', -1n, 0x110000n, 0xd800n), '\uFFFD\uFFFD\uFFFD');
    assert.equal(call('CHAR', 65n, null), null);
  });
});
