// Request commands of the engine model test (catalog, writes, reads, transactions) and the
// arbitraries that build every command. check() keeps out requests that would wait for a lock
// (lock behaviour is tested in test/unit/engine/transactions.test.ts), so no run depends on timing.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Row, RowKey } from '../../lib/schema/column-type.ts';
import { SESSION_COUNT, type EngineModel, type ModelScan } from './engine-model.ts';
import {
  copy, EngineCommand, expectStorageError, show, type RealStore,
} from './engine-model-real.ts';
import {
  CheckpointCommand, CrashCommand, CrashDuringDdlCommand, CrashDuringPutCommand, EvictCommand,
  ReopenCommand,
} from './engine-model-restarts.ts';
import {
  BAD_ROW_KINDS, badRow, keyOfRow, nameSpelling, SCHEMA_KINDS, SCHEMAS,
  type BadRowKind, type SchemaKind,
} from './engine-model-schemas.ts';

const exists = (model: Readonly<EngineModel>, kind: SchemaKind) => model.containers.has(kind);
const name = (kind: SchemaKind) => SCHEMAS[kind].definition.name;
const spelled = (kind: SchemaKind, variant: number) => nameSpelling(SCHEMAS[kind], variant);

/** Resolves true when the container is missing (or keyless) and the request failed as it must. */
async function refusedAsMissing(
  model: EngineModel,
  kind: SchemaKind,
  request: Promise<unknown>,
  what: string,
): Promise<boolean> {
  if (!exists(model, kind)) {
    await expectStorageError(request, 'CONTAINER_NOT_FOUND', what);
    return true;
  }
  if (!SCHEMAS[kind].keyed) {
    await expectStorageError(request, 'KEY_REQUIRED', what);
    return true;
  }
  return false;
}

// ---- catalog -----------------------------------------------------------------------------------

class CreateCommand extends EngineCommand {
  constructor(readonly kind: SchemaKind, readonly spelling: number) { super(); }
  check() { return true; }
  toString() { return `create(${spelled(this.kind, this.spelling)})`; }
  protected async execute(model: EngineModel, real: RealStore) {
    const spelling = spelled(this.kind, this.spelling);
    const definition = { ...copy(SCHEMAS[this.kind].definition), name: spelling };
    const info = await real.store.createContainer(definition);
    model.create(this.kind, spelling);
    assert.equal(info.name, model.containers.get(this.kind)!.name, 'keeps the first spelling');
    assert.equal(info.rowCount, model.committedCount(this.kind), 'rowCount after create');
  }
}

class CreateConflictCommand extends EngineCommand {
  constructor(readonly kind: SchemaKind) { super(); }
  check(model: Readonly<EngineModel>) { return exists(model, this.kind); }
  toString() { return `createWithOtherSchema(${this.kind})`; }
  protected async execute(model: EngineModel, real: RealStore) {
    const created = real.store.createContainer(copy(SCHEMAS[this.kind].conflicting));
    await expectStorageError(created, 'CONTAINER_EXISTS', this.toString());
    const info = real.store.getContainerInfo(name(this.kind));
    assert.equal(info?.rowCount, model.committedCount(this.kind));
  }
}

class DropCommand extends EngineCommand {
  constructor(readonly kind: SchemaKind, readonly spelling: number) { super(); }
  /** A transaction with changes holds intents: drop would wait for it. */
  check(model: Readonly<EngineModel>) { return !model.anyPendingWrites(this.kind); }
  toString() { return `drop(${spelled(this.kind, this.spelling)})`; }
  protected async execute(model: EngineModel, real: RealStore) {
    const dropped = await real.store.dropContainer(spelled(this.kind, this.spelling));
    assert.equal(dropped, model.drop(this.kind), this.toString());
    assert.deepStrictEqual(real.store.listContainers(), model.containerNames());
  }
}

class InfoCommand extends EngineCommand {
  constructor(readonly kind: SchemaKind, readonly spelling: number) { super(); }
  check() { return true; }
  toString() { return `info(${spelled(this.kind, this.spelling)})`; }
  protected async execute(model: EngineModel, real: RealStore) {
    const info = real.store.getContainerInfo(spelled(this.kind, this.spelling));
    assert.equal(info?.name, model.containers.get(this.kind)?.name, this.toString());
    if (info !== undefined) assert.equal(info.rowCount, model.committedCount(this.kind));
    assert.deepStrictEqual(real.store.listContainers(), model.containerNames());
  }
}

// ---- writes ------------------------------------------------------------------------------------

class PutCommand extends EngineCommand {
  constructor(
    readonly session: number,
    readonly kind: SchemaKind,
    readonly rows: Row[],
    readonly multi: boolean,
  ) { super(); }

  check(model: Readonly<EngineModel>) {
    const spec = SCHEMAS[this.kind];
    if (!exists(model, this.kind) || !spec.keyed) return true;
    const keys = this.rows.map((row) => keyOfRow(spec, row));
    return !model.keysLockedByOthers(this.session, this.kind, keys);
  }

  toString() {
    const call = this.multi ? `multiPut(${show(this.rows)})` : `put(${show(this.rows[0])})`;
    return `s${this.session}.${this.kind}.${call}`;
  }

  protected async execute(model: EngineModel, real: RealStore) {
    const handle = real.handle(this.session, this.kind);
    const done = this.multi ? handle.multiPut(copy(this.rows)) : handle.put(copy(this.rows[0]!));
    if (!exists(model, this.kind)) {
      await expectStorageError(done, 'CONTAINER_NOT_FOUND', this.toString());
      return;
    }
    await done;
    model.put(this.session, this.kind, this.rows);
  }
}

/** A multiPut whose last row is bad writes nothing, not even into an open transaction. */
class BadMultiPutCommand extends EngineCommand {
  constructor(
    readonly session: number,
    readonly kind: SchemaKind,
    readonly rows: Row[],
    readonly bad: BadRowKind,
  ) { super(); }

  check(model: Readonly<EngineModel>) {
    const bad = badRow(SCHEMAS[this.kind], this.rows.at(-1)!, this.bad);
    return exists(model, this.kind) && bad !== undefined;
  }

  toString() {
    const call = `multiPut(${show(this.rows)} but the last row ${this.bad})`;
    return `s${this.session}.${this.kind}.${call}`;
  }

  protected async execute(model: EngineModel, real: RealStore) {
    const bad = badRow(SCHEMAS[this.kind], this.rows.at(-1)!, this.bad)!;
    const rows = [...copy(this.rows.slice(0, -1)), bad.row] as Row[];
    const handle = real.handle(this.session, this.kind);
    await expectStorageError(handle.multiPut(rows), bad.code, this.toString());
    assert.deepStrictEqual(await handle.scan(),
      model.scan(this.session, this.kind, { direction: 'asc' }), 'rows after a refused multiPut');
  }
}

class RemoveCommand extends EngineCommand {
  constructor(readonly session: number, readonly kind: SchemaKind, readonly key: RowKey) {
    super();
  }

  check(model: Readonly<EngineModel>) {
    return !exists(model, this.kind) || !SCHEMAS[this.kind].keyed ||
      !model.keysLockedByOthers(this.session, this.kind, [this.key]);
  }

  toString() { return `s${this.session}.${this.kind}.remove(${show(this.key)})`; }

  protected async execute(model: EngineModel, real: RealStore) {
    const removed = real.handle(this.session, this.kind).remove(copy(this.key));
    if (await refusedAsMissing(model, this.kind, removed, this.toString())) return;
    const expected = model.remove(this.session, this.kind, this.key);
    assert.equal(await removed, expected, this.toString());
  }
}

// ---- reads -------------------------------------------------------------------------------------

class GetCommand extends EngineCommand {
  constructor(readonly session: number, readonly kind: SchemaKind, readonly key: RowKey) {
    super();
  }

  check() { return true; }
  toString() { return `s${this.session}.${this.kind}.get(${show(this.key)})`; }

  protected async execute(model: EngineModel, real: RealStore) {
    const row = real.handle(this.session, this.kind).get(copy(this.key));
    if (await refusedAsMissing(model, this.kind, row, this.toString())) return;
    const expected = model.get(this.session, this.kind, this.key);
    assert.deepStrictEqual(await row, expected, this.toString());
  }
}

class ScanCommand extends EngineCommand {
  constructor(readonly session: number, readonly kind: SchemaKind, readonly range: ModelScan) {
    super();
  }

  check() { return true; }
  toString() { return `s${this.session}.${this.kind}.scan(${show(this.range)})`; }

  protected async execute(model: EngineModel, real: RealStore) {
    const rows = real.handle(this.session, this.kind).scan(copy(this.range));
    // A keyless collection scans in rowId order; only bounds need a row key.
    const bounded = this.range.from !== undefined || this.range.to !== undefined;
    const refusable = bounded || !exists(model, this.kind);
    if (refusable && await refusedAsMissing(model, this.kind, rows, this.toString())) return;
    const expected = model.scan(this.session, this.kind, this.range);
    assert.deepStrictEqual(await rows, expected, this.toString());
  }
}

class CountCommand extends EngineCommand {
  constructor(readonly session: number, readonly kind: SchemaKind) { super(); }
  check() { return true; }
  toString() { return `s${this.session}.${this.kind}.count()`; }
  protected async execute(model: EngineModel, real: RealStore) {
    const count = real.handle(this.session, this.kind).count();
    if (!exists(model, this.kind)) {
      await expectStorageError(count, 'CONTAINER_NOT_FOUND', this.toString());
      return;
    }
    assert.equal(await count, model.visibleRows(this.session, this.kind).length, this.toString());
  }
}

// ---- transactions and sessions -----------------------------------------------------------------

type TransactionVerb = 'manual' | 'auto' | 'commit' | 'abort';

const VERB_CALLS: Record<TransactionVerb, string> = {
  manual: 'setAutoCommit(false)', auto: 'setAutoCommit(true)', commit: 'commit()', abort: 'abort()',
};

class TransactionCommand extends EngineCommand {
  constructor(
    readonly session: number,
    readonly kind: SchemaKind,
    readonly verb: TransactionVerb,
  ) { super(); }

  check() { return true; }
  toString() { return `s${this.session}.${this.kind}.${VERB_CALLS[this.verb]}`; }

  protected async execute(model: EngineModel, real: RealStore) {
    const handle = real.handle(this.session, this.kind);
    if (this.verb === 'manual' || this.verb === 'auto') {
      await handle.setAutoCommit(this.verb === 'auto');
      model.setAutoCommit(this.session, this.kind, this.verb === 'auto');
    } else if (this.verb === 'commit') {
      await handle.commit();
      model.commit(this.session, this.kind);
    } else {
      await handle.abort();
      model.abort(this.session, this.kind);
    }
    assert.equal(handle.isAutoCommit, !model.isManual(this.session, this.kind));
  }
}

class CloseSessionCommand extends EngineCommand {
  constructor(readonly session: number) { super(); }
  check() { return true; }
  toString() { return `s${this.session}.close()`; }
  protected async execute(model: EngineModel, real: RealStore) {
    real.sessions[this.session]!.close();
    real.sessions[this.session] = await real.newSession(this.session);
    model.closeSession(this.session);
  }
}

// ---- set-up ------------------------------------------------------------------------------------

export type InitialContainers = Array<{ kind: SchemaKind; rows: Row[] }>;

/** Most containers exist from the start, with a few committed rows, so commands find data. */
export function initialContainers(kinds: readonly SchemaKind[]): fc.Arbitrary<InitialContainers> {
  const each = kinds.map((kind) => {
    const rows = fc.array(SCHEMAS[kind].row, { maxLength: 8 });
    return fc.option(rows, { nil: undefined, freq: 4 })
      .map((some) => (some === undefined ? [] : [{ kind, rows: some }]));
  });
  return fc.tuple(...each).map((lists) => lists.flat());
}

export async function createInitialContainers(
  model: EngineModel,
  real: RealStore,
  initial: InitialContainers,
): Promise<void> {
  const session = real.store.session();
  for (const { kind, rows } of initial) {
    await real.store.createContainer(copy(SCHEMAS[kind].definition));
    await session.container(name(kind)).multiPut(copy(rows));
    model.create(kind, name(kind));
    model.setCommitted(kind, model.withCommitted(kind, rows));
  }
  session.close();
}

// ---- arbitraries -------------------------------------------------------------------------------

type Command = fc.AsyncCommand<EngineModel, RealStore>;

/** Sessions 0 and 1 most often, so their transactions meet more. */
const session = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 4, arbitrary: fc.constant(1) },
  { weight: 1, arbitrary: fc.nat(SESSION_COUNT - 1) },
);
const spelling = fc.nat(2);
const verb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom<TransactionVerb>('manual', 'commit') },
  { weight: 1, arbitrary: fc.constantFrom<TransactionVerb>('auto', 'abort') },
);

function scanRange(kind: SchemaKind): fc.Arbitrary<ModelScan> {
  const bound = fc.option(SCHEMAS[kind].key, { nil: undefined, freq: 2 });
  const direction = fc.constantFrom('asc' as const, 'desc' as const);
  const limit = fc.option(fc.nat(4), { nil: undefined });
  return fc.tuple(bound, bound, direction, limit).map(([from, to, order, count]) => {
    // Members left out rather than undefined: a missing bound means none.
    const range: ModelScan = { direction: order };
    if (from !== undefined) range.from = from;
    if (to !== undefined) range.to = to;
    if (count !== undefined) range.limit = count;
    return range;
  });
}

function kindCommands(kind: SchemaKind): Array<fc.WeightedArbitrary<Command>> {
  const spec = SCHEMAS[kind];
  const rows = fc.array(spec.row, { minLength: 1, maxLength: 6 });
  const at = (weight: number, arbitrary: fc.Arbitrary<Command>) => ({ weight, arbitrary });
  const ddl = fc.constantFrom('create' as const, 'drop' as const);
  return [
    at(4, spelling.map((s) => new CreateCommand(kind, s))),
    at(1, fc.constant(new CreateConflictCommand(kind))),
    at(1, spelling.map((s) => new DropCommand(kind, s))),
    at(1, spelling.map((s) => new InfoCommand(kind, s))),
    at(6, fc.tuple(session, spec.row).map(([s, row]) => new PutCommand(s, kind, [row], false))),
    at(5, fc.tuple(session, rows).map(([s, batch]) => new PutCommand(s, kind, batch, true))),
    at(1, fc.tuple(session, rows, fc.constantFrom(...BAD_ROW_KINDS))
      .map(([s, batch, bad]) => new BadMultiPutCommand(s, kind, batch, bad))),
    at(4, fc.tuple(session, spec.key).map(([s, key]) => new RemoveCommand(s, kind, key))),
    at(3, fc.tuple(session, spec.key).map(([s, key]) => new GetCommand(s, kind, key))),
    at(5, fc.tuple(session, scanRange(kind)).map(([s, range]) => new ScanCommand(s, kind, range))),
    at(2, session.map((s) => new CountCommand(s, kind))),
    at(6, fc.tuple(session, verb).map(([s, v]) => new TransactionCommand(s, kind, v))),
    at(1, fc.tuple(rows, fc.nat(3), fc.boolean())
      .map(([batch, turns, torn]) => new CrashDuringPutCommand(kind, batch, turns, torn))),
    at(1, fc.tuple(ddl, fc.nat(4), fc.boolean())
      .map(([what, turns, torn]) => new CrashDuringDdlCommand(kind, what, turns, torn))),
  ];
}

/**
 * Every command on containers of `kinds`, weighted so that runs write more than they restart and
 * spend much of their time inside transactions.
 */
export function engineCommand(kinds: readonly SchemaKind[] = SCHEMA_KINDS): fc.Arbitrary<Command> {
  return fc.oneof(
    ...kinds.flatMap(kindCommands),
    { weight: 2, arbitrary: fc.constant(new ReopenCommand()) },
    { weight: 2, arbitrary: fc.boolean().map((torn) => new CrashCommand(torn)) },
    { weight: 2, arbitrary: fc.boolean().map((background) => new CheckpointCommand(background)) },
    { weight: 1, arbitrary: fc.constant(new EvictCommand()) },
    { weight: 1, arbitrary: session.map((s) => new CloseSessionCommand(s)) },
  );
}
