// GridDB's FLUSH_LOG (117: gsFlush): the node answers once the log of the container's partition
// is durable. Body after the statement id (the C client's GSContainerTag::flush):
//
//   request | containerId i64 | optional request |      reply empty
//
// Run as store's LOG_SYNC (messages-transaction.ts): the partition's xlog is synced up to its last
// record through the group commit's rounds, whatever logWriteMode says, so under logWriteMode
// n >= 1 the rows put before the flush survive a crash of the machine, not only of the process.

import { ByteReader } from '../../encoding/byte-reader.ts';
import { LOG_SYNC } from '../../protocol/messages-transaction.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import { containerOf, type RowStatementContext } from './griddb-row-statements.ts';

export function flushLogDecode(body: Uint8Array): { containerId: number } {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const containerId = reader.i64();
    if (containerId < 0n || containerId > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GriddbFrameError(`container id ${containerId} is out of range`);
    }
    griddbOptionalRequestSkip(reader);
    reader.expectEnd();
    return { containerId: Number(containerId) };
  });
}

/** FLUSH_LOG: resolves once the xlog of the container's partition is synced. */
export async function flushLogRun(context: Omit<RowStatementContext, 'sessions'>,
  body: Uint8Array): Promise<void> {
  const { containerId } = flushLogDecode(body);
  const { ref } = await containerOf(context, { containerId });
  await context.engine.call(LOG_SYNC, { partitionId: ref.partitionId, name: ref.name });
}
