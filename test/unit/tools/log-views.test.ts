// gs_logs's views of event log lines (tools/log-views.ts): the slow-query records, the counts per
// trace category and level, and CSV with quoting; a line that is not JSON is kept, not dropped.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  csvField, linesCsv, slowLogView, slowQueryEntries, traceStats, traceStatsView,
} from '../../../tools/log-views.ts';

const LINES = [
  '{"level":"INFO","time":"2026-11-26T00:00:00.000Z","pid":1,"component":"systemService","msg":"node started","systemPort":10040}',
  '{"level":"WARNING","time":"2026-11-26T00:00:01.000Z","pid":1,"component":"sqlService","msg":"slow query","containerName":"c1","query":"SELECT * WHERE a = \'x,\\"y\\"\'","executionTimeMs":12}',
  '{"level":"INFO","time":"2026-11-26T00:00:02.000Z","pid":1,"component":"systemService","msg":"backup started"}',
  'not a record',
];

describe('gs_logs views', () => {
  it('--slowlogs: the slow-query records only', () => {
    assert.deepEqual(slowQueryEntries(LINES), [{ time: '2026-11-26T00:00:01.000Z',
      containerName: 'c1', executionTimeMs: 12, query: 'SELECT * WHERE a = \'x,"y"\'' }]);
    assert.equal(slowLogView(LINES, true), 'time,containerName,executionTimeMs,query\n' +
      '2026-11-26T00:00:01.000Z,c1,12,"SELECT * WHERE a = \'x,""y""\'"');
    assert.equal(slowLogView([], false), '[]');
  });

  it('--tracestats: lines per category and level', () => {
    assert.deepEqual(traceStats(LINES), [
      { category: '-', level: '-', count: 1 },
      { category: 'sqlService', level: 'WARNING', count: 1 },
      { category: 'systemService', level: 'INFO', count: 2 },
    ]);
    assert.equal(traceStatsView(LINES, true),
      'category,level,count\n-,-,1\nsqlService,WARNING,1\nsystemService,INFO,2');
  });

  it('--csv: a row a line, the other fields as JSON, quoted where needed', () => {
    const rows = linesCsv(LINES).split('\n');
    assert.equal(rows[0], 'time,level,category,message,fields');
    assert.equal(rows[1], '2026-11-26T00:00:00.000Z,INFO,systemService,node started,' +
      '"{""systemPort"":10040}"');
    assert.equal(rows[3], '2026-11-26T00:00:02.000Z,INFO,systemService,backup started,');
    assert.equal(rows[4], ',,,not a record,');
    assert.equal(csvField('a\nb'), '"a\nb"');
  });
});
