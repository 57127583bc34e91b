// A row pattern (MATCH_RECOGNIZE's PATTERN) compiled for the backtracking matcher
// (row-pattern-matcher.ts): a list of instructions in the style of a backtracking regex VM.
//
//   row v         the row at the position takes variable v if v's DEFINE holds; next position
//   split a b     try a first; on failure come back and try b (the preferred branch is a)
//   jump a
//   mark s        remember the position in slot s (undone on backtracking)
//   progress s    fail unless the position moved since `mark s` (no empty loop iteration)
//   anchor ^|$    zero-width: the partition's first row / past its last row
//   match         the attempt succeeded
//
// SQL:2016's preference (preferment) is the order in which the matcher tries the branches: the
// left alternative first, a greedy quantifier's extra iteration before leaving. `p{n,m}` is n
// copies of p then m - n optional copies; `p{n,}` is n copies then a loop. An iteration of a
// loop must match at least one row (otherwise `(A*)*` would loop forever); a counted copy may be
// empty. Counted quantifiers are written out, so the program's length is bounded
// (SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX).

import { assert } from '../../base/assert.ts';
import { SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX } from '../../base/limits.ts';
import type { SqlName, SqlRowPattern } from '../ast.ts';
import { sqlLimitExceeded, type SqlPosition } from '../errors.ts';

export type SqlRowPatternInstruction =
  | { readonly op: 'row'; readonly variable: number }
  | { op: 'split'; first: number; second: number }
  | { op: 'jump'; to: number }
  | { readonly op: 'mark' | 'progress'; readonly slot: number }
  | { readonly op: 'anchor'; readonly anchor: '^' | '$' }
  | { readonly op: 'match' };

export interface SqlRowPatternProgram {
  readonly instructions: readonly SqlRowPatternInstruction[];
  /** Slots `mark` and `progress` use (one per loop). */
  readonly slotCount: number;
}

/** `variableOf` gives a variable name's index; `position` is where LIMIT_EXCEEDED points. */
export function compileRowPattern(pattern: SqlRowPattern, variableOf: (name: SqlName) => number,
  position: SqlPosition): SqlRowPatternProgram {
  const instructions: SqlRowPatternInstruction[] = [];
  let slotCount = 0;
  const push = (instruction: SqlRowPatternInstruction): number => {
    if (instructions.length >= SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX) {
      throw sqlLimitExceeded(`the PATTERN compiles to more than ${SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX} ` +
        'instructions: write smaller counted quantifiers {n,m}', position);
    }
    instructions.push(instruction);
    return instructions.length - 1;
  };
  const emit = (node: SqlRowPattern): void => {
    switch (node.kind) {
      case 'variable': push({ op: 'row', variable: variableOf(node.name) }); return;
      case 'anchor': push({ op: 'anchor', anchor: node.anchor }); return;
      case 'concat': for (const item of node.items) emit(item); return;
      case 'alternation': {
        const jumps: { op: 'jump'; to: number }[] = [];
        node.items.forEach((item, i) => {
          const last = i === node.items.length - 1;
          const split = { op: 'split' as const, first: 0, second: 0 };
          if (!last) split.first = push(split) + 1;
          emit(item);
          if (!last) {
            const jump = { op: 'jump' as const, to: 0 };
            push(jump);
            jumps.push(jump);
            split.second = instructions.length;
          }
        });
        for (const jump of jumps) jump.to = instructions.length;
        return;
      }
      case 'quantified': emitQuantified(node); return;
    }
  };
  const emitQuantified = (node: Extract<SqlRowPattern, { kind: 'quantified' }>): void => {
    assert(node.min <= node.max);
    for (let i = 0; i < node.min; i++) emit(node.pattern);
    if (node.max === Infinity) {
      const slot = slotCount++;
      const split = { op: 'split' as const, first: 0, second: 0 };
      const loop = push(split);
      split.first = push({ op: 'mark', slot });
      emit(node.pattern);
      push({ op: 'progress', slot });
      push({ op: 'jump', to: loop });
      split.second = instructions.length;
      return;
    }
    const splits: { op: 'split'; first: number; second: number }[] = [];
    for (let i = node.min; i < node.max; i++) {
      const split = { op: 'split' as const, first: 0, second: 0 };
      split.first = push(split) + 1;
      splits.push(split);
      emit(node.pattern);
    }
    for (const split of splits) split.second = instructions.length;
  };
  emit(pattern);
  push({ op: 'match' });
  return { instructions, slotCount };
}
