// Fail-stop at the server: a real TransactionServer on 127.0.0.1 and the real client, over a
// LocalRequestRunner whose put handler fails an injected assertion (faultAssertOnContainer, the
// hook the node's STORE_FAULT_ASSERT_ON sets). The failure is reported once, the client's request
// fails because its connection closed, every other connection closes too, the server takes no
// new one, and no reply of any request claims anything after the failure: none is INTERNAL_ERROR.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AssertionError } from '../../../lib/base/assert.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { storageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import { passwordDigestHex } from '../../../lib/protocol/auth-proof.ts';
import { FrameReader, FrameStatus } from '../../../lib/protocol/frame.ts';
import { errorDecode } from '../../../lib/protocol/wire-error.ts';
import {
  LocalRequestRunner, type RequestRunner, type RunOutcome,
} from '../../../lib/server/request-runner.ts';
import { TransactionServer } from '../../../lib/server/transaction-server.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { clientFor } from '../client/client-test-helpers.ts';
import { CLUSTER, RawClient, USERS } from './server-test-helpers.ts';

const COLUMNS = [{ name: 'id', type: 'STRING' }, { name: 'n', type: 'LONG' }] as const;

/** The error codes of the error frames among `outcomes`. */
function errorCodes(outcomes: readonly RunOutcome[]): string[] {
  return outcomes.flatMap((outcome) => {
    const reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
    reader.push(outcome.bytes);
    const frame = reader.next();
    assert.ok(frame !== undefined);
    return frame.status === FrameStatus.ERROR ? [errorDecode(frame.body).code] : [];
  });
}

describe('fail-stop at the transaction server', () => {
  it('closes every connection unanswered and reports once when a request breaks an invariant',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'store-fail-stop-'));
      const store = await Store.open({ home, options: storageOptions({
        partitionNum: 8, concurrency: 2, logWriteMode: 1, checkpointIntervalMs: 3_600_000,
      }) });
      const runnerFailures: unknown[] = [];
      const local = new LocalRequestRunner(store, {
        queryHandler: tqlQueryHandler, messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
        statementResultCountMax: 1000, statementResultCountPerClientMax: 1000,
        onFailure: (error) => runnerFailures.push(error),
        faultAssertOnContainer: 'doomed',
      });
      // Every outcome the engine side hands the network side, to check none claims anything.
      const outcomes: RunOutcome[] = [];
      const runner: RequestRunner = {
        info: local.info,
        connectionOpened: (id, setup) => local.connectionOpened(id, setup),
        run: async (id, frame) => {
          const outcome = await local.run(id, frame);
          outcomes.push(outcome);
          return outcome;
        },
        connectionClosed: (id) => local.connectionClosed(id),
      };
      const failures: unknown[] = [];
      const server = new TransactionServer({
        engine: runner, host: '127.0.0.1', port: 0, clusterName: CLUSTER,
        lookupPasswordDigest: (user) =>
          USERS[user] === undefined ? undefined : passwordDigestHex(USERS[user]),
        onEngineFailure: (error) => failures.push(error),
      });
      const { port } = await server.listen();
      const client = clientFor(port, { failoverTimeout: 0 });
      const bystander = await RawClient.ready(port);
      try {
        for (const name of ['doomed', 'fine']) {
          await client.putContainer({ name, type: 'COLLECTION', rowKey: true, columns: [...COLUMNS] });
        }
        const fine = (await client.getContainer('fine'))!;
        const doomed = (await client.getContainer('doomed'))!;
        await fine.put(['acked', 1n]);
        const before = outcomes.length;

        // A put into `fine` in flight beside the doomed one: answered or cut, never an error.
        const [beside, failed] = await Promise.allSettled(
          [fine.put(['beside', 2n]), doomed.put(['never', 3n])]);
        assert.equal(failed.status, 'rejected');
        const reason = failed.status === 'rejected' ? failed.reason : undefined;
        assert.ok(isStorageError(reason, 'CONNECTION_FAILED'), String(reason));
        assert.match((reason as Error).message, /closed/);
        if (beside.status === 'rejected') {
          assert.ok(isStorageError(beside.reason, 'CONNECTION_FAILED'), String(beside.reason));
        }

        assert.equal(failures.length, 1, 'the server reports the failure once');
        assert.ok(failures[0] instanceof AssertionError);
        assert.match((failures[0] as Error).message, /injected fault/);
        assert.deepEqual(runnerFailures, failures, 'the runner reported the same error, once');
        await bystander.waitClosed();
        await assert.rejects(bystander.frame(), /closed before a frame came/);
        await assert.rejects(RawClient.ready(port), 'the server takes no new connection');
        assert.deepEqual(errorCodes(outcomes.slice(before)), [],
          'no reply after the failure is an error, INTERNAL_ERROR least of all');
        assert.deepEqual(errorCodes(outcomes), []);
        // The runner answers nothing more, on any connection.
        await assert.rejects(local.run(1, { messageType: 0 as never, requestId: 1,
          body: new Uint8Array(0) }), (error: unknown) => error === failures[0]);
      } finally {
        bystander.close();
        await client.close();
        await server.close();
        await store.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
});
