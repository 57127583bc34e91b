// The engine in the main thread: the EngineCore called directly. The node runs its engine in a
// worker (worker-engine.ts); this one exists so that benchmarks can measure the difference with
// everything else equal (STORE_ENGINE_THREAD=main).

import type { RecoveryReport } from '../../engine/partition-group.ts';
import type { RequestRunner } from '../../server/request-runner.ts';
import { EngineCore } from './engine-core.ts';
import {
  errorData, type EngineOpenSettings, type EngineOpened, type EngineStatus,
} from './engine-messages.ts';
import type { NodeEngine, NodeEngineEvents } from './node-engine.ts';

export class InThreadEngine implements NodeEngine {
  readonly thread = 'main';

  private constructor(
    private readonly core: EngineCore,
    readonly runner: RequestRunner,
    readonly recovery: RecoveryReport,
  ) {}

  static async open(settings: EngineOpenSettings, events: NodeEngineEvents) {
    const core = new EngineCore({
      checkpoint: (notice) => events.checkpoint(notice),
      internalError: (error) => events.internalError(errorData(error)),
    });
    const opened = await core.call({ kind: 'open', settings }) as EngineOpened;
    const runner: RequestRunner = {
      info: opened.info,
      connectionOpened: (connectionId, setup) => core.connectionOpened(connectionId, setup),
      run: (connectionId, frame) => core.request(connectionId, frame),
      connectionClosed: (connectionId) => core.connectionClosed(connectionId),
    };
    return new InThreadEngine(core, runner, opened.recovery);
  }

  async status(): Promise<EngineStatus> {
    return await this.core.call({ kind: 'status' }) as EngineStatus;
  }

  async partitionLsns(): Promise<number[]> {
    return await this.core.call({ kind: 'partitionLsns' }) as number[];
  }

  async checkpoint(trigger: 'requested' | 'recovery'): Promise<void> {
    await this.core.call({ kind: 'checkpoint', trigger });
  }

  async setPeriodicCheckpoint(enabled: boolean): Promise<void> {
    await this.core.call({ kind: 'setPeriodicCheckpoint', enabled });
  }

  async close(): Promise<void> {
    await this.core.call({ kind: 'close' });
  }
}
