// A partition's xlog as the engine uses it: replay at open, then append and wait for durability as
// the log write mode says. The writer is created on the first write, so a store with 128 partitions
// does not make 128 empty files.

import { generation, lsn, type Generation, type Lsn, type PartitionId } from '../base/ids.ts';
import { listXlogGenerations, xlogFilePath } from '../../wal/xlog-files.ts';
import { scanXlog, truncateXlogTornTail } from '../../wal/xlog-reader.ts';
import { XlogWriter } from '../../wal/xlog-writer.ts';
import type { XlogRecordType } from '../../wal/xlog-format.ts';
import type { JournalRecord } from '../../wal/journal-format.ts';
import { continuingRecords } from '../../wal/journal-recovery.ts';
import { StorageError } from '../base/errors.ts';
import type { Catalog } from './catalog.ts';
import type { PartitionContext } from './partition-context.ts';
import { replayRecord } from './partition-apply.ts';

/** A torn tail recovery cut off a partition's last xlog file: the node logs a warning of it. */
export interface XlogTornTail {
  partitionId: number;
  filePath: string;
  /** Where the file now ends, and how many bytes were cut after it. */
  offsetBytes: number;
  tornBytes: number;
  reason: string;
}

export interface PartitionRecovery {
  recordCount: number;
  rowCount: number;
  tornBytes: number;
  /** What was cut, if anything. */
  tornTail: XlogTornTail | undefined;
  /** Records of recordCount that came from the commit journal. */
  journaledCount: number;
}

export class PartitionLog {
  private writer: XlogWriter | undefined;
  private opening: Promise<XlogWriter> | undefined;
  /**
   * What recovery's appends of journaled records changed, so a failed start can take them back:
   * the file they went to and its size before them, or that it was created for them.
   */
  private recoveryAppends: { path: string; sizeBytesBefore: number | undefined } | undefined;

  constructor(
    readonly partitionId: PartitionId,
    private readonly context: PartitionContext,
  ) {}

  /**
   * Replays the records after `checkpointLsn` into the catalog (those up to it are in the restored
   * blocks already); cuts a torn tail; reopens the last file for appending. Then the commit
   * journal's records of the partition (`journaled`, ascending LSNs) that continue the xlog are
   * appended to it, synced and replayed: they were acknowledged once the journal held them.
   */
  async recover(
    catalog: Catalog,
    checkpointLsn: Lsn,
    journaled: readonly JournalRecord[] = [],
  ): Promise<PartitionRecovery> {
    const { fileSystem, transactionLogRoot: root } = this.context;
    let rowCount = 0;
    let replayedCount = 0;
    const scan = scanXlog(fileSystem, {
      root,
      partitionId: this.partitionId,
      onRecord: (record) => {
        if (record.lsn <= checkpointLsn) return;
        rowCount += replayRecord(catalog, record.type, record.payload);
        replayedCount++;
      },
    });
    if (scan.lastLsn < checkpointLsn) {
      throw new StorageError('CORRUPTION', `partition ${this.partitionId}: the xlog ends at LSN ` +
        `${scan.lastLsn}, before the checkpoint's ${checkpointLsn}`);
    }
    if (scan.recordCount > 0 && scan.baseLsn > checkpointLsn) {
      throw new StorageError('CORRUPTION', `partition ${this.partitionId}: the xlog starts after ` +
        `LSN ${scan.baseLsn}, but the checkpoint covers only up to ${checkpointLsn}`);
    }
    let tornTail: XlogTornTail | undefined;
    if (scan.tornBytes > 0 && await truncateXlogTornTail(fileSystem, scan)) {
      tornTail = {
        partitionId: this.partitionId, filePath: scan.lastFilePath!,
        offsetBytes: scan.tailOffsetBytes, tornBytes: scan.tornBytes, reason: scan.tornReason!,
      };
    }
    if (scan.lastGeneration !== 0) {
      this.adopt(await XlogWriter.continueAfterScan({ ...this.writerOptions(), scan }));
    }
    const continued = continuingRecords(journaled, scan.lastLsn);
    if (continued.length > 0) {
      const sizeBytesBefore = this.writer?.sizeBytes;
      const path = xlogFilePath(root, this.partitionId, generation(this.writer?.generation ?? 1));
      this.recoveryAppends = { path, sizeBytesBefore };
    }
    for (const record of continued) {
      if (this.writer === undefined) await this.ready();
      this.writer!.append(record.type, record.payload);
      rowCount += replayRecord(catalog, record.type, record.payload);
      replayedCount++;
    }
    const lastLsn = continued.at(-1)?.lsn ?? scan.lastLsn;
    if (continued.length > 0) await this.writer!.datasync();
    this.lastAppliedLsn = lastLsn;
    return {
      recordCount: replayedCount, rowCount, tornBytes: scan.tornBytes, tornTail,
      journaledCount: continued.length,
    };
  }

  /**
   * A start failed before the group's journal files were deleted: takes back what recovery
   * appended from them (they still hold it), so a failed start leaves the xlog as it found it,
   * and closes the file. Nothing is synced: the records are valid wherever a crash leaves them.
   */
  async undoRecoveryAppends(): Promise<void> {
    const appends = this.recoveryAppends;
    this.recoveryAppends = undefined;
    await this.close().catch(() => undefined); // its buffer's write may fail again: no matter
    if (appends === undefined) return;
    const { fileSystem } = this.context;
    if (appends.sizeBytesBefore === undefined) {
      fileSystem.remove(appends.path);
      return;
    }
    const handle = fileSystem.open(appends.path, 'readWrite');
    try {
      handle.truncate(appends.sizeBytesBefore);
    } finally {
      handle.close();
    }
  }

  /** Resolves once the writer exists. Undefined (no promise) when it already does. */
  ready(): Promise<unknown> | undefined {
    if (this.writer !== undefined) return undefined;
    this.opening ??= XlogWriter.create({
      ...this.writerOptions(), generation: generation(1), lastLsn: lsn(0n),
    }).then((writer) => this.adopt(writer));
    return this.opening;
  }

  /**
   * Appends one record. Returns a promise of its durability under logWriteMode 0, or undefined when
   * it is acknowledged at append (n >= 1): then it is handed to the OS at once, so a crash of the
   * process loses nothing; only a crash of the machine can lose the last n seconds.
   */
  append(type: XlogRecordType, payload: Uint8Array): { lsn: Lsn; durable: Promise<void> | undefined } {
    const writer = this.writer!;
    const recordLsn = writer.append(type, payload);
    if (this.context.options.logWriteMode >= 1) {
      writer.flush();
      return { lsn: recordLsn, durable: undefined };
    }
    const durable = this.context.groupCommit.commit(writer,
      { partitionId: this.partitionId, lsn: recordLsn, type, payload });
    return { lsn: recordLsn, durable };
  }

  /**
   * Resolves once every record appended so far is synced in this partition's own xlog, whatever
   * logWriteMode says (GridDB's FLUSH_LOG): through the group commit's rounds, as a logWriteMode 0
   * commit waits, so the sync joins a round under way instead of racing it.
   */
  syncAppended(): Promise<void> | undefined {
    const writer = this.writer;
    if (writer === undefined || writer.syncedLsn >= writer.lastLsn) return undefined;
    return this.context.groupCommit.waitDurable(writer, writer.lastLsn);
  }

  /** The LSN of the last record applied to the blocks (set by the pipeline's apply, and replay). */
  lastAppliedLsn: bigint = 0n;

  get lastLsn(): bigint {
    return this.writer?.lastLsn ?? 0n;
  }

  /** The current xlog generation; 0 before the first file. */
  get generation(): number {
    return this.writer?.generation ?? 0;
  }

  /** Switches appends to a new generation's file at once; resolves when the old file is synced. */
  startGeneration(next: Generation): Promise<void> {
    return this.writer!.startGeneration(next);
  }

  /** Deletes the xlog files of generations before `keepFrom` (they hold no record still needed). */
  removeGenerationsBefore(keepFrom: number): void {
    const { fileSystem, transactionLogRoot: root } = this.context;
    for (const old of listXlogGenerations(fileSystem, root, this.partitionId)) {
      if (old < keepFrom) fileSystem.remove(xlogFilePath(root, this.partitionId, old));
    }
  }

  async close(): Promise<void> {
    const writer = this.writer;
    if (writer === undefined) return;
    this.writer = undefined;
    this.context.groupCommit.removeWriter(writer);
    await writer.close();
  }

  private adopt(writer: XlogWriter): XlogWriter {
    this.writer = writer;
    this.context.groupCommit.addWriter(writer);
    return writer;
  }

  private writerOptions() {
    return {
      fileSystem: this.context.fileSystem,
      root: this.context.transactionLogRoot,
      partitionId: this.partitionId,
      blockSizeBytes: this.context.options.storeBlockSizeBytes,
    };
  }
}
