// psql's Ctrl-C, as a user presses it: psql runs interactively in a pseudo-terminal (tmux, on a
// server socket of this test's own), a long SELECT is typed, and once the node lists it in "#sqls"
// the terminal gets Ctrl-C (tmux send-keys C-c: the tty's SIGINT to psql). psql sends a
// CancelRequest on a connection of its own; the statement ends with 57014 and psql, still alive,
// runs the next statement on the same session and quits with \q. The statements end in \g, not
// `;`: tmux reads an argument's trailing semicolon as the end of its own command.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

const WAIT_STEP_MS = 100;
const WAIT_STEPS_MAX = 600;
const ROWS = 1_000;

describe('psql: Ctrl-C cancels the running query', { timeout: 120_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let db: pg.Client;
  const socket = `p18-psql-cancel-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 }, sql: { servicePort: 0 } });
    node = await startNodeProcess(home);
    db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin', database: 'public' });
    await db.connect();
    await db.query('CREATE TABLE r (ts TIMESTAMP PRIMARY KEY, v LONG)');
    // 1,000 rows: the three-way cross join below has 10^9 combinations to test and sends no row
    // before it has tested them all, so it is still running (not streaming its answer, which psql
    // would drop without an error) whenever the Ctrl-C comes, however loaded the machine is.
    const values = Array.from({ length: ROWS },
      (_, i) => `(TIMESTAMPADD(SECOND, TIMESTAMP('2024-01-01T00:00:00Z'), ${i}), ${i})`);
    await db.query(`INSERT INTO r VALUES ${values.join(', ')}`);
  });

  after(async () => {
    try {
      tmux('kill-server');
    } catch {
      // the server ended with its last session
    }
    await db?.end().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  async function waitFor(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
    for (let step = 0; step < WAIT_STEPS_MAX; step++) {
      if (await done()) return;
      await sleep(WAIT_STEP_MS);
    }
    assert.fail(`${what}; the terminal shows:\n${tmux('capture-pane', '-p', '-t', 'psql')}`);
  }

  const screen = () => tmux('capture-pane', '-p', '-S', '-200', '-t', 'psql');

  it('a SIGINT to interactive psql ends the SELECT with 57014, and psql goes on', async () => {
    tmux('new-session', '-d', '-s', 'psql', '-x', '160', '-y', '50', '-e', 'PGPASSWORD=admin', '-e', 'PAGER=',
      `psql -X -h 127.0.0.1 -p ${node.sqlPort} -U admin -d public -v VERBOSITY=verbose`);
    await waitFor('psql prompts', () => /public=#/.test(screen()));
    tmux('send-keys', '-t', 'psql', 'SELECT COUNT(*) FROM r a, r b, r c WHERE a.v + b.v + c.v < 0 \\g', 'Enter');
    await waitFor('the SELECT runs', async () =>
      // The pattern is split so that this query's own text, also in "#sqls", does not match it.
      (await db.query('SELECT COUNT(*) AS n FROM "#sqls" WHERE SQL LIKE \'%r \' || \'c WHERE%\'')).rows[0].n !== '0');
    tmux('send-keys', '-t', 'psql', 'C-c');
    await waitFor('psql reports the cancel', () => /ERROR: {2}57014: canceling statement due to user request/.test(screen()));
    tmux('send-keys', '-t', 'psql', 'SELECT COUNT(*) AS alive FROM r \\g', 'Enter');
    const alive = new RegExp(`alive\\s*\\n-+\\s*\\n\\s*${ROWS}\\s*\\n\\(1 row\\)`);
    await waitFor('psql answers the next statement', () => alive.test(screen()));
    tmux('send-keys', '-t', 'psql', '\\q', 'Enter');
    await waitFor('psql quits', () => {
      try {
        tmux('has-session', '-t', 'psql');
        return false;
      } catch {
        return true;
      }
    });
  });
});
