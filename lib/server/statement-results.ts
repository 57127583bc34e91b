// The outcomes of write statements, so that a request retried with its statement id is answered
// with the first outcome and not applied again (DESIGN.md §4). A client numbers its write requests
// over all its connections; when a connection breaks with a write in flight, the client cannot
// know whether the write was applied, so it sends the very same request again on a new connection.
//
// Keyed by (client, statement id). A retry that arrives while the first attempt still runs waits
// for it. The outcome of a write inside a manual transaction dies with its session: when the
// session has closed (its connection broke, so the transaction was aborted), the entry no longer
// answers, and the retry runs and learns that the session is gone. Commits, aborts and auto-commit
// writes are durable outcomes and keep answering.
//
// Bounded twice: the oldest outcomes overall beyond countMax are forgotten, and a client's own
// oldest beyond countPerClientMax (so one busy client forgets its own, not others'). A client
// retries within seconds; outcomes do not survive a restart.
//
// Memory: the table holds every write of the last minute or so (131,072 at the soak's ~2,000
// writes a second), so each entry outlives the young generation of the heap. An entry kept as
// objects (an entry, its Promise, a validity object, a Map slot) was old-space garbage once
// forgotten: ~30 MB of heap that rose and fell with each full collection, 35–40 MB of the node's
// RSS swinging (issue 12's soak: 12–14% spread). So entries live in typed columns, appended at
// `end` and compacted in place, found through an open-addressing index; an entry keeps no object
// of its own: its outcome (for a put, one frozen object shared by all) and, only while its outcome
// may stop holding, its validity.
//
//   slot columns (capacity slots, live ones between `head` and `end`, dead ones marked):
//     statementIds  Float64Array   the client's statement id
//     messageTypes  Int32Array     the request kind (a retry of another kind is refused)
//     states        Uint8Array     DEAD | RUNNING | VALUE | ERROR
//     clientPrev/Next Int32Array   the client's entries, oldest first (-1 ends)
//     clients       ClientState[]  whose entry; values: the Promise (RUNNING), value or error
//     validities    the outcome's validity while it may stop holding, else undefined
//   index: Int32Array of 2^k cells (at least twice the capacity), slot + 1 or 0 for empty,
//     linear probing from hash(client id, statement id), deletion by backward shift.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { MessageType } from '../protocol/message-types.ts';

/**
 * Whether a remembered outcome is still true, asked at each retry. An object with a method, not a
 * closure: a closure kept that long costs its context (every variable its scope shares with other
 * closures: a handler's request, once).
 */
export interface OutcomeValidity {
  holds(): boolean;
  /**
   * Asked once the outcome is settled: true when it holds for good, so the table lets the validity
   * go and keeps nothing but the outcome (an auto-commit write's). Absent: kept and asked.
   */
  holdsForGood?(): boolean;
}

export interface StatementKey {
  /** Who asked: the same for every connection of one client. */
  clientKey: string;
  statementId: number;
  messageType: MessageType;
}

/** A client with entries: its identity in the index and its entries' list, oldest first. */
interface ClientState {
  readonly clientKey: string;
  /** Hashed with the statement id; never reused, so a forgotten client's entry never matches. */
  readonly id: number;
  headSlot: number;
  tailSlot: number;
  entryCount: number;
}

const enum EntryState { DEAD = 0, RUNNING = 1, VALUE = 2, ERROR = 3 }

const NO_SLOT = -1;
/** Slots first made; the columns double up to twice countMax as entries come. */
const SLOT_CAPACITY_MIN = 64;

export class StatementResults {
  private readonly byKey = new Map<string, ClientState>();
  private nextClientId = 1;
  private capacity = 0;
  private statementIds = new Float64Array(0);
  private messageTypes = new Int32Array(0);
  private states = new Uint8Array(0);
  private clientPrev = new Int32Array(0);
  private clientNext = new Int32Array(0);
  private clients: (ClientState | undefined)[] = [];
  private values: unknown[] = [];
  private validities: (OutcomeValidity | undefined)[] = [];
  private index = new Int32Array(0);
  private indexMask = 0;
  /** Slots below are dead; the oldest live entry is at or after it. */
  private head = 0;
  /** The next slot an entry takes. */
  private end = 0;
  private entryCount = 0;

  constructor(
    private readonly countMax: number,
    private readonly countPerClientMax: number,
  ) {
    assert(Number.isSafeInteger(countMax) && countMax > 0);
    assert(Number.isSafeInteger(countPerClientMax) && countPerClientMax > 0);
    this.resize(Math.min(SLOT_CAPACITY_MIN, 2 * countMax));
  }

  get size(): number {
    return this.entryCount;
  }

  /**
   * Runs `execute` unless this statement ran already, in which case its first outcome (a value or
   * an error) is returned again. `validity` says, when given, whether that outcome is still true.
   */
  async once<T>(
    key: StatementKey,
    execute: () => Promise<T>,
    validity?: OutcomeValidity,
  ): Promise<T> {
    const client = this.byKey.get(key.clientKey);
    const existing = client === undefined ? NO_SLOT : this.find(client, key.statementId);
    if (existing !== NO_SLOT) {
      if (this.messageTypes[existing] !== key.messageType) {
        throw new StorageError('PROTOCOL_ERROR',
          `statement id ${key.statementId} was already used by another kind of request`);
      }
      if (this.holds(existing)) return this.outcome(existing) as Promise<T>;
      this.forget(existing);
    }
    let outcome: Promise<T>;
    try {
      outcome = execute();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    const remembered = this.remember(key, outcome, validity);
    // The outcome is awaited by the caller; the settling here also keeps a rejection handled.
    outcome.then((value) => this.settled(remembered, key.statementId, outcome, EntryState.VALUE, value),
      (error: unknown) => this.settled(remembered, key.statementId, outcome, EntryState.ERROR, error));
    return outcome;
  }

  /** Whether once() would answer this statement with an outcome it holds, without running it. */
  answers(key: StatementKey): boolean {
    const client = this.byKey.get(key.clientKey);
    const slot = client === undefined ? NO_SLOT : this.find(client, key.statementId);
    return slot !== NO_SLOT && this.messageTypes[slot] === key.messageType && this.holds(slot);
  }

  private holds(slot: number): boolean {
    const validity = this.validities[slot];
    return validity === undefined || validity.holds();
  }

  private outcome(slot: number): Promise<unknown> {
    const state = this.states[slot];
    if (state === EntryState.RUNNING) return this.values[slot] as Promise<unknown>;
    if (state === EntryState.VALUE) return Promise.resolve(this.values[slot]);
    assert(state === EntryState.ERROR);
    return Promise.reject(this.values[slot]);
  }

  /** The running outcome settled: kept as its value or error unless the entry went meanwhile. */
  private settled(client: ClientState, statementId: number, outcome: Promise<unknown>,
    state: EntryState.VALUE | EntryState.ERROR, value: unknown): void {
    const slot = this.find(client, statementId);
    if (slot === NO_SLOT || this.values[slot] !== outcome) return;
    assert(this.states[slot] === EntryState.RUNNING);
    this.states[slot] = state;
    this.values[slot] = value;
    if (this.validities[slot]?.holdsForGood?.() === true) this.validities[slot] = undefined;
  }

  private remember(key: StatementKey, outcome: Promise<unknown>,
    validity: OutcomeValidity | undefined): ClientState {
    let client = this.byKey.get(key.clientKey);
    if (client === undefined) {
      client = { clientKey: key.clientKey, id: this.nextClientId++, headSlot: NO_SLOT,
        tailSlot: NO_SLOT, entryCount: 0 };
      this.byKey.set(key.clientKey, client);
    }
    if (this.end === this.capacity) this.compact();
    const slot = this.end++;
    this.statementIds[slot] = key.statementId;
    this.messageTypes[slot] = key.messageType;
    this.states[slot] = EntryState.RUNNING;
    this.clients[slot] = client;
    this.values[slot] = outcome;
    this.validities[slot] = validity;
    this.clientAppend(client, slot);
    this.indexInsert(client, key.statementId, slot);
    this.entryCount++;
    if (client.entryCount > this.countPerClientMax) this.forget(client.headSlot);
    while (this.entryCount > this.countMax) this.forget(this.oldestLive());
    return client;
  }

  /** The oldest live entry's slot; the dead slots before it are passed for good. */
  private oldestLive(): number {
    while (this.states[this.head] === EntryState.DEAD) this.head++;
    assert(this.head < this.end, 'entries counted but none kept');
    return this.head;
  }

  private forget(slot: number): void {
    assert(slot >= 0 && slot < this.end);
    assert(this.states[slot] !== EntryState.DEAD);
    const client = this.clients[slot]!;
    this.indexDelete(slot);
    this.clientUnlink(client, slot);
    if (client.entryCount === 0) this.byKey.delete(client.clientKey);
    this.clearSlot(slot);
    this.entryCount--;
  }

  /**
   * Moves the live entries to the front of the columns, in order (each to a slot at or before its
   * own, so in place), and doubles the columns when they would be more than half full after: a
   * compaction then comes at most once per capacity / 2 entries remembered.
   */
  private compact(): void {
    let to = 0;
    for (let from = this.head; from < this.end; from++) {
      if (this.states[from] === EntryState.DEAD) continue;
      if (to !== from) this.moveSlot(from, to);
      to++;
    }
    assert(to === this.entryCount);
    for (let slot = to; slot < this.end; slot++) this.clearSlot(slot);
    this.head = 0;
    this.end = to;
    const capacityMax = 2 * this.countMax;
    if (2 * to >= this.capacity && this.capacity < capacityMax) {
      this.resize(Math.min(2 * this.capacity, capacityMax));
    } else {
      this.reindex();
    }
    assert(this.end < this.capacity);
  }

  private moveSlot(from: number, to: number): void {
    this.statementIds[to] = this.statementIds[from]!;
    this.messageTypes[to] = this.messageTypes[from]!;
    this.states[to] = this.states[from]!;
    this.clients[to] = this.clients[from];
    this.values[to] = this.values[from];
    this.validities[to] = this.validities[from];
  }

  /** A dead slot, holding nothing that could keep a value alive. */
  private clearSlot(slot: number): void {
    this.states[slot] = EntryState.DEAD;
    this.clients[slot] = undefined;
    this.values[slot] = undefined;
    this.validities[slot] = undefined;
  }

  /** New columns of `capacity` slots holding the live entries, which are at [0, end). */
  private resize(capacity: number): void {
    assert(capacity >= this.end);
    const grow = <A extends Float64Array | Int32Array | Uint8Array>(old: A, made: A): A => {
      made.set(old.subarray(0, this.end));
      return made;
    };
    this.statementIds = grow(this.statementIds, new Float64Array(capacity));
    this.messageTypes = grow(this.messageTypes, new Int32Array(capacity));
    this.states = grow(this.states, new Uint8Array(capacity));
    this.clientPrev = new Int32Array(capacity);
    this.clientNext = new Int32Array(capacity);
    const column = <T>(old: T[]): T[] => {
      const made = new Array<T>(capacity).fill(undefined as T);
      for (let slot = 0; slot < this.end; slot++) made[slot] = old[slot]!;
      return made;
    };
    this.clients = column(this.clients);
    this.values = column(this.values);
    this.validities = column(this.validities);
    this.capacity = capacity;
    let cells = 1;
    while (cells < 2 * capacity) cells *= 2;
    this.index = new Int32Array(cells);
    this.indexMask = cells - 1;
    this.reindex();
  }

  /** The index and the clients' lists made again from the live entries at [head, end). */
  private reindex(): void {
    this.index.fill(0);
    for (const client of this.byKey.values()) {
      client.headSlot = NO_SLOT;
      client.tailSlot = NO_SLOT;
      client.entryCount = 0;
    }
    for (let slot = this.head; slot < this.end; slot++) {
      if (this.states[slot] === EntryState.DEAD) continue;
      const client = this.clients[slot]!;
      this.clientAppend(client, slot);
      this.indexInsert(client, this.statementIds[slot]!, slot);
    }
  }

  private clientAppend(client: ClientState, slot: number): void {
    this.clientPrev[slot] = client.tailSlot;
    this.clientNext[slot] = NO_SLOT;
    if (client.tailSlot === NO_SLOT) client.headSlot = slot;
    else this.clientNext[client.tailSlot] = slot;
    client.tailSlot = slot;
    client.entryCount++;
  }

  private clientUnlink(client: ClientState, slot: number): void {
    const prev = this.clientPrev[slot]!;
    const next = this.clientNext[slot]!;
    if (prev === NO_SLOT) client.headSlot = next;
    else this.clientNext[prev] = next;
    if (next === NO_SLOT) client.tailSlot = prev;
    else this.clientPrev[next] = prev;
    client.entryCount--;
    assert(client.entryCount >= 0);
  }

  private cellOf(clientId: number, statementId: number): number {
    const low = statementId | 0;
    const high = Math.floor(statementId / 4294967296) | 0;
    let hash = Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) ^ Math.imul(clientId, 0x85ebca6b);
    hash ^= hash >>> 15;
    hash = Math.imul(hash, 0x2c1b3c6d);
    hash ^= hash >>> 12;
    return hash & this.indexMask;
  }

  private find(client: ClientState, statementId: number): number {
    for (let cell = this.cellOf(client.id, statementId); ; cell = (cell + 1) & this.indexMask) {
      const stored = this.index[cell]!;
      if (stored === 0) return NO_SLOT;
      const slot = stored - 1;
      if (this.clients[slot] === client && this.statementIds[slot] === statementId) return slot;
    }
  }

  private indexInsert(client: ClientState, statementId: number, slot: number): void {
    let cell = this.cellOf(client.id, statementId);
    while (this.index[cell] !== 0) cell = (cell + 1) & this.indexMask;
    this.index[cell] = slot + 1;
  }

  /** Removes `slot`'s cell, shifting back the cells of its probe run after it (no tombstones). */
  private indexDelete(slot: number): void {
    const client = this.clients[slot]!;
    let hole = this.cellOf(client.id, this.statementIds[slot]!);
    while (this.index[hole] !== slot + 1) {
      assert(this.index[hole] !== 0, 'a live entry is missing from the index');
      hole = (hole + 1) & this.indexMask;
    }
    for (let cell = (hole + 1) & this.indexMask; ; cell = (cell + 1) & this.indexMask) {
      const stored = this.index[cell]!;
      if (stored === 0) break;
      const other = stored - 1;
      const home = this.cellOf(this.clients[other]!.id, this.statementIds[other]!);
      // The cell moves into the hole unless its home lies cyclically in (hole, cell].
      const stays = hole <= cell ? home > hole && home <= cell : home > hole || home <= cell;
      if (stays) continue;
      this.index[hole] = stored;
      hole = cell;
    }
    this.index[hole] = 0;
  }
}
