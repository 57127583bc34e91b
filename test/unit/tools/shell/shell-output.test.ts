// gs_sh's printing (tools/shell/shell-output.ts): TIMESTAMP in the shell's time zone with 3, 6 or 9
// fraction digits (§6.3's examples), CSV fields quoted only when needed and NULL empty, the TABLE
// box with cells cut at the result max width; and the statement's words, variables and booleans
// (shell-variables.ts), the statement splitter (shell-script.ts) and the SQL test (shell-sql.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { csvLine, parseTimeZone, tableText, timestampText } from '../../../../tools/shell/shell-output.ts';
import { StatementSplitter } from '../../../../tools/shell/shell-script.ts';
import { isSqlStatement } from '../../../../tools/shell/shell-sql.ts';
import { parseBoolean, splitWords, Variables } from '../../../../tools/shell/shell-variables.ts';

describe('gs_sh output', () => {
  it('prints TIMESTAMP as §6.3 does, in the time zone set', () => {
    const ms = Date.UTC(2018, 10, 7, 12, 30, 0, 417);
    assert.equal(timestampText(ms, 'MILLISECOND', 0), '2018-11-07T12:30:00.417Z');
    assert.equal(timestampText(Date.UTC(2019, 4, 1, 0, 30), 'MILLISECOND', parseTimeZone('+09:00')),
      '2019-05-01T09:30:00.000+09:00');
    assert.equal(timestampText(0, 'MILLISECOND', parseTimeZone('-0530')), '1969-12-31T18:30:00.000-05:30');
    assert.equal(timestampText(BigInt(ms) * 1000n + 123n, 'MICROSECOND', 0), '2018-11-07T12:30:00.417123Z');
    assert.equal(timestampText(BigInt(ms) * 1_000_000n + 5n, 'NANOSECOND', parseTimeZone('Z')),
      '2018-11-07T12:30:00.417000005Z');
    assert.throws(() => parseTimeZone('+25:00'), /settimezone takes/);
  });

  it('a time zone moves the clock and keeps the instant', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 - 86_400_000 }),
      fc.integer({ min: -18 * 60, max: 18 * 60 }), (ms, offsetMinutes) => {
        const text = timestampText(ms, 'MILLISECOND', offsetMinutes);
        assert.equal(Date.parse(text), ms);
      }));
  });

  it('CSV quotes only what needs it; NULL is an empty field, the empty string ""', () => {
    assert.equal(csvLine(['a', 'b,c', 'say "hi"', undefined, '', 'x\ny']), 'a,"b,c","say ""hi""",,"","x\ny"');
  });

  it('a TABLE is boxed, as wide as its widest cell up to the max width', () => {
    assert.equal(tableText(['id', 'name'], [['1', 'abcdefghij'], ['22', undefined]], 8), [
      '+----+----------+', '| id | name     |', '+----+----------+', '| 1  | abcde... |', '| 22 | (NULL)   |',
      '+----+----------+'].join('\n'));
  });
});

describe('gs_sh words, variables, statements', () => {
  it('splits words at spaces; quotes group them and a doubled quote is one', () => {
    assert.deepEqual(splitWords(' putrow c1 \'a b\' "it\'s" \'x\'\'y\' null '), [
      { text: 'putrow', quoted: false }, { text: 'c1', quoted: false }, { text: 'a b', quoted: true },
      { text: 'it\'s', quoted: true }, { text: 'x\'y', quoted: true }, { text: 'null', quoted: false }]);
    assert.throws(() => splitWords('print \'open'), /A quote ' is not closed/);
  });

  it('expands $name; leaves cluster and node variables for their sub-command', () => {
    const variables = new Variables();
    variables.set('a', 'x');
    variables.set('c', { kind: 'cluster', clusterName: 'myCluster', members: '127.0.0.1:10001', nodes: [] });
    assert.equal(variables.expand('print $a$a $c'), 'print xx $c');
    assert.equal(variables.cluster('$c').clusterName, 'myCluster');
    assert.throws(() => variables.expand('$b'), /The variable "b" is not defined/);
    assert.throws(() => variables.node('$c'), /is not a node variable/);
  });

  it('takes GridDB\'s booleans', () => {
    for (const word of ['yes', 'ON', 'true', '1']) assert.equal(parseBoolean(word, 'echo'), true);
    for (const word of ['no', 'off', 'FALSE', '0']) assert.equal(parseBoolean(word, 'echo'), false);
    assert.throws(() => parseBoolean('2', 'echo'), /echo takes one of yes, no/);
  });

  it('joins TQL and SQL lines until ;, other statements are one line', () => {
    const splitter = new StatementSplitter();
    assert.equal(splitter.push('# comment'), undefined);
    assert.equal(splitter.push('print a;b'), 'print a;b');
    assert.equal(splitter.push('tql c1 select *'), undefined);
    assert.ok(splitter.pending);
    assert.equal(splitter.push('  where x > 1;'), 'tql c1 select *\n  where x > 1;');
    assert.equal(splitter.push('SELECT 1'), undefined);
    assert.equal(splitter.push(';'), 'SELECT 1\n;');
    assert.ok(isSqlStatement('explain select 1'));
    assert.ok(!isSqlStatement('selectx'));
    assert.ok(!isSqlStatement('set password x'));
  });
});
