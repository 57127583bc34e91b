// gs_logs -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-l LENGTH] [-g IGNORE_STR]
// [--slowlogs | --tracestats] [--csv] [SEARCH_STR1 [SEARCH_STR2]]: the node's newest event log
// lines (GET /node/log), as GridDB's command shows them: the last LENGTH (30 by default) of the
// lines that contain every SEARCH_STR and not IGNORE_STR, oldest first, each as written (one JSON
// record). The node looks only at the end of its current event log file
// (EVENT_LOG_RECENT_BYTES_MAX). --slowlogs: the slow-query records among them (sqlService
// `slow query`, lib/server/slow-query-handler.ts) as a JSON array; --tracestats: how many lines
// each trace category wrote at each level, among the newest EVENT_LOG_RECENT_LINE_COUNT_MAX
// lines (or -l); --csv: any of the three as CSV with a header row (tools/log-views.ts).

import {
  EVENT_LOG_RECENT_LINE_COUNT_DEFAULT, EVENT_LOG_RECENT_LINE_COUNT_MAX,
} from '../lib/base/limits.ts';
import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';
import { parseArgsWithPositionals } from './positional-args.ts';
import {
  linesCsv, SLOW_QUERY_MESSAGE, slowLogView, traceStatsView,
} from './log-views.ts';

const HELP: CommandHelp = {
  name: 'gs_logs',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-l LENGTH] [-g IGNORE_STR] ' +
    '[--slowlogs | --tracestats] [--csv] [SEARCH_STR1 [SEARCH_STR2]]'],
  summary: 'Prints the node\'s newest event log lines (GET /node/log), oldest first: those that ' +
    'contain every SEARCH_STR\nand not IGNORE_STR.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-l, --length LENGTH', `lines shown, 1 to ${EVENT_LOG_RECENT_LINE_COUNT_MAX} ` +
      `(default ${EVENT_LOG_RECENT_LINE_COUNT_DEFAULT})`],
    ['-g, --ignore IGNORE_STR', 'leave out the lines that contain it'],
    ['--slowlogs', 'the slow-query records (queries over /sql/traceLimitExecutionTime), as ' +
      'JSON'],
    ['--tracestats', 'lines per trace category and level, as JSON (among the newest ' +
      `${EVENT_LOG_RECENT_LINE_COUNT_MAX} lines,\nor -l)`],
    ['--csv', 'CSV with a header row instead (time, level, category, message, fields)'],
    ['SEARCH_STR1 [SEARCH_STR2]', 'show only the lines that contain them'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_logs -u admin/admin -l 5 checkpoint',
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgsWithPositionals(process.argv.slice(2), {
    ...CLUSTER_COMMAND_OPTIONS,
    length: { type: 'string', short: 'l' },
    ignore: { type: 'string', short: 'g' },
    slowlogs: { type: 'boolean' },
    tracestats: { type: 'boolean' },
    csv: { type: 'boolean' },
  }, 2);
  if (values.slowlogs === true && values.tracestats === true) {
    throw new CommandError('Give one of --slowlogs and --tracestats, not both.', EXIT_ARGUMENTS);
  }
  // Statistics count over every line the node returns unless -l says otherwise.
  const lengthDefault = values.tracestats === true || values.slowlogs === true
    ? EVENT_LOG_RECENT_LINE_COUNT_MAX : EVENT_LOG_RECENT_LINE_COUNT_DEFAULT;
  const lengthText = values.length ?? String(lengthDefault);
  const length = /^\d+$/.test(lengthText) ? Number(lengthText) : 0;
  if (length < 1 || length > EVENT_LOG_RECENT_LINE_COUNT_MAX) {
    throw new CommandError(`Specify a whole number from 1 to ${EVENT_LOG_RECENT_LINE_COUNT_MAX} ` +
      `for -l.(-l ${lengthText})`, EXIT_ARGUMENTS);
  }
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const query: Record<string, string> = { length: String(length) };
  const search = values.slowlogs === true ? [SLOW_QUERY_MESSAGE, ...positionals] : positionals;
  if (search.length > 2) {
    throw new CommandError('With --slowlogs, give at most one SEARCH_STR.', EXIT_ARGUMENTS);
  }
  if (search[0] !== undefined) query['searchStr'] = search[0];
  if (search[1] !== undefined) query['searchStr2'] = search[1];
  if (values.ignore !== undefined) query['ignoreStr'] = values.ignore;
  const lines = await callNode(address, credentials, { method: 'GET', path: '/node/log', query });
  if (!Array.isArray(lines) || !lines.every((line) => typeof line === 'string')) {
    throw new CommandError('A00100: Request error occurred. (/node/log is not a list of lines)');
  }
  const csv = values.csv === true;
  if (values.slowlogs === true) console.log(slowLogView(lines, csv));
  else if (values.tracestats === true) console.log(traceStatsView(lines, csv));
  else if (csv) console.log(linesCsv(lines));
  else for (const line of lines) console.log(line);
  return EXIT_OK;
}

runCommand(HELP, main);
