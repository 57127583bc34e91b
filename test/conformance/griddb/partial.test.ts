// GridDB's own C client (5.8, unmodified) against a real store node: partial execution of
// QUERY_TQL (GS_FETCH_PARTIAL_EXECUTION) answered part by part, so a result of about 68 MB, more
// than a GridDB connection may hold at once (GRIDDB_ROW_SET_BYTES_MAX), comes whole and in order
// with partial execution, and is refused with store's LIMIT_EXCEEDED without it (partial.c).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const PARTIAL_C = fileURLToPath(new URL('partial.c', import.meta.url));
const CLUSTER = 'myCluster';
/** Store's LIMIT_EXCEEDED as the GridDB error stack carries it (griddb-error.ts). */
const LIMIT_EXCEEDED = 100005;

describe('GridDB C client: partial execution on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(PARTIAL_C);

  it('answers a query larger than a connection holds part by part, every row in order', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const run = await runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `whole ${LIMIT_EXCEEDED}\nparts 17000`);
  });
});
