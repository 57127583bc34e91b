// gs_sh's container sub-commands in script mode against a real node process
// (tools/shell/commands-container.ts): create (collection, time series), the §6.3 layouts of
// showcontainer, searchcontainer, putrow/removerow with their value rules, the indexes, drop; and
// each one's errors (D20322, D20342, wrong values, types and counts), which change nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNECT, runScriptFile, shellNodeForSuite } from './shell-test-helpers.ts';

describe('gs_sh container sub-commands', { timeout: 300_000 }, () => {
  const shell = shellNodeForSuite();

  it('creates, lists, shows, indexes and drops containers in GridDB\'s layouts', async () => {
    const run = await runScriptFile([...CONNECT,
      'createcollection c1 id INTEGER name STRING ts TIMESTAMP(6) tags STRING_ARRAY',
      'createtimeseries t1 NO ts TIMESTAMP v DOUBLE',
      'showcontainer',
      'createindex c1 name TREE',
      'showtable c1',
      'searchcontainer c%',
      'searchcontainer _1',
      'dropindex c1 name TREE',
      'showcontainer c1',
      'dropcontainer t1',
      'showcontainer',
    ], shell.env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const out = run.stdout;
    assert.match(out, /Database : public\nName {17}Type {8}PartitionId\n-{45}\nc1 {19}COLLECTION +\d+\nt1 {19}TIME_SERIES +\d+\n/);
    assert.match(out, /Database {4}: public\nName {8}: c1\nType {8}: COLLECTION\nPartition ID: \d+\nDataAffinity: -\n\nColumns:\n/);
    assert.match(out, /No {2}Name {18}Type {12}CSTR {2}RowKey\n-{78}\n 0 {2}id {20}INTEGER {9}NN {4}\[RowKey\]\n 1 {2}name {18}STRING\n 2 {2}ts {20}TIMESTAMP\(6\)\n 3 {2}tags {18}STRING\[\]\n\nIndexes:\nName {8}:\nType {8}: TREE\nColumns:\nNo {2}Name\n-{26}\n 0 {2}name\n/);
    // searchcontainer c% and _1 (t1 and c1 both), then the detail without the index, then the list without t1.
    assert.match(out, /\n c1\nc1\nt1\n|\nc1\nc1\nt1\n/);
    const afterDrop = out.slice(out.lastIndexOf('Database : public'));
    assert.doesNotMatch(afterDrop, /t1/);
    assert.match(out, / 3 {2}tags {18}STRING\[\]\nDatabase : public/);
  });

  it('searchview lists the views matching a pattern, and searchcontainer none of them', async () => {
    const run = await runScriptFile([...CONNECT,
      'createcollection vsrc id INTEGER v DOUBLE',
      'CREATE VIEW view_a1 AS SELECT id FROM vsrc;',
      'CREATE VIEW view_b1 AS SELECT v FROM vsrc;',
      'print ---',
      'searchview view_a%',
      'print ---',
      'searchview',
      'print ---',
      'searchcontainer v%',
      'DROP VIEW view_a1;',
      'DROP VIEW view_b1;',
      'dropcontainer vsrc',
    ], shell.env);
    assert.equal(run.code, 0, run.stderr);
    const parts = run.stdout.split('---\n').slice(1);
    assert.deepEqual(parts.map((part) => part.trim()), ['view_a1', 'view_a1\nview_b1', 'vsrc']);
  });

  it('refuses what cannot be done, with GridDB\'s messages, and changes nothing', async () => {
    const run = await runScriptFile([...CONNECT,
      'createcollection d1 id INTEGER v DOUBLE',
      'errexit false',
      'createcollection d1 id INTEGER',
      'createtimeseries d2 SS ts TIMESTAMP v DOUBLE',
      'createcollection d3 id NOSUCHTYPE',
      'createcollection d4 id',
      'dropcontainer nosuch',
      'showcontainer nosuch',
      'createindex nosuch id TREE',
      'createindex d1 v HASH',
      'putrow nosuch 1',
      'putrow d1 1',
      'putrow d1 x 1.5',
      'putrow d1 1 1.5',
      'removerow d1 1 2',
      'showcontainer',
    ], shell.env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '');
    const expected = [
      /^D20322: This Container "d1" already exists\. \(.*:5\)$/,
      /^The compression method SS is not supported: only NO \(GridDB 5\.0 removed SS and HI\)\. \(.*:6\)$/,
      /NOSUCHTYPE.*\(.*:7\)$/,
      /^The arguments of createcollection are wrong\. Usage: createcollection <name> <column> <type>.*\(.*:8\)$/,
      /^D20342: This container "nosuch" does not exists\. \(.*:9\)$/,
      /^D20342: This container "nosuch" does not exists\. \(.*:10\)$/,
      /^D20342: This container "nosuch" does not exists\. \(.*:11\)$/,
      /^The index type HASH is not supported: TREE or SPATIAL\. \(.*:12\)$/,
      /^D20342: This container "nosuch" does not exists\. \(.*:13\)$/,
      /^putrow: d1 has 2 columns \(id, v\); 1 values were given\. \(.*:14\)$/,
      /^Column "id" \(INTEGER\): expected INTEGER .*found "x"\. \(.*:15\)$/,
      /^removerow: the key of d1 has 1 columns; 2 values were given\. \(.*:17\)$/,
    ];
    assert.equal(errors.length, expected.length, run.stderr);
    errors.forEach((line, i) => assert.match(line, expected[i]!));
    assert.match(run.stdout, /\nd1 +COLLECTION +\d+\n?$/);
    assert.doesNotMatch(run.stdout, /d2|d3|d4/);
  });

  it('putrow writes quoted text, null and typed values; removerow deletes by key', async () => {
    const run = await runScriptFile([...CONNECT,
      'createcollection r1 k STRING n LONG b BOOL ts TIMESTAMP a INTEGER_ARRAY',
      'putrow r1 \'key one\' 9007199254740993 true 2024-05-01T10:00:00.5Z [1,2]',
      'putrow r1 \'it\'\'s\' null false 2024-05-01T00:00:00+09:00 null',
      'putrow r1 k3 -1 false 1970-01-01T00:00:00Z []',
      'removerow r1 k3',
      'removerow r1 nosuchkey',
      'setresultformat CSV',
      'tql r1 select * order by k;',
      'get',
    ], shell.env);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(['k,n,b,ts,a',
      'it\'s,(NULL),false,2024-04-30T15:00:00.000Z,(NULL)',
      'key one,9007199254740993,true,2024-05-01T10:00:00.500Z,"[1,2]"',
      'The 2 results had been acquired.'].join('\n')), run.stdout);
  });
});
