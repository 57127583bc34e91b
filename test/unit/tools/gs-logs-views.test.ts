// gs_logs --slowlogs, --tracestats and --csv against a real node process whose slow-query
// threshold is 0 s (`/sql/traceLimitExecutionTime`), so every TQL query is a slow-query record in
// its event log (sqlService, `slow query`), its text cut to `/sql/traceLimitQuerySize` bytes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import {
  newNodeHome, removeHome, runTool, startNodeProcess, type NodeProcess, type ToolRun,
} from '../node/node-process.ts';

/** Polls of gs_logs before a record that must come is given up on (100 ms apart). */
const POLL_COUNT_MAX = 100;
const QUERY = 'SELECT * WHERE value > 1 ORDER BY id';

describe('gs_logs --slowlogs, --tracestats, --csv', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let store: ClientStore;
  let user: string[];

  before(async () => {
    node = await startNodeProcess(newNodeHome({
      sql: { traceLimitExecutionTime: '0s', traceLimitQuerySize: 20 },
    }));
    user = ['-u', 'admin/admin', '-s', `127.0.0.1:${node.systemPort}`];
    store = getStore({
      notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin',
    });
  });

  after(async () => {
    await store.close().catch(() => undefined);
    await node.stop();
    removeHome(node.home);
  });

  function gsLogs(args: readonly string[]): Promise<ToolRun> {
    return runTool('gs_logs.ts', [...user, ...args], node.env);
  }

  it('--slowlogs lists the queries over the threshold, as JSON and as CSV', async () => {
    const container = await store.putContainer({
      name: 'meter', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
    });
    await container.put(['a', 2n]);
    assert.equal((await (await container.query(QUERY).fetch()).toArray()).length, 1);
    let entries: Array<Record<string, unknown>> = [];
    for (let poll = 0; entries.length === 0; poll++) {
      assert.ok(poll < POLL_COUNT_MAX, 'no slow-query record');
      if (poll > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const result = await gsLogs(['--slowlogs']);
      assert.equal(result.code, 0, result.stderr);
      entries = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    }
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!['containerName'], 'meter');
    assert.equal(entries[0]!['query'], QUERY.slice(0, 20));
    assert.equal(typeof entries[0]!['executionTimeMs'], 'number');
    const csv = await gsLogs(['--slowlogs', '--csv']);
    assert.equal(csv.code, 0, csv.stderr);
    const rows = csv.stdout.trimEnd().split('\n');
    assert.equal(rows[0], 'time,containerName,executionTimeMs,query');
    assert.match(rows[1]!, /^[^,]+,meter,\d+,SELECT \* WHERE value$/);
    // A SEARCH_STR narrows the records: none is about another container.
    assert.deepEqual(JSON.parse((await gsLogs(['--slowlogs', 'other'])).stdout), []);
  });

  it('--tracestats counts lines per category and level; --csv prints the lines as CSV',
    async () => {
      const stats = await gsLogs(['--tracestats']);
      assert.equal(stats.code, 0, stats.stderr);
      const counts = JSON.parse(stats.stdout) as Array<{ category: string; level: string;
        count: number }>;
      const count = (category: string, level: string) =>
        counts.find((stat) => stat.category === category && stat.level === level)?.count ?? 0;
      assert.ok(count('sqlService', 'WARNING') >= 1, stats.stdout);
      assert.ok(count('systemService', 'INFO') >= 2, stats.stdout);
      const statsCsv = await gsLogs(['--tracestats', '--csv']);
      assert.match(statsCsv.stdout, /^category,level,count\n/);
      assert.match(statsCsv.stdout, /\nsqlService,WARNING,\d+\n/);

      const lines = await gsLogs(['--csv', '-l', '5']);
      assert.equal(lines.code, 0, lines.stderr);
      const rows = lines.stdout.trimEnd().split('\n');
      assert.equal(rows[0], 'time,level,category,message,fields');
      assert.equal(rows.length, 6);
      const started = await gsLogs(['--csv', 'node started']);
      assert.match(started.stdout, /\n[^,]+,INFO,systemService,node started,/);
    });
});
