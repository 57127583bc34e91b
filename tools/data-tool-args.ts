// The command line the data-file tools (cplog-dump, dat-check) and the log tools (xlog-dump,
// xlog-truncate) share: which directory (`--data <dir>` or `--txnlog <dir>`, or `--home <GS_HOME>`
// meaning `<home>/data` or `<home>/txnlog`) and which partition; the data tools also take the
// partialCheckpointInterval to rebuild block maps with. Each tool adds options of its own.

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { partitionId, type PartitionId } from '../lib/base/ids.ts';
import { PARTITION_NUM_MAX } from '../lib/base/limits.ts';
import { usageHint } from './command-help.ts';

export interface ToolOutput {
  out(line: string): void;
  err(line: string): void;
}

export const consoleOutput: ToolOutput = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};

export interface DataToolTarget {
  dataRoot: string;
  partitionId: PartitionId;
  interval: number;
}

export type ToolValues = Record<string, string | boolean | undefined>;
type ToolOptions = Record<string, { type: 'string' | 'boolean' }>;

/** Where a tool works: `--<root> <dir>`, or `--home <GS_HOME>` meaning `<home>/<root>`. */
interface ToolTarget {
  home: string | undefined;
  root: string;
  partitionId: PartitionId;
}

/** A non-negative decimal integer that fits a double exactly; undefined for anything else. */
export function parseWholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/**
 * The options every data and log tool takes (its root directory or the home, and a partition)
 * and `extraOptions`; `checkExtra` adds problems of the extras. Every problem is reported at once,
 * with the usage, under the tool's name; undefined then.
 */
function parseToolArgs(
  tool: { name: string; usage: string; output: ToolOutput },
  argv: string[],
  spec: { rootOption: 'data' | 'txnlog'; extraOptions: ToolOptions },
  checkExtra: (values: ToolValues, problems: string[]) => void,
): { target: ToolTarget; values: ToolValues } | undefined {
  const { rootOption } = spec;
  let values: ToolValues;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        [rootOption]: { type: 'string' }, home: { type: 'string' }, partition: { type: 'string' },
        ...spec.extraOptions,
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    tool.output.err(`${tool.name}: ${error instanceof Error ? error.message : String(error)}\n` +
      `${tool.usage}\n${usageHint(tool.name)}`);
    return undefined;
  }
  const problems: string[] = [];
  const root = values[rootOption] as string | undefined;
  const home = values['home'] as string | undefined;
  if ((root === undefined) === (home === undefined)) {
    problems.push(`give exactly one of --${rootOption} and --home`);
  }
  const partition = parseWholeNumber(values['partition'] as string | undefined);
  if (partition === undefined || partition >= PARTITION_NUM_MAX) {
    problems.push(`--partition must be an integer from 0 to ${PARTITION_NUM_MAX - 1}`);
  }
  checkExtra(values, problems);
  if (problems.length > 0 || partition === undefined) {
    tool.output.err(`${tool.name}: ${problems.join('; ')}\n${tool.usage}\n${usageHint(tool.name)}`);
    return undefined;
  }
  return {
    target: {
      home, root: root ?? join(home ?? '', rootOption), partitionId: partitionId(partition),
    },
    values,
  };
}

/**
 * Parses the data tools' options (`--data` or `--home`, `--partition`, `--interval`) and
 * `extraOptions`; `checkExtra` adds problems of the extras.
 */
export function parseDataToolArgs(
  tool: { name: string; usage: string; output: ToolOutput },
  argv: string[],
  extraOptions: ToolOptions,
  checkExtra: (values: ToolValues, problems: string[]) => void = () => undefined,
): { target: DataToolTarget; values: ToolValues } | undefined {
  let interval = 0;
  const parsed = parseToolArgs(tool, argv,
    { rootOption: 'data', extraOptions: { interval: { type: 'string' }, ...extraOptions } },
    (values, problems) => {
      const intervalText = (values['interval'] as string | undefined) ?? '5';
      interval = /^\d{1,4}$/.test(intervalText) ? Number(intervalText) : 0;
      if (interval < 1 || interval > 1024) {
        problems.push('--interval must be an integer from 1 to 1024');
      }
      checkExtra(values, problems);
    });
  if (parsed === undefined) return undefined;
  const { root, partitionId: partition } = parsed.target;
  return { target: { dataRoot: root, partitionId: partition, interval }, values: parsed.values };
}

/**
 * Parses the log tools' options (`--txnlog` or `--home`, `--partition`) and `extraOptions`;
 * `checkExtra` adds problems of the extras.
 */
export function parseXlogToolArgs(
  tool: { name: string; usage: string; output: ToolOutput },
  argv: string[],
  extraOptions: ToolOptions,
  checkExtra: (values: ToolValues, problems: string[]) => void,
): { target: ToolTarget; values: ToolValues } | undefined {
  return parseToolArgs(tool, argv, { rootOption: 'txnlog', extraOptions }, checkExtra);
}
