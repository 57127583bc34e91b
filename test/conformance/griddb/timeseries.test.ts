// GridDB's own C client (5.8, unmodified) against a real store node: the time-series calls
// (timeseries.c): rows related to a time (GET_TIME_SERIES_ROW_RELATED), interpolation
// (INTERPOLATE_TIME_SERIES_ROW), aggregation (AGGREGATE_TIME_SERIES), time ranges
// (QUERY_TIME_SERIES_RANGE, alone and in gsFetchAll) and sampling (QUERY_TIME_SERIES_SAMPLING),
// answered by store's TQL as store's own client's calls are; sampling by YEAR or MONTH refused with
// GridDB's DS_TIM_SAMPLING_TIME_UNIT_INVALID.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const TIMESERIES_C = fileURLToPath(new URL('timeseries.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's code for sampling by YEAR or MONTH (server/gs_error.h, time_series.cpp). */
const DS_TIM_SAMPLING_TIME_UNIT_INVALID = 60074;

describe('GridDB C client: time-series calls on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(TIMESERIES_C);

  it('finds, interpolates, aggregates, ranges and samples rows of a time series', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `sampling-unit-0 ${DS_TIM_SAMPLING_TIME_UNIT_INVALID}\n` +
      `sampling-unit-1 ${DS_TIM_SAMPLING_TIME_UNIT_INVALID}`);
  });
});
