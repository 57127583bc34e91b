// The parent's side of the crash test: read what a killed child printed, keep a model of what the
// store must hold, and compare a recovered store with it.
//
// The model holds every acknowledged operation of every run so far. After a kill each writer has
// at most one operation begun and not acknowledged; it may have committed or not, but never in
// part. The check decides which from the store (per key: new value, old value, or either when they
// agree), folds a committed one into the model, and then requires the store to equal the model
// exactly: no acknowledged change lost, nothing else visible.

import { isDeepStrictEqual } from 'node:util';
import { assert } from '../../lib/base/assert.ts';
import type { Store } from '../../lib/engine/store.ts';
import type { KeyValue, Row } from '../../lib/schema/column-type.ts';
import {
  formatIngestOpId, formatIngestOpNumber, INGEST_CONTAINERS, INGEST_WRITER_COUNT, ingestOp,
  ingestOpEffects, parseIngestOpId, type IngestOp, type IngestOpId,
} from './ingest-workload.ts';

/** Problems listed in a failure message, at most; the count says how many there were. */
const PROBLEM_COUNT_SHOWN_MAX = 12;

export interface ChildTranscript {
  opened: boolean;
  ready: boolean;
  /** In the order printed; per writer that is commit order. */
  acked: IngestOpId[];
  /** Begun and not acknowledged: at most one per writer. */
  pending: IngestOpId[];
}

/** Parses a child's stdout. A last line without its newline was cut by the kill: not printed. */
export function parseChildTranscript(stdout: string, iteration: number): ChildTranscript {
  const lines = stdout.split('\n');
  lines.pop();
  const transcript: ChildTranscript = { opened: false, ready: false, acked: [], pending: [] };
  const openByWriter = new Map<number, IngestOpId>();
  const nextSeqByWriter = new Map<number, number>();
  for (const line of lines) {
    const [event, argument] = line.split(' ');
    if (event === 'OPENING') transcript.opened = true;
    else if (event === 'READY') transcript.ready = true;
    else if (event === 'BEGIN' || event === 'ACK') {
      const id = parseIngestOpId(argument ?? '');
      if (id.iteration !== iteration) throw new Error(`run ${iteration} printed ${line}`);
      const open = openByWriter.get(id.writer);
      if (event === 'BEGIN') {
        const expectedSeq = nextSeqByWriter.get(id.writer) ?? 0;
        if (open !== undefined || id.seq !== expectedSeq) throw new Error(`out of order: ${line}`);
        openByWriter.set(id.writer, id);
        nextSeqByWriter.set(id.writer, id.seq + 1);
      } else {
        if (open?.seq !== id.seq) throw new Error(`ACK without BEGIN: ${line}`);
        openByWriter.delete(id.writer);
        transcript.acked.push(id);
      }
    } else {
      throw new Error(`unexpected line from the child: ${JSON.stringify(line)}`);
    }
  }
  transcript.pending = [...openByWriter.values()];
  assert(transcript.pending.length <= INGEST_WRITER_COUNT);
  return transcript;
}

export interface IngestCheckReport {
  problems: string[];
  /** Un-acknowledged operations found wholly committed, and wholly absent. */
  pendingCommittedCount: number;
  pendingAbsentCount: number;
  rowCount: number;
}

/** What the store must hold: container → key → row. */
export class IngestModel {
  readonly containers = new Map<string, Map<KeyValue, Row>>(
    INGEST_CONTAINERS.map((definition) => [definition.name, new Map()]),
  );

  apply(op: IngestOp): void {
    const rows = this.containers.get(op.container)!;
    for (const [key, row] of ingestOpEffects(op)) {
      if (row === null) rows.delete(key);
      else rows.set(key, row);
    }
  }

  get rowCount(): number {
    let count = 0;
    for (const rows of this.containers.values()) count += rows.size;
    return count;
  }
}

/**
 * Folds a run's acknowledged operations into the model, settles its pending ones from the store,
 * and compares the store with the model. Returns every problem found (empty means good).
 */
export async function checkIngestStore(
  store: Store,
  model: IngestModel,
  run: { seed: number; transcript: ChildTranscript },
): Promise<IngestCheckReport> {
  for (const id of run.transcript.acked) model.apply(ingestOp(run.seed, id));
  const problems: string[] = [];
  const actual = new Map<string, Map<KeyValue, Row>>();
  for (const name of model.containers.keys()) {
    actual.set(name, await readContainer(store, name, problems));
  }
  const report: IngestCheckReport = {
    problems, pendingCommittedCount: 0, pendingAbsentCount: 0, rowCount: 0,
  };
  for (const id of run.transcript.pending) {
    const op = ingestOp(run.seed, id);
    const verdict = settlePending(op, {
      model: model.containers.get(op.container)!, actual: actual.get(op.container)!,
    });
    if (verdict.kind === 'partial') {
      problems.push(`un-acknowledged ${op.kind} ${formatIngestOpId(id)} on ${op.container} is ` +
        `partly visible: ${verdict.committedKeyCount} keys committed, ` +
        `${verdict.absentKeyCount} not`);
    } else if (verdict.kind === 'committed') {
      model.apply(op);
      report.pendingCommittedCount += 1;
    } else {
      report.pendingAbsentCount += 1;
    }
  }
  for (const [name, expected] of model.containers) {
    compareRows(name, { expected, actual: actual.get(name)! }, problems);
  }
  report.rowCount = model.rowCount;
  return report;
}

export function formatProblems(problems: readonly string[]): string {
  const shown = problems.slice(0, PROBLEM_COUNT_SHOWN_MAX).map((problem) => `  ${problem}`);
  const more = problems.length - shown.length;
  return [`${problems.length} problems:`, ...shown, ...(more > 0 ? [`  ... and ${more} more`] : [])]
    .join('\n');
}

/** A container's rows by key, after checking that scans both ways and count() agree. */
async function readContainer(store: Store, name: string, problems: string[]) {
  const rows = new Map<KeyValue, Row>();
  if (store.getContainerInfo(name) === undefined) return rows; // never created: no row acked
  const handle = store.session().container(name);
  const ascending = await handle.scan({ direction: 'asc' });
  const descending = await handle.scan({ direction: 'desc' });
  const count = await handle.count();
  if (count !== ascending.length) {
    problems.push(`${name}: count() is ${count}, a scan returns ${ascending.length} rows`);
  }
  if (!isDeepStrictEqual(descending.reverse(), ascending)) {
    problems.push(`${name}: a descending scan is not the ascending scan reversed`);
  }
  for (const [index, row] of ascending.entries()) {
    const key = row[0] as KeyValue;
    if (index > 0 && !((ascending[index - 1]![0] as KeyValue) < key)) {
      problems.push(`${name}: scan out of key order at ${String(key)}`);
    }
    rows.set(key, row);
  }
  return rows;
}

type PendingVerdict =
  | { kind: 'committed' | 'absent' }
  | { kind: 'partial'; committedKeyCount: number; absentKeyCount: number };

/**
 * Whether an un-acknowledged operation committed: each key it changes shows its new row, its old
 * row, or (when they agree) either. Keys showing neither are left to the full comparison.
 */
function settlePending(
  op: IngestOp,
  { model, actual }: { model: Map<KeyValue, Row>; actual: Map<KeyValue, Row> },
): PendingVerdict {
  let committedKeyCount = 0;
  let absentKeyCount = 0;
  for (const [key, row] of ingestOpEffects(op)) {
    const now = actual.get(key) ?? null;
    const isNew = isDeepStrictEqual(now, row);
    const isOld = isDeepStrictEqual(now, model.get(key) ?? null);
    if (isNew && !isOld) committedKeyCount += 1;
    if (isOld && !isNew) absentKeyCount += 1;
  }
  if (committedKeyCount > 0 && absentKeyCount > 0) {
    return { kind: 'partial', committedKeyCount, absentKeyCount };
  }
  return { kind: committedKeyCount > 0 ? 'committed' : 'absent' };
}

function compareRows(
  name: string,
  rows: { expected: Map<KeyValue, Row>; actual: Map<KeyValue, Row> },
  problems: string[],
): void {
  for (const [key, expected] of rows.expected) {
    const actual = rows.actual.get(key);
    if (actual === undefined) {
      problems.push(`${name}: acknowledged row ${String(key)} ${formatRow(expected)} is lost`);
    } else if (!isDeepStrictEqual(actual, expected)) {
      problems.push(`${name}: row ${String(key)} is ${formatRow(actual)}, ` +
        `expected ${formatRow(expected)}`);
    }
  }
  for (const [key, actual] of rows.actual) {
    if (!rows.expected.has(key)) {
      problems.push(`${name}: row ${String(key)} ${formatRow(actual)} should not exist ` +
        '(removed by an acknowledged operation, never written, or from an aborted one)');
    }
  }
}

/** A row with its writer's operation id in place of the raw batch number. */
function formatRow(row: Row): string {
  const batch = row[2];
  const written = typeof batch === 'bigint' ? ` by ${formatIngestOpNumber(batch)}` : '';
  return `[${row.map(String).join(', ')}]${written}`;
}
