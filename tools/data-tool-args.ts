// The command line both data-file tools share (cplog-dump, dat-check): which data directory
// (`--data <dir>`, or `--home <GS_HOME>` meaning `<home>/data`), which partition, and the
// partialCheckpointInterval to rebuild block maps with. Each tool adds options of its own.

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { partitionId, type PartitionId } from '../lib/base/ids.ts';
import { PARTITION_NUM_MAX } from '../lib/base/limits.ts';

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

type ToolValues = Record<string, string | boolean | undefined>;

/**
 * Parses the common options and `extraOptions`; `checkExtra` adds problems of the extras. Every
 * problem is reported at once, with the usage, under the tool's name; undefined then.
 */
export function parseDataToolArgs(
  tool: { name: string; usage: string; output: ToolOutput },
  argv: string[],
  extraOptions: Record<string, { type: 'string' | 'boolean' }>,
  checkExtra: (values: ToolValues, problems: string[]) => void = () => undefined,
): { target: DataToolTarget; values: ToolValues } | undefined {
  let values: ToolValues;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' }, home: { type: 'string' }, partition: { type: 'string' },
        interval: { type: 'string' }, ...extraOptions,
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    tool.output.err(`${tool.name}: ${error instanceof Error ? error.message : String(error)}\n` +
      tool.usage);
    return undefined;
  }
  const problems: string[] = [];
  const data = values['data'] as string | undefined;
  const home = values['home'] as string | undefined;
  if ((data === undefined) === (home === undefined)) {
    problems.push('give exactly one of --data and --home');
  }
  const partitionText = (values['partition'] as string | undefined) ?? '';
  const partition = /^\d{1,5}$/.test(partitionText) ? Number(partitionText) : undefined;
  if (partition === undefined || partition >= PARTITION_NUM_MAX) {
    problems.push(`--partition must be an integer from 0 to ${PARTITION_NUM_MAX - 1}`);
  }
  const intervalText = (values['interval'] as string | undefined) ?? '5';
  const interval = /^\d{1,4}$/.test(intervalText) ? Number(intervalText) : 0;
  if (interval < 1 || interval > 1024) {
    problems.push('--interval must be an integer from 1 to 1024');
  }
  checkExtra(values, problems);
  if (problems.length > 0 || partition === undefined) {
    tool.output.err(`${tool.name}: ${problems.join('; ')}\n${tool.usage}`);
    return undefined;
  }
  const dataRoot = data ?? join(home ?? '', 'data');
  return { target: { dataRoot, partitionId: partitionId(partition), interval }, values };
}
