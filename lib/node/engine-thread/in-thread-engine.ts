// The engine in the main thread: one EngineCore over every partition group, called directly. The
// node runs its engine in a worker per group (group-workers-engine.ts); this one exists so that
// benchmarks can measure the difference with everything else equal (STORE_ENGINE_THREAD=main).

import type { RecoveryReport } from '../../engine/partition-group.ts';
import type { RequestRunner } from '../../server/request-runner.ts';
import { EngineCalls } from './engine-calls.ts';
import { EngineCore } from './engine-core.ts';
import type { EngineCall, EngineOpenSettings, EngineOpened } from './engine-messages.ts';
import type { NodeEngine, NodeEngineEvents } from './node-engine.ts';

export class InThreadEngine extends EngineCalls implements NodeEngine {
  readonly thread = 'main';
  readonly workerCount = 0;

  private constructor(
    private readonly core: EngineCore,
    readonly runner: RequestRunner,
    readonly recovery: RecoveryReport,
  ) {
    super();
  }

  static async open(settings: EngineOpenSettings, events: NodeEngineEvents) {
    const core = new EngineCore({
      checkpoint: (notice) => events.checkpoint(notice),
      warning: (message) => events.warning(message),
      slowQuery: (record) => events.slowQuery?.(record),
      // Fail-stop: the node ends the process from inside this call (StoreNode.failStop).
      failed: (error) => events.failed(error),
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

  async close(options: { abandon?: boolean } = {}): Promise<void> {
    await this.core.call({ kind: 'close', abandon: options.abandon ?? false });
  }

  protected call(call: EngineCall): Promise<unknown> {
    return this.core.call(call);
  }
}
