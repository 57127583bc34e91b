// What the node SQL tests that run one engine thread per partition group share: names placed in
// a chosen group, a client of the node, rows of a statement, and "#sqls" polled for a statement
// to show (its query id) or to go.

import { setTimeout as sleep } from 'node:timers/promises';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { containerPartitionId, partitionGroupOf } from '../../../lib/schema/partition-hash.ts';
import type { NodeProcess } from './node-process.ts';

/** Polls of "#sqls" while waiting for a statement to show or to go (each a round trip). */
const POLL_COUNT_MAX = 2000;

export interface GroupLayout {
  readonly partitionNum: number;
  readonly concurrency: number;
}

/** The partition group of `layout` that a container or table `name` lives in. */
export function groupIn(layout: GroupLayout, name: string): number {
  return partitionGroupOf(containerPartitionId(name, layout.partitionNum), layout);
}

/** `prefix` with the first number that puts it in partition group `group` of `layout`. */
export function nameInGroupIn(layout: GroupLayout, prefix: string, group: number): string {
  for (let i = 0; ; i++) if (groupIn(layout, `${prefix}${i}`) === group) return `${prefix}${i}`;
}

export function clientOf(node: NodeProcess, applicationName: string): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName,
  });
}

export async function rowsOf(store: ClientStore, sql: string, parameters: unknown[] = []): Promise<unknown[][]> {
  return (await store.sql(sql, parameters as never[])).toArray();
}

/** The query id of the statement `sql` once "#sqls" lists it. */
export async function queryIdOf(store: ClientStore, sql: string): Promise<string> {
  for (let i = 0; i < POLL_COUNT_MAX; i++) {
    const rows = await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls" WHERE SQL = ?', [sql]);
    if (rows.length === 1) return rows[0]![0] as string;
    await sleep(1);
  }
  throw new Error(`"#sqls" never listed ${sql}`);
}

/** Once "#sqls" no longer lists the statement `sql`. */
export async function waitUnlisted(store: ClientStore, sql: string): Promise<void> {
  for (let i = 0; i < POLL_COUNT_MAX; i++) {
    if ((await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls" WHERE SQL = ?', [sql])).length === 0) return;
    await sleep(1);
  }
  throw new Error(`"#sqls" still lists ${sql}`);
}
