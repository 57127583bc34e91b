// Restart commands of the engine model test: a clean close and reopen, a crash between requests,
// and a crash while a multiPut or a create/drop is in flight; and the storage commands beside them:
// a checkpoint (awaited, or left running under the commands that follow) and an eviction of every
// block the buffer pool may drop. After every restart the whole
// committed state is compared with the model; a request cut by a crash must have happened whole or
// not at all, and whole if it was acknowledged.

import assert from 'node:assert/strict';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Row } from '../../lib/schema/column-type.ts';
import type { EngineModel } from './engine-model.ts';
import { copy, EngineCommand, show, verifyCommitted, type RealStore } from './engine-model-real.ts';
import { keyOfRow, SCHEMAS, type SchemaKind } from './engine-model-schemas.ts';

const name = (kind: SchemaKind) => SCHEMAS[kind].definition.name;

export class ReopenCommand extends EngineCommand {
  check() { return true; }
  toString() { return 'closeAndReopen()'; }
  protected async execute(model: EngineModel, real: RealStore) {
    await real.reopen();
    model.restart();
    await verifyCommitted(model, real);
  }
}

export class CrashCommand extends EngineCommand {
  constructor(readonly tornWrites: boolean) { super(); }
  check() { return true; }
  toString() { return `crashAndReopen({ tornWrites: ${this.tornWrites} })`; }
  protected async execute(model: EngineModel, real: RealStore) {
    await real.crashAndReopen(this.tornWrites);
    model.restart();
    await verifyCommitted(model, real);
  }
}

/**
 * A checkpoint. In the background it runs on under the next commands (copy-on-write, swap writes
 * of blocks it has yet to reach, adoption of swap images); a restart may cut it anywhere.
 */
export class CheckpointCommand extends EngineCommand {
  constructor(readonly background: boolean) { super(); }
  check() { return true; }
  toString() { return `checkpoint({ background: ${this.background} })`; }
  protected async execute(_model: EngineModel, real: RealStore) {
    await real.checkpointRunning;
    // A crash or close may cut a background checkpoint short: the xlog still has everything.
    const run = real.store.checkpoint().catch(() => undefined);
    if (this.background) real.checkpointRunning = run;
    else await run;
  }
}

/** Evicts every block that may go: the next access to any of them is a swap read. */
export class EvictCommand extends EngineCommand {
  check() { return true; }
  toString() { return 'evictAll()'; }
  protected async execute(_model: EngineModel, real: RealStore) {
    real.store.evictAll();
  }
}

/** A crash `turns` macrotasks into an auto-commit multiPut. */
export class CrashDuringPutCommand extends EngineCommand {
  constructor(
    readonly kind: SchemaKind,
    readonly rows: Row[],
    readonly turns: number,
    readonly tornWrites: boolean,
  ) { super(); }

  check(model: Readonly<EngineModel>) {
    const spec = SCHEMAS[this.kind];
    const keys = spec.keyed ? this.rows.map((row) => keyOfRow(spec, row)) : [];
    return model.containers.has(this.kind) && !model.keysLockedByOthers(undefined, this.kind, keys);
  }

  toString() {
    return `crashDuring(${this.kind}.multiPut(${show(this.rows)}), after ${this.turns} turns, ` +
      `tornWrites: ${this.tornWrites})`;
  }

  protected async execute(model: EngineModel, real: RealStore) {
    const before = model.visibleRows(undefined, this.kind);
    const after = model.withCommitted(this.kind, this.rows);
    const put = real.store.session().container(name(this.kind)).multiPut(copy(this.rows));
    const acknowledged = put.then(() => true, () => false);
    if (this.turns === 0) {
      // A SimFileSystem datasync takes a macrotask: after microtasks only, nothing is durable yet,
      // so nobody may see the batch.
      for (let turn = 0; turn < 20; turn++) await Promise.resolve();
      const seen = await real.store.session().container(name(this.kind)).scan();
      assert.deepStrictEqual(seen, before, 'a multiPut is visible before it is durable');
    }
    for (let turn = 0; turn < this.turns; turn++) await nextMacrotask();
    real.crash(this.tornWrites);
    const wasAcknowledged = await acknowledged;
    await real.open();
    const rows = await real.store.session().container(name(this.kind)).scan();
    if (wasAcknowledged) {
      assert.deepStrictEqual(rows, after, 'an acknowledged multiPut is lost or torn');
    } else {
      assert.ok(isDeepStrictEqual(rows, before) || isDeepStrictEqual(rows, after),
        `an unacknowledged multiPut survived in part: ${show(rows)}`);
    }
    model.setCommitted(this.kind, rows);
    model.restart();
    await verifyCommitted(model, real);
  }
}

/** A crash `turns` macrotasks into a create or a drop. */
export class CrashDuringDdlCommand extends EngineCommand {
  constructor(
    readonly kind: SchemaKind,
    readonly verb: 'create' | 'drop',
    readonly turns: number,
    readonly tornWrites: boolean,
  ) { super(); }

  /** A drop would wait for a transaction with changes, and the crash would cut the wait short. */
  check(model: Readonly<EngineModel>) {
    return this.verb === 'create' || !model.anyPendingWrites(this.kind);
  }

  toString() {
    return `crashDuring(${this.verb}(${name(this.kind)}), after ${this.turns} turns, ` +
      `tornWrites: ${this.tornWrites})`;
  }

  protected async execute(model: EngineModel, real: RealStore) {
    const existed = model.containers.has(this.kind);
    const rowsBefore = model.visibleRows(undefined, this.kind);
    const ddl = this.verb === 'create'
      ? real.store.createContainer(copy(SCHEMAS[this.kind].definition))
      : real.store.dropContainer(name(this.kind));
    const acknowledged = ddl.then(() => true, () => false);
    for (let turn = 0; turn < this.turns; turn++) await nextMacrotask();
    real.crash(this.tornWrites);
    const wasAcknowledged = await acknowledged;
    await real.open();
    const info = real.store.getContainerInfo(name(this.kind));
    if (wasAcknowledged) {
      assert.equal(info !== undefined, this.verb === 'create', 'an acknowledged DDL is lost');
    }
    model.restart();
    if (info === undefined) {
      model.drop(this.kind);
    } else {
      const rows = await real.store.session().container(name(this.kind)).scan();
      assert.deepStrictEqual(rows, existed ? rowsBefore : [], 'rows after a crash during DDL');
      model.create(this.kind, info.name);
    }
    await verifyCommitted(model, real);
  }
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
