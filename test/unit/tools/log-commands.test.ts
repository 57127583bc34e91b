// gs_logconf and gs_logs as child processes against a real node process: gs_logconf lists every
// trace category's level (GET /node/trace) and sets one in the running node (POST /node/trace),
// which then writes, or no longer writes, that category's lines (`connection`: a TCP connection
// to the transaction service); gs_logs prints the newest event log lines (GET /node/log), the
// last -l of them, those with SEARCH_STR1 [SEARCH_STR2] and without -g; GridDB's messages and
// exit codes for an unknown category or level and a bad -l; each command's log in GS_LOG with
// the password masked.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { TRACE_CATEGORIES } from '../../../lib/config/trace-config.ts';
import {
  newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

/** Polls of GET /node/log before a line that must come is given up on (100 ms apart). */
const LINE_POLL_COUNT_MAX = 300;

describe('log commands', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome());
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  function command(name: string, args: readonly string[]): Promise<ToolRun> {
    return runTool(`${name}.ts`, args, node.env);
  }

  function request(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: unknown }> {
    return fetch(`http://127.0.0.1:${node.systemPort}${path}`, {
      method, headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  }

  /** Opens a TCP connection to the transaction service and closes it; its local port. */
  async function connectOnce(): Promise<number> {
    const socket = connect(node.transactionPort, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const port = socket.localPort!;
    socket.destroy();
    return port;
  }

  async function acceptedLines(): Promise<string[]> {
    const answer = await request('GET', '/node/log?length=1000&searchStr=connection%20accepted');
    assert.equal(answer.status, 200);
    return answer.body as string[];
  }

  it('gs_logconf lists every category\'s level, sorted, indent 4', async () => {
    const result = await command('gs_logconf', user);
    assert.equal(result.code, 0, result.stderr);
    const { levels } = JSON.parse(result.stdout) as { levels: Record<string, string> };
    assert.deepEqual(Object.keys(levels), [...TRACE_CATEGORIES].sort());
    assert.equal(levels['connection'], 'LEVEL_INFO');
    assert.equal(levels['transactionService'], 'LEVEL_ERROR');
    assert.equal(result.stdout, `${JSON.stringify({ levels }, null, 4)}\n`);
  });

  it('gs_logconf sets a category\'s level in the running node: its lines stop, then come back',
    async () => {
      const off = await command('gs_logconf', [...user, 'connection', 'LEVEL_WARNING']);
      assert.deepEqual(off, { code: 0, stdout: '', stderr: '' });
      const listed = await command('gs_logconf', user);
      assert.equal((JSON.parse(listed.stdout) as { levels: Record<string, string> })
        .levels['connection'], 'LEVEL_WARNING');
      const quietPort = await connectOnce();
      // GridDB's names: CONNECTION INFO is connection LEVEL_INFO.
      const on = await command('gs_logconf', [...user, 'CONNECTION', 'INFO']);
      assert.deepEqual(on, { code: 0, stdout: '', stderr: '' });
      const loudPort = await connectOnce();
      // The node accepts connections in order: once the second is in the log, the first has
      // been accepted too, at LEVEL_WARNING, without a line.
      let lines = await acceptedLines();
      for (let poll = 0; !lines.some((line) => line.includes(`:${loudPort}"`)); poll++) {
        assert.ok(poll < LINE_POLL_COUNT_MAX, `no line for port ${loudPort}: ${lines.join('\n')}`);
        await sleep(100);
        lines = await acceptedLines();
      }
      assert.ok(!lines.some((line) => line.includes(`:${quietPort}"`)), lines.join('\n'));
      const line = JSON.parse(lines.find((text) => text.includes(`:${loudPort}"`))!) as
        Record<string, unknown>;
      assert.equal(line['component'], 'connection');
      assert.equal(line['level'], 'INFO');
    });

  it('gs_logs prints the newest lines, the last -l, with SEARCH_STR and without -g', async () => {
    for (const level of ['LEVEL_ERROR', 'LEVEL_INFO']) {
      assert.equal((await command('gs_logconf', [...user, 'ioMonitor', level])).code, 0);
    }
    const all = await command('gs_logs', user);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.trimEnd().split('\n');
    assert.ok(lines.length >= 3 && lines.length <= 30, all.stdout);
    for (const line of lines) assert.equal(typeof JSON.parse(line), 'object');
    assert.match(lines.at(-1)!, /"msg":"trace level changed"/);
    assert.match(all.stdout, /"msg":"node started"/);

    const two = await command('gs_logs', [...user, '-l', '2']);
    assert.deepEqual(two.stdout.trimEnd().split('\n'), lines.slice(-2));

    const changed = await command('gs_logs', [...user, 'trace level changed', 'ioMonitor']);
    assert.equal(changed.code, 0, changed.stderr);
    const changes = changed.stdout.trimEnd().split('\n').map((line) =>
      JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(changes.map((change) => [change['msg'], change['category'], change['traceLevel']]),
      [['trace level changed', 'ioMonitor', 'LEVEL_ERROR'], ['trace level changed', 'ioMonitor', 'LEVEL_INFO']]);

    const ignored = await command('gs_logs', [...user, '-g', 'LEVEL_ERROR', 'trace level changed',
      'ioMonitor']);
    assert.equal(ignored.stdout.trimEnd().split('\n').length, 1, ignored.stdout);
    assert.match(ignored.stdout, /"traceLevel":"LEVEL_INFO"/);

    assert.deepEqual(await command('gs_logs', [...user, 'no line has this']),
      { code: 0, stdout: '', stderr: '' });
  });

  it('an unknown category or level, a bad -l: GridDB\'s messages and exit codes', async () => {
    const cases: Array<[string, string[], number, RegExp]> = [
      ['gs_logconf', [...user, 'noSuchCategory', 'LEVEL_INFO'], 1,
        /^A00100: Request error occurred\. \(400: unknown trace category noSuchCategory: GET \/node\/trace \(gs_logconf\) lists them\)$/m],
      ['gs_logconf', [...user, 'connection', 'LOUD'], 2,
        /^Specify one of LEVEL_CRITICAL, LEVEL_ERROR, LEVEL_WARNING, LEVEL_INFO, LEVEL_DEBUG for LEVEL\.\(LOUD\)$/m],
      ['gs_logconf', [...user, 'connection'], 2, /^Specify a level for the category connection\.$/m],
      ['gs_logconf', [...user, 'a', 'b', 'c'], 2, /^Too many arguments: a b c \(at most 2\)\.$/m],
      ['gs_logs', [...user, '-l', '0'], 2, /^Specify a whole number from 1 to 1000 for -l\.\(-l 0\)$/m],
      ['gs_logs', [...user, '-l', 'ten'], 2, /^Specify a whole number from 1 to 1000 for -l\.\(-l ten\)$/m],
      ['gs_logs', [...user, '--slowlogs', '--tracestats'], 2,
        /^Give one of --slowlogs and --tracestats, not both\.$/m],
      ['gs_logs', [...user, '--slowlogs', 'a', 'b'], 2,
        /^With --slowlogs, give at most one SEARCH_STR\.$/m],
      ['gs_logs', ['-u', 'admin/wrong', '-s', `127.0.0.1:${node.systemPort}`], 1,
        /^A00102: Authentication failed\.$/m],
    ];
    for (const [name, args, code, message] of cases) {
      const result = await command(name, args);
      assert.equal(result.code, code, `${name} ${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `${name} ${args.join(' ')}`);
    }
    // The node checks too, for any client of the API.
    const badLevel = await request('POST', '/node/trace?category=connection&level=LOUD');
    assert.equal(badLevel.status, 400);
    assert.match((badLevel.body as { reason: string }).reason, /^unknown trace level LOUD: one of /);
    assert.equal((await request('GET', '/node/log?length=1001')).status, 400);
    const levels = (await request('GET', '/node/trace')).body as { levels: Record<string, string> };
    assert.equal(levels.levels['connection'], 'LEVEL_INFO');
  });

  it('logs each run to $GS_LOG/<command>.log with the password masked', async () => {
    for (const name of ['gs_logconf', 'gs_logs']) {
      const text = readFileSync(join(node.env['GS_LOG']!, `${name}.log`), 'utf8');
      assert.match(text, /start\. \(args: -u admin\/\*\*\* -s 127\.0\.0\.1:\d+/, name);
      assert.match(text, /end\. \(exit code 0\)/, name);
      assert.doesNotMatch(text, /admin\/admin|admin\/wrong/, name);
    }
  });
});
