// GridDB's own C client (5.8, unmodified) against a real store node: the handshake statements
// (CONNECT, LOGIN, GET_PARTITION_ADDRESS) as an application reaches them through
// gsGetPartitionCount, the partition the client computes for a container (which must be where
// store places it: lib/schema/partition-hash.ts), and the GSResult an application gets for a
// wrong password or cluster name. The programs are in this folder; see
// test/support/griddb-c-client.ts for the build (skips with a message without the source or
// the build tools).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const HANDSHAKE_C = fileURLToPath(new URL('handshake.c', import.meta.url));
const CLUSTER = 'myCluster';
const PARTITION_NUM = 128;
/** GridDB's codes as the application sees them (spec/surface.md §1.3). */
const TXN_AUTH_FAILED = 10005;
const TXN_CLUSTER_NAME_INVALID = 10053;
/** Plain names, mixed case, affinity strings and numbers, non-ASCII. */
const NAMES = ['col01', 'Col01', 'TS_sensor_17', 'device@rack2', 'x@7', 'y@300',
  'a_b_c_0123456789'];

describe('GridDB C client: handshake against a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(HANDSHAKE_C);

  const args = (user: string, password: string, expected: number, cluster = CLUSTER) =>
    [String(suite.node.transactionPort), cluster, user, password, String(expected),
      String(PARTITION_NUM), ...NAMES];

  it('logs in, learns 128 partitions, and hashes names to the partitions store uses', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const result = await runProgram(suite.program, args('admin', 'admin', 0));
    assert.equal(result.code, 0, result.stderr);
    const computed = new Map(result.stdout.trim().split('\n').map((line) => {
      const at = line.lastIndexOf(' ');
      return [line.slice(0, at), Number(line.slice(at + 1))] as const;
    }));
    for (const name of NAMES) {
      assert.equal(computed.get(name), containerPartitionId(name, PARTITION_NUM), name);
    }
    assert.equal(computed.get('col01'), 88); // spec/internals.md §1.1, seen from a GridDB node
  });

  it('gives the application TXN_AUTH_FAILED for a wrong password or an unknown user', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    for (const [user, password] of [['admin', 'wrong'], ['nobody', 'admin'], ['admin', '']]) {
      const result = await runProgram(suite.program, args(user!, password!, TXN_AUTH_FAILED));
      assert.equal(result.code, 0, `${user}/${password}: ${result.stderr}`);
      assert.equal(result.stdout.trim(), `error ${TXN_AUTH_FAILED}`);
    }
  });

  it('gives the application TXN_CLUSTER_NAME_INVALID for another cluster name', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const result = await runProgram(suite.program,
      args('admin', 'admin', TXN_CLUSTER_NAME_INVALID, 'otherCluster'));
    assert.equal(result.code, 0, result.stderr);
  });

  it('serves store\'s own protocol on the same port beside a GridDB client', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const own = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const [griddb, container] = await Promise.all([
        runProgram(suite.program, args('admin', 'admin', 0)),
        own.putContainer({ name: 'col01', type: 'COLLECTION', rowKey: true,
          columns: [{ name: 'id', type: 'INTEGER' }] }),
      ]);
      assert.equal(griddb.code, 0, griddb.stderr);
      assert.ok(container !== undefined);
    } finally {
      await own.close();
    }
  });
});
