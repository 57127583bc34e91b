// A partition's xlog as the engine uses it: replay at open, then append and wait for durability as
// the log write mode says. The writer is created on the first write, so a store with 128 partitions
// does not make 128 empty files.

import { generation, lsn, type PartitionId } from '../base/ids.ts';
import { scanXlog, truncateXlogTornTail } from '../../wal/xlog-reader.ts';
import { XlogWriter } from '../../wal/xlog-writer.ts';
import type { XlogRecordType } from '../../wal/xlog-format.ts';
import type { Catalog } from './catalog.ts';
import type { PartitionContext } from './partition-context.ts';
import { replayRecord } from './partition-apply.ts';

export interface PartitionRecovery {
  recordCount: number;
  rowCount: number;
  tornBytes: number;
}

export class PartitionLog {
  private writer: XlogWriter | undefined;
  private opening: Promise<XlogWriter> | undefined;

  constructor(
    readonly partitionId: PartitionId,
    private readonly context: PartitionContext,
  ) {}

  /** Replays the xlog into the catalog; cuts a torn tail; reopens the last file for appending. */
  async recover(catalog: Catalog): Promise<PartitionRecovery> {
    const { fileSystem, transactionLogRoot: root } = this.context;
    let rowCount = 0;
    const scan = scanXlog(fileSystem, {
      root,
      partitionId: this.partitionId,
      onRecord: (record) => {
        rowCount += replayRecord(catalog, record.type, record.payload);
      },
    });
    if (scan.tornBytes > 0) await truncateXlogTornTail(fileSystem, scan);
    if (scan.lastGeneration !== 0) {
      this.adopt(await XlogWriter.continueAfterScan({ ...this.writerOptions(), scan }));
    }
    return { recordCount: scan.recordCount, rowCount, tornBytes: scan.tornBytes };
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
  append(type: XlogRecordType, payload: Uint8Array): Promise<void> | undefined {
    const writer = this.writer!;
    const recordLsn = writer.append(type, payload);
    if (this.context.options.logWriteMode >= 1) {
      writer.flush();
      return undefined;
    }
    return this.context.groupCommit.waitDurable(writer, recordLsn);
  }

  get lastLsn(): bigint {
    return this.writer?.lastLsn ?? 0n;
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
