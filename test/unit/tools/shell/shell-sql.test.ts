// gs_sh's SQL in script mode against a real node process (tools/shell/shell-sql.ts): CREATE TABLE
// prints nothing, INSERT/UPDATE/DELETE print GridDB's update count line, a SELECT (bare or with
// `sql`, over several lines) counts its rows and keeps them for get/getcsv/getnoprint/getval
// (setfetchsize 1; the tmux test shows the paging by Ctrl-C), sqlcount FALSE, EXPLAIN's plan for
// getplantxt/getplanjson/gettaskplan, an SQL error printed with its code (the script stops; with errexit false it goes on), and
// showsql printing a statement another result holds half fetched (from "#sqls"), killsql
// cancelling another client's half-fetched SELECT by its query id (its next fetch gets
// SQL_CANCELLED) and answering GridDB's D20367 for an id no statement has.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getStore } from '../../../../lib/client/store-factory.ts';
import { storageError } from '../../engine/engine-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../node/node-process.ts';
import { CONNECT, newShellHome, runScriptFile, shellEnv } from './shell-test-helpers.ts';

function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '');
}

describe('gs_sh SQL', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let env: NodeJS.ProcessEnv;
  let home: string;

  before(async () => {
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    home = newShellHome();
    env = shellEnv(node, home);
    const setup = await runScriptFile([...CONNECT,
      'CREATE TABLE s1 (id INTEGER PRIMARY KEY, name STRING, ts TIMESTAMP);',
      "INSERT INTO s1 VALUES (1, 'one', TIMESTAMP('2024-01-01T00:00:00Z')),",
      "  (2, NULL, TIMESTAMP('2024-01-01T00:00:01.250Z')), (3, 'a, \"quoted\" text', NULL);",
    ], env);
    assert.equal(setup.code, 0, setup.stderr);
    assert.equal(setup.stdout, 'The connection attempt was successful(NoSQL).\nThe 3 records had been inserted.\n');
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  it('a SELECT counts its rows; get prints them as a TABLE, then as CSV from where it stopped', async () => {
    const run = await runScriptFile([...CONNECT,
      'SELECT id, name, ts',
      '  FROM s1',
      '  ORDER BY id;',
      'get 1',
      'setresultformat CSV',
      'get',
      'get',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, [
      'The connection attempt was successful(NoSQL).',
      run.stdout.split('\n')[1]!,
      '+----+------+--------------------------+',
      '| id | name | ts                       |',
      '+----+------+--------------------------+',
      '| 1  | one  | 2024-01-01T00:00:00.000Z |',
      '+----+------+--------------------------+',
      'The 1 results had been acquired.',
      'id,name,ts',
      '2,(NULL),2024-01-01T00:00:01.250Z',
      '3,"a, ""quoted"" text",(NULL)',
      'The 2 results had been acquired.',
      'The 0 results had been acquired.',
      '',
    ].join('\n'));
    assert.match(run.stdout.split('\n')[1]!, /^3 results\. \(\d+ ms\)$/);
  });

  it('a SELECT runs once: get pages through the rows it counted, not those of a later write', async () => {
    const run = await runScriptFile([...CONNECT,
      'CREATE TABLE s3 (id INTEGER PRIMARY KEY);',
      'INSERT INTO s3 VALUES (2), (3);',
      'setfetchsize 1',
      'SELECT id FROM s3 ORDER BY id;',
      'putrow s3 1',
      'setresultformat CSV',
      'get',
      'DROP TABLE s3;',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('2 results. '), run.stdout);
    assert.ok(run.stdout.includes('\nid\n2\n3\nThe 2 results had been acquired.\n'), run.stdout);
  });

  it('sql with getcsv, getnoprint and getval, under setfetchsize 1', async () => {
    const csv = join(home, 's1.csv');
    const run = await runScriptFile([...CONNECT,
      'setfetchsize 1',
      'sql select * from s1 order by id;',
      `getcsv ${csv}`,
      'sql SELECT id, name FROM s1 WHERE id >= 2 ORDER BY id DESC;',
      'getnoprint 1',
      'getval id name',
      'print id=$id name=$name',
    ], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(csv, 'utf8'), ['id,name,ts', '1,one,2024-01-01T00:00:00.000Z',
      '2,,2024-01-01T00:00:01.250Z', '3,"a, ""quoted"" text",', ''].join('\n'));
    assert.match(run.stdout, /\n3 results\. \(\d+ ms\)\nThe 3 results had been acquired\.\n2 results\. \(\d+ ms\)\n/);
    assert.ok(run.stdout.endsWith('The 1 results had been acquired.\nThe 1 results had been acquired.\nid=2 name=\n'),
      run.stdout);
  });

  it('UPDATE and DELETE print their counts; DDL prints nothing; sqlcount FALSE does not count', async () => {
    const run = await runScriptFile([...CONNECT,
      'CREATE TABLE s2 (id INTEGER PRIMARY KEY, v DOUBLE);',
      'INSERT INTO s2 VALUES (1, 1.5), (2, 2.5), (3, 3.5);',
      'UPDATE s2 SET v = v * 2 WHERE id >= 2;',
      'sql DELETE FROM s2 WHERE id = 1;',
      'sqlcount FALSE',
      'select v from s2 order by id;',
      'setresultformat CSV',
      'get',
      'DROP TABLE s2;',
      'get',
    ], env);
    assert.equal(run.code, 1);
    assert.equal(run.stdout.replace(/\(\d+ ms\)/g, '(ms)'), [
      'The connection attempt was successful(NoSQL).',
      'The 3 records had been inserted.',
      'The 2 records had been updated.',
      'The 1 records had been deleted.',
      'The query had been executed. (ms)',
      'v', '5', '7',
      'The 2 results had been acquired.',
      '',
    ].join('\n'));
    // DROP TABLE let the last result go.
    assert.match(run.stderr, /^D20304: This query has not been executed yet\. \(.*:12\)\n$/);
  });

  it('an SQL error prints its code and message: the script stops there, or goes on with errexit false', async () => {
    const stopped = await runScriptFile([...CONNECT, 'SELEC * FROM s1;', 'print not reached'], env);
    assert.equal(stopped.code, 1);
    assert.doesNotMatch(stopped.stdout, /not reached/);
    const run = await runScriptFile([...CONNECT,
      'errexit false',
      'select * fro s1;',
      'sql select nosuch from s1;',
      'INSERT INTO s1 VALUES (1, \'again\', NULL);',
      'select count(*) from s1;',
      'get',
    ], env);
    assert.equal(run.code, 1);
    const errors = errorLines(run.stderr);
    assert.equal(errors.length, 3, run.stderr);
    assert.match(errors[0]!, /^SQL_COMPILE_SYNTAX_ERROR: syntax error at line 1, column 10: .*found "fro" \(\S+:4\)$/);
    assert.match(errors[1]!, /^[A-Z_]+: .*nosuch.*\(\S+:5\)$/);
    assert.match(errors[2]!, /^ROW_INVALID: .*\(\S+:6\)$/);
    // The failed INSERT changed nothing and the shell went on.
    assert.match(run.stdout, /\n1 results\. \(\d+ ms\)\n[\s\S]*\| 3 +\|\n/);
  });

  it('EXPLAIN keeps its plan for getplantxt, getplanjson and gettaskplan', async () => {
    const planFile = join(home, 'plan.json');
    const run = await runScriptFile([...CONNECT,
      'errexit false',
      'getplantxt',
      'EXPLAIN ANALYZE SELECT name FROM s1 WHERE id > 1 ORDER BY name;',
      'get',
      'getplantxt',
      `getplanjson ${planFile}`,
      'gettaskplan 0',
      'gettaskplan 99',
    ], env);
    assert.equal(run.code, 1);
    const plan = (JSON.parse(readFileSync(planFile, 'utf8')) as { nodeList: Array<Record<string, unknown>> }).nodeList;
    assert.ok(plan.some((node) => node.type === 'SORT'), JSON.stringify(plan));
    assert.equal(plan.at(-1)!['type'], 'RESULT');
    assert.equal(plan[0]!['type'], 'SCAN');
    assert.deepEqual(plan[0]!['profile'], { rows: 2 });
    // get prints the plan's rows as CSV (GridDB's rule for EXPLAIN) although the format is TABLE.
    assert.match(run.stdout, new RegExp(`\\n${plan.length} results\\. \\(\\d+ ms\\)\\n[^\\n+|]+\\n"\\{""id"":0,""type"":""SCAN""`));
    assert.match(run.stdout, /\nId Type +Input +Rows And more\.\.\n-+\n 0 SCAN +- +2 \{"table":"s1"/);
    assert.match(run.stdout, /\n\{\n {2}"id": 0,\n {2}"type": "SCAN",/);
    const errors = errorLines(run.stderr);
    assert.match(errors[0]!, /^There is no SQL plan: run EXPLAIN or EXPLAIN ANALYZE with sql first\./);
    assert.match(errors[1]!, new RegExp(`^gettaskplan: the last plan has no node "99" \\(its ids are 0 to ${plan.length - 1}\\)`));
    assert.equal(errors.length, 2, run.stderr);
  });

  it('showsql prints a half-fetched SELECT from "#sqls"; killsql of an id no statement has is D20367', async () => {
    const run = await runScriptFile([...CONNECT, 'setfetchsize 1', 'sqlcount FALSE',
      'SELECT id FROM s1 WHERE id > 0;', 'showsql', 'errexit false', 'showsql 999999', 'killsql 1'], env);
    assert.equal(run.code, 1, run.stderr);
    const blocks = run.stdout.split('='.repeat(71)).slice(1);
    assert.equal(blocks.length, 1, run.stdout);
    assert.match(blocks[0]!, /^\nquery id: [0-9a-f-]{36}:\d+\nstart time: \d{4}-\d\d-\d\dT[\d:.]+Z\nelapsed time: \d+\n/);
    assert.match(blocks[0]!, new RegExp(`\ndatabase name: public\napplication name: [^\n]*\nnode: 127\\.0\\.0\\.1:` +
      `${node.transactionPort}\nsql: SELECT id FROM s1 WHERE id > 0\n#-+\n$`));
    const errors = errorLines(run.stderr);
    assert.match(errors[0]!, /^D20367: This query "query id=\[1\]" does not exists\./);
    assert.equal(errors.length, 1, run.stderr);
  });

  it('killsql cancels another client\'s running SELECT by its query id: its next fetch is SQL_CANCELLED', async () => {
    const client = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'victim',
    });
    try {
      const reading = await client.sql('SELECT id FROM s1 WHERE id >= 0', [], { fetchSize: 1 });
      await reading.next();
      const [[queryId]] = await (await client.sql(
        'SELECT QUERY_ID FROM "#sqls" WHERE APPLICATION_NAME = \'victim\' AND SQL LIKE \'%id >= 0\'')).toArray() as
        [[string]];
      const run = await runScriptFile([...CONNECT, `killsql ${String(queryId)}`, 'showsql'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'The connection attempt was successful(NoSQL).\n');
      await assert.rejects(reading.toArray(), storageError('SQL_CANCELLED', /cancelled/));
      assert.deepEqual(await (await client.sql('SELECT COUNT(*) FROM s1')).toArray(), [[3n]]);
    } finally {
      await client.close();
    }
  });
});
