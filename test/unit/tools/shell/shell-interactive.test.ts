// gs_sh at a terminal, driven as a person would (tools/shell/shell-interactive.ts): gs_sh runs in a
// tmux pane (a pseudo-terminal; Debian's `tmux`, which .ci/run installs) against a real node
// process; the test types sub-commands, TQL and SQL, presses Tab, Enter, Up and Ctrl-C, and reads the
// screen (`tmux capture-pane`). Every wait for the screen is bounded; the tmux server is the
// test's own (its socket in a temporary folder) and is ended by the test.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { getStore } from '../../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../node/node-process.ts';
import { GS_SH, newShellHome, shellEnv } from './shell-test-helpers.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCREEN_WAIT_MS = 30_000;
const SCREEN_POLL_MS = 100;
const SCREEN_ROWS = 30;
const SCREEN_COLUMNS = 120;
/** Rows of the container the long query reads one row per request (setfetchsize 1). */
const BIG_ROW_COUNT = 30_000;
const SESSION = 'gssh';

/** A tmux server of the test's own, with one session running gs_sh. */
class Terminal {
  private readonly directory = mkdtempSync(join(tmpdir(), 'store-tmux-'));
  private readonly socket = join(this.directory, 'tmux.sock');

  tmux(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('tmux', ['-S', this.socket, ...args], { env: { ...process.env, TERM: 'xterm-256color' }, timeout: 10_000 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`tmux ${args.join(' ')}: ${stderr}`))));
    });
  }

  async start(env: NodeJS.ProcessEnv): Promise<void> {
    const variables = ['GS_HOME', 'GS_LOG', 'HOME'].map((name) => `${name}=${env[name]!}`);
    await this.tmux(['new-session', '-d', '-s', SESSION, '-x', String(SCREEN_COLUMNS), '-y', String(SCREEN_ROWS),
      '-c', ROOT, 'env', ...variables, 'TERM=xterm-256color', process.execPath, '--import', 'tsx', GS_SH]);
  }

  /** Types `text` (literally: tmux would take a final ; as its own separator) and presses Enter. */
  async line(text: string): Promise<void> {
    await this.type(text);
    await this.keys('Enter');
  }

  async type(text: string): Promise<void> {
    await this.tmux(['send-keys', '-t', SESSION, '-l', text.replace(/;$/, '\\;')]);
  }

  async keys(...names: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', SESSION, ...names]);
  }

  async screen(): Promise<string> {
    return (await this.tmux(['capture-pane', '-p', '-t', SESSION])).replace(/\s+$/, '');
  }

  /** Waits until the screen matches; fails with the screen after SCREEN_WAIT_MS. */
  async waitFor(pattern: RegExp): Promise<string> {
    const deadlineMs = Date.now() + SCREEN_WAIT_MS;
    let screen = '';
    while (Date.now() < deadlineMs) {
      screen = await this.screen();
      if (pattern.test(screen)) return screen;
      await sleep(SCREEN_POLL_MS);
    }
    throw new Error(`the screen never matched ${pattern}:\n${screen}`);
  }

  /** Waits until gs_sh has ended (the session, and with it the server, ends). */
  async waitForEnd(): Promise<void> {
    const deadlineMs = Date.now() + SCREEN_WAIT_MS;
    while (Date.now() < deadlineMs) {
      if (await this.tmux(['has-session', '-t', SESSION]).then(() => false, () => true)) return;
      await sleep(SCREEN_POLL_MS);
    }
    throw new Error(`gs_sh did not end:\n${await this.screen()}`);
  }

  async close(): Promise<void> {
    await this.tmux(['kill-server']).catch(() => undefined);
    rmSync(this.directory, { recursive: true, force: true });
  }
}

describe('gs_sh at a terminal (tmux)', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let env: NodeJS.ProcessEnv;
  let home: string;

  before(async () => {
    await new Promise<void>((resolve, reject) => execFile('tmux', ['-V'], (error) => (error === null ? resolve()
      : reject(new Error('tmux is needed for this test: apt-get install -y tmux')))));
    node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    home = newShellHome();
    env = shellEnv(node, home);
    const store = getStore({ notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin' });
    try {
      const big = await store.putContainer({ name: 'big', type: 'COLLECTION', rowKey: true,
        columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE' }] });
      for (let first = 0; first < BIG_ROW_COUNT; first += 5000) {
        await big.multiPut(Array.from({ length: 5000 }, (_, i) => [first + i, (first + i) / 2]));
      }
    } finally {
      await store.close();
    }
  });

  after(async () => {
    await node?.stop();
    if (node !== undefined) removeHome(node.home);
  });

  it('connects, completes with Tab, runs TQL over two lines, pages a result, and Ctrl-C cancels a long query', async () => {
    const terminal = new Terminal();
    try {
      await terminal.start(env);
      await terminal.waitFor(/^gs>$/m);
      await terminal.line('setuser admin admin');
      await terminal.line('connect');
      await terminal.waitFor(/The connection attempt was successful\(NoSQL\)\.\ngs\[public\]>$/);

      // Tab completes the sub-command, then the container name (listed from the node).
      await terminal.type('showcont');
      await terminal.keys('Tab');
      await terminal.waitFor(/gs\[public\]> showcontainer$/);
      await terminal.type('bi');
      await terminal.keys('Tab');
      await terminal.waitFor(/gs\[public\]> showcontainer big$/);
      await terminal.keys('Enter');
      await terminal.waitFor(/Name {8}: big\n[\s\S]* 1 {2}v {21}DOUBLE\ngs\[public\]>$/);

      // TQL over two lines: the continuation prompt, then the count and the time taken.
      await terminal.line('tql big select *');
      await terminal.waitFor(/gs\[public\]> tql big select \*\n>$/);
      await terminal.line('where id < 100;');
      await terminal.waitFor(/\n100 results\. \(\d+ ms\)\ngs\[public\]>$/);

      // get pages the rows a screen at a time: Enter shows the next page, q stops.
      await terminal.line('get');
      let screen = await terminal.waitFor(/-- More -- \(Enter: next page, q: stop\)$/);
      assert.match(screen, /\| id \| v +\|/);
      const pageRows = SCREEN_ROWS - 6;
      assert.match(screen, new RegExp(`\\| ${pageRows - 1} +\\| `));
      assert.doesNotMatch(screen, new RegExp(`\\| ${pageRows} +\\| `));
      await terminal.keys('Enter');
      await terminal.waitFor(new RegExp(`\\| ${2 * pageRows - 1} +\\| [^\\n]*\\n\\+[-+]+\\+\\n-- More -- \\(Enter: next page, q: stop\\)$`));
      await terminal.line('q');
      await terminal.waitFor(new RegExp(`The ${2 * pageRows} results had been acquired\\.\\ngs\\[public\\]>$`));

      // A query that reads BIG_ROW_COUNT rows one request each; Ctrl-C stops it, the shell stays.
      await terminal.line('setfetchsize 1');
      await terminal.line('tql big select *;');
      await terminal.waitFor(/gs\[public\]> tql big select \*;$/);
      await sleep(1000);
      await terminal.keys('C-c');
      screen = await terminal.waitFor(/gs\[public\]> tql big select \*;\nThe statement was cancelled \(Ctrl-C\)\.\ngs\[public\]>$/);
      assert.doesNotMatch(screen, new RegExp(`${BIG_ROW_COUNT} results`));
      // The same for SQL.
      await terminal.line('select * from big;');
      await terminal.waitFor(/gs\[public\]> select \* from big;$/);
      await sleep(1000);
      await terminal.keys('C-c');
      screen = await terminal.waitFor(/gs\[public\]> select \* from big;\nThe statement was cancelled \(Ctrl-C\)\.\ngs\[public\]>$/);
      assert.doesNotMatch(screen, new RegExp(`${BIG_ROW_COUNT} results`));
      await terminal.line('setfetchsize 1000');
      await terminal.line('tql big select * where id < 3;');
      await terminal.waitFor(/\n3 results\. \(\d+ ms\)\ngs\[public\]>$/);
      // SQL over two lines, then its row.
      await terminal.line('select count(*) AS n');
      await terminal.waitFor(/gs\[public\]> select count\(\*\) AS n\n>$/);
      await terminal.line('from big where id < 3;');
      await terminal.waitFor(/\n1 results\. \(\d+ ms\)\ngs\[public\]>$/);
      await terminal.line('get');
      await terminal.waitFor(/\| n +\|\n\+-+\+\n\| 3 +\|\n\+-+\+\nThe 1 results had been acquired\.\ngs\[public\]>$/);

      // Ctrl-C at the prompt drops the line typed, not the shell.
      await terminal.type('print half typed');
      await terminal.keys('C-c');
      await terminal.waitFor(/\^C \(exit, quit or Ctrl-D leave gs_sh\)\ngs\[public\]>$/);
      await terminal.line('print alive');
      await terminal.waitFor(/gs\[public\]> print alive\nalive\ngs\[public\]>$/);
      // Bad input: a message, and the shell goes on.
      await terminal.line('tql nosuch select *;');
      await terminal.waitFor(/D20342: This container "nosuch" does not exists\.\ngs\[public\]>$/);
      await terminal.line('exit');
      await terminal.waitForEnd();
    } finally {
      await terminal.close();
    }

    // The history is kept for the next session, without the statements that hold a password.
    const history = readFileSync(join(home, '.gssh_history'), 'utf8').split('\n');
    assert.ok(history.includes('tql big select * where id < 3;'), history.join('\n'));
    assert.ok(!history.some((line) => line.startsWith('setuser')), history.join('\n'));
    assert.ok(!history.includes('q'), history.join('\n'));

    const again = new Terminal();
    try {
      await again.start(env);
      await again.waitFor(/^gs>$/m);
      await again.keys('Up');
      await again.waitFor(/^gs> exit$/m);
      await again.keys('Up', 'Up');
      await again.waitFor(/^gs> print alive$/m);
      await again.keys('C-u');
      await again.line('exit');
      await again.waitForEnd();
    } finally {
      await again.close();
    }
  });
});
