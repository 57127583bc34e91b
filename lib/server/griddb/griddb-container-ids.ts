// Which container a GridDB statement's container id names, when the node has not told this id to
// a client since it started: a GridDB client learns an id once (GET_CONTAINER_PROPERTIES) and
// sends it in every row statement after, across the node's restarts (its failover reconnects and
// retries with the id it has). The ids the node gave are kept in memory (GriddbContainerNames),
// so after a restart, or once an id has been forgotten, the first statement naming an unknown id
// of a partition has the partition's containers looked up: store's list of names (CONTAINER_LIST,
// a page of GRIDDB_ID_SCAN_PAGE_NAMES at a time), those the partition hash places in the
// statement's partition, and the id of each (CONTAINER_INFO), all remembered. The partition is
// then marked looked up, so an id that is still unknown is a container that does not exist
// (TXN_CONTAINER_NOT_FOUND, as before) without another look-up, until one of its names is
// forgotten (GriddbContainerNames clears the mark). Containers created later are learnt as ever,
// when a client asks for their properties. Connections that miss in the same partition at once
// share one look-up.

import { CONTAINER_INFO, CONTAINER_LIST } from '../../protocol/messages-container.ts';
import { containerPartitionId } from '../../schema/partition-hash.ts';
import type { GriddbContainerNames, RowStatementContext } from './griddb-row-statements.ts';

/** Names read from store's list per request. */
const GRIDDB_ID_SCAN_PAGE_NAMES = 10_000;

/** The look-ups under way, per partition, of each host's names. */
const scansOf = new WeakMap<GriddbContainerNames, Map<number, Promise<void>>>();

/** The name of container `containerId` of the statement's partition, or undefined if none. */
export async function griddbContainerNameOf(
  context: Omit<RowStatementContext, 'sessions'>,
  containerId: number,
): Promise<string | undefined> {
  const { names, partitionId } = context;
  const known = names.nameOf(partitionId, containerId);
  if (known !== undefined || names.isScanned(partitionId)) return known;
  let scans = scansOf.get(names);
  if (scans === undefined) {
    scans = new Map();
    scansOf.set(names, scans);
  }
  let scan = scans.get(partitionId);
  if (scan === undefined) {
    scan = partitionScan(context).finally(() => scans.delete(partitionId));
    scans.set(partitionId, scan);
  }
  await scan;
  return names.nameOf(partitionId, containerId);
}

async function partitionScan(context: Omit<RowStatementContext, 'sessions'>): Promise<void> {
  const { engine, names, partitionId } = context;
  for (let offset = 0; ; offset += GRIDDB_ID_SCAN_PAGE_NAMES) {
    const page = await engine.call(CONTAINER_LIST,
      { offset, limit: GRIDDB_ID_SCAN_PAGE_NAMES });
    for (const name of page.names) {
      if (containerPartitionId(name, names.partitionNum) !== partitionId) continue;
      const info = await engine.call(CONTAINER_INFO, { partitionId, name });
      if (info !== undefined) names.remember(partitionId, info.containerId, name);
    }
    if (page.names.length < GRIDDB_ID_SCAN_PAGE_NAMES ||
      offset + page.names.length >= page.total) {
      break;
    }
  }
  names.markScanned(partitionId);
}
