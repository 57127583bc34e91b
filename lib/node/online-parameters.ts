// The parameters a running node changes on request (gs_paramconf --set; spec/surface.md §8, the
// "Online" flag): their group in gs_node.json, how a value is read (the same parsing and bounds
// as the definition file) and printed. A change lasts until the node stops: nothing is written to
// gs_node.json, as GridDB's Online parameters.
//
// Only storeMemoryLimit is applied here. The other names GridDB accepts online are known, so that
// a request for one of them is refused as "not settable online by this node" rather than unknown.

import { formatSize, parseSizeBytes } from '../base/units.ts';

export interface OnlineParameter {
  group: string;
  name: string;
  /** What a value must look like, for error messages. */
  acceptedForm: string;
  /** The value in its unit-free form, or undefined for text that is not one. */
  parse(text: unknown): number | undefined;
  format(value: number): string;
}

export const ONLINE_PARAMETERS: readonly OnlineParameter[] = [
  {
    group: 'dataStore', name: 'storeMemoryLimit',
    acceptedForm: 'a size with a unit (B, KB, MB, GB, TB), such as 1024MB',
    parse: parseSizeBytes, format: formatSize,
  },
];

/** Names GridDB sets online that this node does not (gs_paramconf's accepted list). */
export const ONLINE_PARAMETERS_NOT_APPLIED: ReadonlySet<string> = new Set([
  'traceLimitExecutionTime', 'traceLimitQuerySize', 'storeMemoryAgingSwapRate',
  'storeMemoryColdRate', 'checkpointDelayInterval', 'batchScanNum', 'estimatedErasableExpiredTime',
  'checkRuleInterval', 'checkpointFileFlushSize', 'checkpointFileAutoClearCache',
  'partitioningRowkeyConstraint', 'reauthenticationInterval', 'workMemoryLimit',
]);

/** The online parameter of that name, or why there is none. */
export function findOnlineParameter(name: string):
  { parameter: OnlineParameter } | { reason: string } {
  const parameter = ONLINE_PARAMETERS.find((p) => p.name === name);
  if (parameter !== undefined) return { parameter };
  const settable = ONLINE_PARAMETERS.map((p) => p.name).join(', ');
  if (ONLINE_PARAMETERS_NOT_APPLIED.has(name)) {
    return { reason: `the parameter ${name} is not settable online by this node ` +
      `(settable online: ${settable}); change it in gs_node.json and restart the node` };
  }
  return { reason: `the parameter ${name} is not settable online (settable online: ${settable})` };
}
