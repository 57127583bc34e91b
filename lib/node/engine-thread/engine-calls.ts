// The node's calls of its engine (engine-messages.ts EngineCall), typed, over whatever carries a
// call: the in-thread engine calls the EngineCore, the worker engine posts a message.

import type { BackupTarget, PartitionBackupReport } from '../../engine/partition-backup.ts';
import type { SqlDatabaseRow } from '../../sql/meta/metatables.ts';
import type { EngineCall, EngineStatus } from './engine-messages.ts';

export abstract class EngineCalls {
  protected abstract call(call: EngineCall): Promise<unknown>;

  async status(): Promise<EngineStatus> {
    return await this.call({ kind: 'status' }) as EngineStatus;
  }

  async partitionLsns(): Promise<number[]> {
    return await this.call({ kind: 'partitionLsns' }) as number[];
  }

  async checkpoint(trigger: 'requested' | 'recovery'): Promise<void> {
    await this.call({ kind: 'checkpoint', trigger });
  }

  async backup(target: BackupTarget): Promise<PartitionBackupReport[]> {
    return await this.call({ kind: 'backup', target }) as PartitionBackupReport[];
  }

  async setPeriodicCheckpoint(enabled: boolean): Promise<void> {
    await this.call({ kind: 'setPeriodicCheckpoint', enabled });
  }

  async setDatabases(databases: SqlDatabaseRow[]): Promise<void> {
    await this.call({ kind: 'setDatabases', databases });
  }

  async setStoreMemoryLimit(memoryLimitBytes: number): Promise<void> {
    await this.call({ kind: 'setStoreMemoryLimit', memoryLimitBytes });
  }
}
