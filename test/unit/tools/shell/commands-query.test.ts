// gs_sh's query sub-commands in script mode against a real node process
// (tools/shell/commands-query.ts, shell-result.ts): tql's `{n} results. ({ms} ms)`, get as a TABLE
// and as CSV (`(NULL)`), get n continuing where the last stopped, getcsv (NULL an empty field),
// getnoprint, getval, tqlclose, the explain commands, a TQL statement over several lines, the
// settings that shape the output (settimezone, setresultmaxwidth, setfetchsize), and the errors.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../node/node-process.ts';
import { CONNECT, newShellHome, runScriptFile, shellEnv } from './shell-test-helpers.ts';

const SETUP = [...CONNECT,
  'createcollection q1 id INTEGER name STRING ts TIMESTAMP',
  'putrow q1 1 \'one\' 2024-01-01T00:00:00Z',
  'putrow q1 2 null 2024-01-01T00:00:01.250Z',
  'putrow q1 3 \'a, "quoted" text\' 2024-01-01T00:00:02Z',
];

describe('gs_sh query sub-commands', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let env: NodeJS.ProcessEnv;
  let home: string;

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    home = newShellHome();
    env = shellEnv(node, home);
    const setup = await runScriptFile(SETUP, env);
    assert.equal(setup.code, 0, setup.stderr);
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  it('tql counts, get prints a TABLE then CSV, get n goes on from where it stopped', async () => {
    const run = await runScriptFile([...CONNECT,
      'tql q1 select *',
      '  where id > 0',
      '  order by id;',
      'get 1',
      'setresultformat CSV',
      'get',
      'get',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\n3 results\. \(\d+ ms\)\n/);
    assert.ok(run.stdout.includes([
      '+----+------+--------------------------+',
      '| id | name | ts                       |',
      '+----+------+--------------------------+',
      '| 1  | one  | 2024-01-01T00:00:00.000Z |',
      '+----+------+--------------------------+',
      'The 1 results had been acquired.',
      'id,name,ts',
      '2,(NULL),2024-01-01T00:00:01.250Z',
      '3,"a, ""quoted"" text",2024-01-01T00:00:02.000Z',
      'The 2 results had been acquired.',
      'The 0 results had been acquired.',
    ].join('\n')), run.stdout);
  });

  it('tql runs the query once: get pages through the rows it counted, not those of a later write', async () => {
    // The rows are kept in a file under TMPDIR, removed when the shell lets the result go.
    const temporary = mkdtempSync(join(home, 'tmp-'));
    const run = await runScriptFile([...CONNECT,
      'createcollection q2 id INTEGER',
      'putrow q2 2',
      'putrow q2 3',
      'setfetchsize 1',
      'tql q2 select * order by id;',
      'putrow q2 1',
      'setresultformat CSV',
      'get 1',
      'get',
      'tql q2 select max(id);',
      'get',
      'dropcontainer q2',
    ], { ...env, TMPDIR: temporary });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('2 results. '), run.stdout);
    assert.match(run.stdout, /\n1 results\. \(\d+ ms\)\n\S+\n3\nThe 1 results had been acquired\.\n/, 'an aggregation too');
    assert.deepEqual(readdirSync(temporary).filter((name) => name.startsWith('gs_sh-result-')), []);
    assert.ok(run.stdout.includes('id\n2\nThe 1 results had been acquired.\nid\n3\nThe 1 results had been acquired.\n'),
      run.stdout);
  });

  it('getcsv writes CSV with NULL as an empty field; getnoprint, getval, tqlclose', async () => {
    const csv = join(home, 'q1.csv');
    const run = await runScriptFile([...CONNECT,
      'tql q1 select * order by id;',
      `getcsv ${csv}`,
      'tql q1 select * order by id desc;',
      'getnoprint 1',
      'getval id name',
      'print id=$id name=$name',
      'tqlclose',
      'errexit false',
      'get',
    ], env);
    assert.equal(run.code, 1);
    assert.equal(readFileSync(csv, 'utf8'), ['id,name,ts', '1,one,2024-01-01T00:00:00.000Z',
      '2,,2024-01-01T00:00:01.250Z', '3,"a, ""quoted"" text",2024-01-01T00:00:02.000Z', ''].join('\n'));
    assert.ok(run.stdout.includes('The 3 results had been acquired.\n3 results.'), run.stdout);
    assert.ok(run.stdout.includes('The 1 results had been acquired.\nThe 1 results had been acquired.\n' +
      'id=2 name=\n'), run.stdout);
    assert.match(run.stderr, /^D20304: This query has not been executed yet\. \(.*:11\)\n$/);
  });

  it('settimezone, setresultmaxwidth and setfetchsize shape the output', async () => {
    const run = await runScriptFile([...CONNECT,
      'settimezone +09:00',
      'setresultmaxwidth 8',
      'setfetchsize 1',
      'tql q1 select * where id = 3;',
      'get',
      'settimezone -0530',
      'setresultformat CSV',
      'tql q1 select * where id = 1;',
      'get',
      'settimezone',
      'tql q1 select * where id = 1;',
      'get',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('| 3  | a, \"q... | 2024-... |'), run.stdout);
    assert.ok(run.stdout.includes('id,name,ts\n1,one,2023-12-31T18:30:00.000-05:30\n'), run.stdout);
    assert.ok(run.stdout.includes('id,name,ts\n1,one,2024-01-01T00:00:00.000Z\n'), run.stdout);
  });

  it('tqlexplain prints the plan as CSV; tqlanalyze runs it', async () => {
    const run = await runScriptFile([...CONNECT,
      'tqlexplain q1 select * where id > 1;',
      'tqlanalyze q1 select * where id > 1;',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /ID,DEPTH,TYPE,VALUE_TYPE,VALUE,STATEMENT\n/);
  });

  it('says what is wrong: no query yet, no container, a bad query, bad numbers', async () => {
    const run = await runScriptFile([...CONNECT,
      'errexit false',
      'get',
      'tql nosuch select *;',
      'tql q1 select * where;',
      'tql q1',
      'setfetchsize 0',
      'setfetchsize 100001',
      'setresultformat XML',
      'settimezone 9',
      'get x',
      'getval',
    ], env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '');
    const expected = [
      /^D20304: This query has not been executed yet\. \(.*:4\)$/,
      /^D20342: This container "nosuch" does not exists\. \(.*:5\)$/,
      /^[A-Z_]+: .*\(.*:6\)$/,
      /^The arguments of tql are wrong\. Usage: tql <container> <query>;|^The statement is not ended by ;/,
    ];
    for (const [i, pattern] of expected.entries()) assert.match(errors[i] ?? '', pattern, run.stderr);
  });

  it('a statement missing its ; at the end of a script says so', async () => {
    const run = await runScriptFile([...CONNECT, 'tql q1 select *'], env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^The statement is not ended by ; \(.*:3\)\n$/);
  });

  it('the bad settings are refused one by one', async () => {
    const run = await runScriptFile(['errexit false', 'setfetchsize 0', 'setfetchsize 100001',
      'setresultformat XML', 'settimezone 9', 'setresultmaxwidth x', 'get x'], env);
    assert.equal(run.code, 1);
    assert.deepEqual(run.stderr.split('\n').filter((line) => line !== '').map((line) => line.replace(/ \(.*:\d+\)$/, '')), [
      'setfetchsize takes a whole number from 1 to 100000; not "0".',
      'setfetchsize takes a whole number from 1 to 100000; not "100001".',
      'setresultformat takes TABLE or CSV; not "XML".',
      'settimezone takes ±hh:mm, ±hhmm, Z or auto; not "9".',
      'setresultmaxwidth takes a whole number from 1 to 1024; not "x".',
      'get takes a number of rows, not "x".',
    ]);
  });
});
