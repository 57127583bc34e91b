// UNION [ALL], INTERSECT, EXCEPT: UNION ALL streams both sides; UNION gives each distinct row
// once (NULLs equal, as DISTINCT); INTERSECT and EXCEPT hold the right side's distinct rows and
// stream the left's distinct rows found (or not found) there. What is held is charged to work memory.

import type { SqlPlanNode } from '../plan/logical-plan.ts';
import type { SqlBatch } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { valueKey } from './value-ops.ts';

type SetNode = Extract<SqlPlanNode, { kind: 'setOperation' }>;

const KEY_OVERHEAD_BYTES = 32;

export async function* runSetOperation(node: SetNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  if (node.operator === 'UNION ALL') {
    yield* runPlan(node.left, env);
    yield* runPlan(node.right, env);
    return;
  }
  const seen = new Set<string>();
  const label = node.operator;
  if (node.operator === 'UNION') {
    yield* distinctRows(runPlan(node.left, env), seen, env, label, () => true);
    yield* distinctRows(runPlan(node.right, env), seen, env, label, () => true);
    return;
  }
  const right = new Set<string>();
  for await (const batch of runPlan(node.right, env)) {
    for (let r = 0; r < batch.rowCount; r++) {
      const key = rowKey(batch, r);
      if (right.has(key)) continue;
      env.memory.charge(KEY_OVERHEAD_BYTES + 2 * key.length, label);
      right.add(key);
    }
  }
  const wanted = node.operator === 'INTERSECT';
  yield* distinctRows(runPlan(node.left, env), seen, env, label, (key) => right.has(key) === wanted);
}

async function* distinctRows(batches: AsyncIterable<SqlBatch>, seen: Set<string>, env: SqlRunEnvironment,
  label: string, accept: (key: string) => boolean): AsyncGenerator<SqlBatch> {
  for await (const batch of batches) {
    const keep: number[] = [];
    for (let r = 0; r < batch.rowCount; r++) {
      const key = rowKey(batch, r);
      if (seen.has(key) || !accept(key)) continue;
      env.memory.charge(KEY_OVERHEAD_BYTES + 2 * key.length, label);
      seen.add(key);
      keep.push(r);
    }
    yield { rowCount: keep.length, columns: batch.columns.map((column) => keep.map((r) => column[r]!)) };
  }
}

function rowKey(batch: SqlBatch, r: number): string {
  let text = '';
  for (const column of batch.columns) text += `${valueKey(column[r]!)}\u0000`;
  return text;
}
