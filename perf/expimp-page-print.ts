// gs_export's page printer alone (tools/expimp-page-printer.ts) on the TSBS day's pages as the
// node sends them (2,000 rows a page, the row codec's 'wire' form): CPU time of this thread per
// round of the day's 864,000 rows, best and median of EXPORT_PRINT_ROUNDS (default 7). With
// `--doubles-off`, DOUBLE cells through String(x) instead of the double_text addon.
//
//   node --import tsx perf/expimp-page-print.ts

import { ByteWriter } from '../lib/encoding/byte-writer.ts';
import { rowCodec } from '../lib/encoding/row-codec.ts';
import { doubleText } from '../lib/io/double-text.ts';
import type { ColumnSchema, ContainerSchema } from '../lib/schema/container-schema.ts';
import { pagePrinterOf } from '../tools/expimp-page-printer.ts';
import { benchConfig } from './bench-config.ts';
import { median } from './stats.ts';
import { TSBS_CPU_FIELDS } from './tsbs.ts';

const ROWS_PER_PAGE = 2_000;
const roundCount = Number(process.env['EXPORT_PRINT_ROUNDS'] ?? 7);

const { dataset } = benchConfig(process.env['BENCH_QUICK'] === '1');
const columns = [
  { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
  ...TSBS_CPU_FIELDS.map((name) => ({ name, type: 'DOUBLE', array: false, notNull: false })),
] as ColumnSchema[];
const schema = {
  name: 'cpu', type: 'TIME_SERIES', columns, rowKeyColumnCount: 1, schemaVersion: 1,
} as unknown as ContainerSchema;
const codec = rowCodec(schema, 'wire');
const pages: Array<{ bytes: Uint8Array; count: number }> = [];
for (const rows of dataset.rowsByHost) {
  for (let from = 0; from < rows.length; from += ROWS_PER_PAGE) {
    const page = rows.slice(from, from + ROWS_PER_PAGE);
    const writer = new ByteWriter(1 << 16);
    codec.writeRows(writer, page);
    pages.push({ bytes: writer.finish(), count: page.length });
  }
}
const doubles = process.argv.includes('--doubles-off') ? null : doubleText ?? null;
const print = pagePrinterOf(schema.columns, { directory: '/nonexistent', stem: 'x', rowIndex: 0 }, doubles);
const roundsMs: number[] = [];
let outBytes = 0;
for (let round = 0; round < roundCount; round++) {
  const before = process.cpuUsage();
  outBytes = 0;
  for (const page of pages) outBytes += print(page.bytes, page.count, 0).length;
  const used = process.cpuUsage(before);
  roundsMs.push((used.user + used.system) / 1000);
}
console.log(`${pages.length} pages, ${outBytes} bytes printed a round, addon ${doubles !== null}: ` +
  `CPU best ${Math.min(...roundsMs).toFixed(1)} ms, median ${median(roundsMs).toFixed(1)} ms a round`);
