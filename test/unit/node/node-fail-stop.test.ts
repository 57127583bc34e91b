// Fail-stop end to end: a real node process (tools/store-node.ts) with STORE_FAULT_ASSERT_ON, the
// testing aid that makes the put handler fail an assertion for one container, in both engine
// layouts. While clients put into another container, a put into the doomed one breaks the
// invariant: that put fails because its connection closed (CONNECTION_FAILED, no reply), the process exits non-zero with the
// ABNORMAL line (message and stack) in its event log, and a start without the fault recovers
// every acknowledged row from the log.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

/** How long the process may take to end after the failure before the test gives up. */
const EXIT_WAIT_MS = 30_000;
const WRITER_COUNT = 4;

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'fail-stop', failoverTimeout: 0,
  });
}

/** Every event log record of the home, parsed. */
function eventLogRecords(home: string): Array<Record<string, unknown>> {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => /^store-.*\.log$/.test(name))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function exitOf(node: NodeProcess): Promise<{ code: number | null; signal: string | null }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([node.exited, new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the node did not exit: ${node.output()}`)),
        EXIT_WAIT_MS);
    })]);
  } finally {
    clearTimeout(timer);
  }
}

for (const thread of ['main', 'worker'] as const) {
  describe(`fail-stop of a node process (STORE_ENGINE_THREAD=${thread})`, { timeout: 180_000 },
    () => {
      it('exits non-zero with ABNORMAL logged, and a restart recovers every acknowledged row',
        async () => {
          const home = newNodeHome();
          let node: NodeProcess | undefined;
          let client: ClientStore | undefined;
          try {
            node = await startNodeProcess(home,
              { STORE_ENGINE_THREAD: thread, STORE_FAULT_ASSERT_ON: 'doomed' });
            client = clientOf(node);
            const columns = [{ name: 'id', type: 'STRING' }, { name: 'n', type: 'LONG' }] as const;
            await client.putContainer({ name: 'fine', type: 'COLLECTION', rowKey: true,
              columns: [...columns] });
            await client.putContainer({ name: 'doomed', type: 'COLLECTION', rowKey: true,
              columns: [...columns] });
            const fine = (await client.getContainer('fine'))!;
            const doomed = (await client.getContainer('doomed'))!;
            // Writers put until their first failure; what they were told succeeded is `acked`.
            const acked: string[] = [];
            const writers = Array.from({ length: WRITER_COUNT }, async (_, w) => {
              for (let i = 0; ; i++) {
                const id = `w${w}-${i}`;
                await fine.put([id, BigInt(i)]);
                acked.push(id);
              }
            });
            // Settled from the start, so a writer's failure is never an unhandled rejection.
            const writersSettled = Promise.allSettled(writers);
            while (acked.length < 50) await new Promise((resolve) => setTimeout(resolve, 1));
            // The connection closed (or was reset as the process ended): no reply of any kind.
            await assert.rejects(doomed.put(['never', 0n]), (error: unknown) =>
              isStorageError(error, 'CONNECTION_FAILED') &&
              /closed|ECONNRESET|EPIPE/.test((error as Error).message));
            for (const writer of await writersSettled) {
              assert.equal(writer.status, 'rejected');
              if (writer.status === 'rejected') {
                assert.ok(isStorageError(writer.reason, 'CONNECTION_FAILED'), String(writer.reason));
              }
            }
            const exit = await exitOf(node);
            assert.deepEqual(exit, { code: 1, signal: null }, node.output());
            const abnormal = eventLogRecords(home).filter((record) =>
              record['nodeStatus'] === 'ABNORMAL');
            assert.equal(abnormal.length, 1, JSON.stringify(abnormal));
            assert.match(String(abnormal[0]!['msg']), /ABNORMAL/);
            assert.match(String(abnormal[0]!['error']), /injected fault/);
            assert.match(String(abnormal[0]!['stack']), /handlers-rows\.ts/);
            await client.close();
            client = undefined;

            // The next start, without the fault, recovers from the log.
            node = await startNodeProcess(home, { STORE_ENGINE_THREAD: thread });
            client = clientOf(node);
            const rows = await (await (await client.getContainer('fine'))!.query('SELECT *')
              .fetch()).toArray();
            const ids = new Set(rows.map((row) => row[0]));
            for (const id of acked) assert.ok(ids.has(id), `acknowledged row ${id} is back`);
            assert.ok(acked.length >= 50);
            assert.equal(await (await client.getContainer('doomed'))!.get('never'), undefined);
            await client.close();
            client = undefined;
            await node.stop();
            assert.deepEqual(await node.exited, { code: 0, signal: null });
          } finally {
            await client?.close().catch(() => undefined);
            await node?.kill();
            removeHome(home);
          }
        });
    });
}
