// What gs_logs prints of event log lines besides the lines themselves: the slow-query records
// (--slowlogs), the count of lines per trace category and level (--tracestats), and either of
// them or the lines as CSV (--csv: RFC 4180, a header row, every field quoted when it holds a
// comma, a quote or a line break). Pure: lines in, text out. A line that is not a JSON record (a
// foreign line in the file) is kept whole in the message column, and counted under `-`.

/** The message of a slow-query record (lib/node/store-node.ts, sqlService). */
export const SLOW_QUERY_MESSAGE = 'slow query';

/** The fields every event log line has; the rest go to the CSV's `fields` column as JSON. */
const LINE_FIELDS = ['time', 'level', 'component', 'msg'] as const;
/** Fields of each line that say nothing here (the same in every line of one node). */
const IGNORED_FIELDS = new Set(['pid', 'hostname']);

type Record = { [key: string]: unknown };

function parse(line: string): Record | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? value as Record : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csv(rows: ReadonlyArray<readonly string[]>): string {
  return rows.map((row) => row.map(csvField).join(',')).join('\n');
}

/** Every line as a CSV row: time, level, category, message, the other fields as JSON. */
export function linesCsv(lines: readonly string[]): string {
  const rows = lines.map((line) => {
    const record = parse(line);
    if (record === undefined) return ['', '', '', line, ''];
    const rest = Object.fromEntries(Object.entries(record).filter(([key]) =>
      !(LINE_FIELDS as readonly string[]).includes(key) && !IGNORED_FIELDS.has(key)));
    return [text(record['time']), text(record['level']), text(record['component']),
      text(record['msg']), Object.keys(rest).length === 0 ? '' : JSON.stringify(rest)];
  });
  return csv([['time', 'level', 'category', 'message', 'fields'], ...rows]);
}

export interface SlowQueryEntry {
  time: string;
  containerName: string;
  executionTimeMs: number;
  query: string;
}

/** The slow-query records among the lines, oldest first. */
export function slowQueryEntries(lines: readonly string[]): SlowQueryEntry[] {
  const entries: SlowQueryEntry[] = [];
  for (const line of lines) {
    const record = parse(line);
    if (record === undefined || record['msg'] !== SLOW_QUERY_MESSAGE ||
      record['component'] !== 'sqlService') continue;
    entries.push({
      time: text(record['time']), containerName: text(record['containerName']),
      executionTimeMs: Number(record['executionTimeMs']), query: text(record['query']),
    });
  }
  return entries;
}

export function slowLogView(lines: readonly string[], asCsv: boolean): string {
  const entries = slowQueryEntries(lines);
  if (!asCsv) return JSON.stringify(entries, null, 4);
  return csv([['time', 'containerName', 'executionTimeMs', 'query'],
    ...entries.map((entry) => [entry.time, entry.containerName, String(entry.executionTimeMs),
      entry.query])]);
}

export interface TraceStat {
  category: string;
  level: string;
  count: number;
}

/** Lines per category and level, sorted by category then level. */
export function traceStats(lines: readonly string[]): TraceStat[] {
  const counts = new Map<string, TraceStat>();
  for (const line of lines) {
    const record = parse(line);
    const category = record === undefined ? '-' : text(record['component']) || '-';
    const level = record === undefined ? '-' : text(record['level']) || '-';
    const key = `${category}\u0000${level}`;
    const stat = counts.get(key) ?? { category, level, count: 0 };
    stat.count++;
    counts.set(key, stat);
  }
  return [...counts.values()].sort((a, b) =>
    (a.category < b.category ? -1 : a.category > b.category ? 1
      : a.level < b.level ? -1 : a.level > b.level ? 1 : 0));
}

export function traceStatsView(lines: readonly string[], asCsv: boolean): string {
  const stats = traceStats(lines);
  if (!asCsv) return JSON.stringify(stats, null, 4);
  return csv([['category', 'level', 'count'],
    ...stats.map((stat) => [stat.category, stat.level, String(stat.count)])]);
}
