// The backtracking matcher of MATCH_RECOGNIZE: runs a compiled row pattern
// (lib/sql/plan/row-pattern-program.ts) over the rows of one partition from one start row, and
// gives the first match in SQL:2016's preference order, or none. DEFINE conditions see the match
// so far (the labels of the rows before, and the variable the current row would take), so they
// are tested as the rows are taken, in the branch being tried; that is why this is a backtracking
// matcher and not a set-of-states NFA: two branches at one instruction may hold different labels.
//
// The matcher is resumable: `run(stepBudget)` does at most that many steps and says whether it is
// done, so the executor can give the event loop a turn between slices (work-slice.ts) and a
// pathological pattern can be cancelled or time out. One attempt may take at most `stepCountMax`
// steps (LIMIT_EXCEEDED past it); its backtracking stack is charged to the statement's work
// memory in chunks, so the states it holds are bounded by the work memory as well.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import type { SqlRowPatternProgram } from '../plan/row-pattern-program.ts';
import type { SqlWorkMemory } from './work-memory.ts';

/** Whether `variable`'s DEFINE holds for row `labels.length - 1` of the match (labels include it). */
export type SqlRowPatternTest = (variable: number, labels: readonly number[]) => boolean;

export type SqlRowPatternRun =
  | { readonly kind: 'running' }
  | { readonly kind: 'matched'; readonly labels: readonly number[] }
  | { readonly kind: 'failed' };

/** Numbers per stack entry: a choice (pc ≥ 0, position, label count) or an undone mark (-1 - slot, old). */
const ENTRY_WIDTH = 3;
const STACK_CHUNK_ENTRY_COUNT = 1024;
const STACK_ENTRY_BYTES = 8 * ENTRY_WIDTH;

export class SqlRowPatternMatcher {
  private pc = 0;
  private position = 0;
  private labels: number[] = [];
  private readonly stack: number[] = [];
  private readonly marks: number[];
  private stepCount = 0;
  private chargedBytes = 0;
  private state: 'idle' | 'running' = 'idle';

  constructor(private readonly options: {
    readonly program: SqlRowPatternProgram; readonly rowCount: number; readonly test: SqlRowPatternTest;
    readonly stepCountMax: number; readonly memory: SqlWorkMemory;
  }) {
    assert(options.program.instructions.length > 0);
    assert(options.stepCountMax > 0);
    this.marks = new Array<number>(options.program.slotCount).fill(-1);
  }

  /** Steps the current attempt took so far. */
  get steps(): number {
    return this.stepCount;
  }

  /** Starts an attempt at row `start` of the partition. */
  start(start: number): void {
    assert(start >= 0 && start < this.options.rowCount);
    this.end();
    this.pc = 0;
    this.position = start;
    this.labels = [];
    this.stepCount = 0;
    this.marks.fill(-1);
    this.state = 'running';
  }

  /** Ends the attempt: gives back the stack's work memory. */
  end(): void {
    this.stack.length = 0;
    this.options.memory.release(this.chargedBytes);
    this.chargedBytes = 0;
    this.state = 'idle';
  }

  run(stepBudget: number): SqlRowPatternRun {
    assert(this.state === 'running');
    const { instructions } = this.options.program;
    for (let budget = stepBudget; budget > 0; budget--) {
      if (++this.stepCount > this.options.stepCountMax) {
        this.end();
        throw new StorageError('LIMIT_EXCEEDED', `MATCH_RECOGNIZE: matching from one row took more than ` +
          `${this.options.stepCountMax} steps (SQL_ROW_PATTERN_STEP_COUNT_MAX): the PATTERN backtracks ` +
          'too much; make its variables exclude each other or its quantifiers bounded');
      }
      const instruction = instructions[this.pc]!;
      let ok = true;
      switch (instruction.op) {
        case 'row': ok = this.takeRow(instruction.variable); break;
        case 'split':
          this.push(instruction.second, this.position, this.labels.length);
          this.pc = instruction.first;
          break;
        case 'jump': this.pc = instruction.to; break;
        case 'mark':
          this.push(-1 - instruction.slot, this.marks[instruction.slot]!, 0);
          this.marks[instruction.slot] = this.position;
          this.pc++;
          break;
        case 'progress':
          ok = this.marks[instruction.slot] !== this.position;
          this.pc++;
          break;
        case 'anchor':
          ok = instruction.anchor === '^' ? this.position === 0 : this.position === this.options.rowCount;
          this.pc++;
          break;
        case 'match': {
          const labels = this.labels;
          this.end();
          return { kind: 'matched', labels };
        }
      }
      if (!ok && !this.backtrack()) {
        this.end();
        return { kind: 'failed' };
      }
    }
    return { kind: 'running' };
  }

  private takeRow(variable: number): boolean {
    if (this.position >= this.options.rowCount) return false;
    this.labels.push(variable);
    if (!this.options.test(variable, this.labels)) {
      this.labels.pop();
      return false;
    }
    this.position++;
    this.pc++;
    return true;
  }

  private push(a: number, b: number, c: number): void {
    this.stack.push(a, b, c);
    const needBytes = Math.ceil(this.stack.length / ENTRY_WIDTH / STACK_CHUNK_ENTRY_COUNT) *
      STACK_CHUNK_ENTRY_COUNT * STACK_ENTRY_BYTES;
    if (needBytes > this.chargedBytes) {
      this.options.memory.charge(needBytes - this.chargedBytes, 'MATCH_RECOGNIZE');
      this.chargedBytes = needBytes;
    }
  }

  /** Resumes at the latest choice, undoing marks made since; false when none is left. */
  private backtrack(): boolean {
    const stack = this.stack;
    while (stack.length > 0) {
      const c = stack.pop()!;
      const b = stack.pop()!;
      const a = stack.pop()!;
      if (a < 0) {
        this.marks[-1 - a] = b;
        continue;
      }
      this.pc = a;
      this.position = b;
      assert(c <= this.labels.length);
      this.labels.length = c;
      return true;
    }
    return false;
  }
}
