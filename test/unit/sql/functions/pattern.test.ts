import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem, assertThrowsCode, call, typeOf } from './function-test-helpers.ts';

describe('SQL LIKE(pattern, str[, escape])', () => {
  it('is case-insensitive for ASCII letters, with % and _', () => {
    assert.equal(call('LIKE', 'ab%', 'ABC'), true);
    assert.equal(call('LIKE', 'A_C', 'abc'), true);
    assert.equal(call('LIKE', 'a_c', 'abbc'), false);
    assert.equal(call('LIKE', '%', ''), true);
    assert.equal(call('LIKE', '', ''), true);
    assert.equal(call('LIKE', '', 'a'), false);
    assert.equal(call('LIKE', 'é', 'É'), false); // only ASCII folds
    assert.equal(call('LIKE', '%b%', 'aXbY'), true);
  });
  it('takes an escape character', () => {
    assert.equal(call('LIKE', 'a!%', 'a%', '!'), true);
    assert.equal(call('LIKE', 'a!%', 'ab', '!'), false);
    assert.equal(call('LIKE', 'a!_c', 'a_C', '!'), true);
    assertThrowsCode(() => call('LIKE', 'a', 'a', 'xy'), 'SQL_PROC_INVALID_EXPRESSION_INPUT');
  });
  it('is NULL when an argument is NULL and refuses non-strings', () => {
    assert.equal(call('LIKE', null, 'a'), null);
    assert.equal(call('LIKE', 'a', null), null);
    assert.equal(typeOf('LIKE', 'a', 'b'), 'BOOL');
    assertProblem(typeOf('LIKE', 'a', 1n));
  });
});

describe('SQL GLOB(pattern, str)', () => {
  it('is case-sensitive with *, ?, sets and ranges', () => {
    assert.equal(call('GLOB', 'a*', 'abc'), true);
    assert.equal(call('GLOB', 'A*', 'abc'), false);
    assert.equal(call('GLOB', 'a?c', 'abc'), true);
    assert.equal(call('GLOB', '[abc]x', 'bx'), true);
    assert.equal(call('GLOB', '[a-e]x', 'fx'), false);
    assert.equal(call('GLOB', '[^a-e]x', 'fx'), true);
    assert.equal(call('GLOB', '[]]', ']'), true);
    assert.equal(call('GLOB', '*b*c', 'abxbc'), true);
    assert.equal(call('GLOB', '[ab', '[ab'), true);
    assert.equal(call('GLOB', '', ''), true);
    assert.equal(call('GLOB', 'a%', 'ab'), false);
    assert.equal(call('GLOB', null, 'ab'), null);
  });
});
