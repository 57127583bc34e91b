import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TQL_TEXT_LENGTH_MAX } from '../../../lib/base/limits.ts';
import { tqlTokenize, type TqlToken } from '../../../lib/query/tql/lexer.ts';
import { tqlError } from './tql-test-helpers.ts';

function kinds(text: string): string[] {
  return tqlTokenize(text).map((token) => describeToken(token));
}

function describeToken(token: TqlToken): string {
  switch (token.kind) {
    case 'identifier':
      return token.quoted ? `"${token.text}"` : `id:${token.text}`;
    case 'integer':
      return `int:${token.value}`;
    case 'float':
      return `float:${token.value}`;
    case 'string':
      return `str:${token.value}`;
    case 'blob':
      return `blob:${Buffer.from(token.value).toString('hex')}`;
    case 'operator':
      return token.text;
    case 'end':
      return 'end';
  }
}

describe('TQL lexer', () => {
  it('splits a query into identifiers, numbers, strings and operators', () => {
    assert.deepEqual(kinds("SELECT * WHERE a>=1.5e3 AND b<>'it''s' OR c!=-7"), [
      'id:SELECT',
      '*',
      'id:WHERE',
      'id:a',
      '>=',
      'float:1500',
      'id:AND',
      'id:b',
      '<>',
      "str:it's",
      'id:OR',
      'id:c',
      '!=',
      '-',
      'int:7',
      'end',
    ]);
  });

  it('reads every operator, the longest first', () => {
    assert.deepEqual(kinds('== <> != <= >= << >> ( ) , . ; * / % + - = < > & |'), [
      '==',
      '<>',
      '!=',
      '<=',
      '>=',
      '<<',
      '>>',
      '(',
      ')',
      ',',
      '.',
      ';',
      '*',
      '/',
      '%',
      '+',
      '-',
      '=',
      '<',
      '>',
      '&',
      '|',
      'end',
    ]);
  });

  it('reads numbers of every form; integers of any size as bigints', () => {
    assert.deepEqual(kinds('0 42 9223372036854775808 1. .5 2.5E-1 1e2'), [
      'int:0',
      'int:42',
      'int:9223372036854775808',
      'float:1',
      'float:0.5',
      'float:0.25',
      'float:100',
      'end',
    ]);
  });

  it('reads quoted names with doubled quotes, and keeps their case', () => {
    assert.deepEqual(kinds('"my-col" "Say ""hi""" x'), ['"my-col"', '"Say "hi""', 'id:x', 'end']);
  });

  it('reads BLOB literals', () => {
    assert.deepEqual(kinds("X'0aFF' x''"), ['blob:0aff', 'blob:', 'end']);
  });

  it('skips -- and /* */ comments and tracks lines and columns', () => {
    const tokens = tqlTokenize('SELECT -- all\n  * /* every\nrow */ WHERE');
    assert.deepEqual(
      tokens.map((token) => [token.position.line, token.position.column]),
      [
        [1, 1],
        [2, 3],
        [3, 8],
        [3, 13],
      ],
    );
    assert.equal(tokens[2]!.position.offset, 'SELECT -- all\n  * /* every\nrow */ '.length);
  });

  it('rejects what is not TQL, at its position', () => {
    assert.throws(
      () => tqlTokenize("a = 'open"),
      tqlError('TQL_SYNTAX', { column: 5 }, /not closed/),
    );
    assert.throws(
      () => tqlTokenize('a = "open'),
      tqlError('TQL_SYNTAX', { column: 5 }, /not closed/),
    );
    assert.throws(
      () => tqlTokenize('/* open'),
      tqlError('TQL_SYNTAX', { column: 1 }, /not closed/),
    );
    assert.throws(
      () => tqlTokenize('a ? b'),
      tqlError('TQL_SYNTAX', { column: 3 }, /unexpected character "\?"/),
    );
    assert.throws(() => tqlTokenize('a\0'), tqlError('TQL_SYNTAX', { column: 2 }, /NUL/));
    assert.throws(() => tqlTokenize("'a\0'"), tqlError('TQL_SYNTAX', { column: 1 }, /NUL/));
    assert.throws(
      () => tqlTokenize('x = 12ab'),
      tqlError('TQL_SYNTAX', { column: 5 }, /runs into a name/),
    );
    assert.throws(() => tqlTokenize('1e+'), tqlError('TQL_SYNTAX', { column: 1 }, /exponent/));
    assert.throws(() => tqlTokenize("X'abc'"), tqlError('TQL_SYNTAX', { column: 1 }, /hex/));
    assert.throws(() => tqlTokenize('""'), tqlError('TQL_SYNTAX', { column: 1 }, /empty/));
  });

  it('refuses a query longer than TQL_TEXT_LENGTH_MAX', () => {
    assert.throws(
      () => tqlTokenize(' '.repeat(TQL_TEXT_LENGTH_MAX + 1)),
      tqlError('LIMIT_EXCEEDED'),
    );
    assert.equal(tqlTokenize(' '.repeat(TQL_TEXT_LENGTH_MAX)).length, 1);
  });
});
