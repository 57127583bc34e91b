// The TSBS cpu-only rows as InfluxDB receives them from TSBS's loader: one line-protocol line per
// row, measurement `cpu`, every host tag on every line (InfluxDB keeps each series' tag set once,
// in its index, as the store keeps the host in the container name), the 10 usage_* fields as
// floats, the timestamp in ms (the write's precision=ms):
//
//   cpu,hostname=host_0,region=eu-west-1,…,service_environment=test usage_user=58.2,…,
//     usage_guest_nice=3.5 1451606400000          (one line: measurement+tags, fields, time)
//
// A number without an `i` suffix is a float in line protocol, so `100` is the double 100. Values
// are printed with JavaScript's shortest round-trip form, so InfluxDB stores the very doubles the
// store does. And the config file for a benchmark's own influxd.

import { assert } from '../lib/base/assert.ts';
import { TSBS_CPU_FIELDS, type TsbsBatch, type TsbsHost } from './tsbs.ts';

export const INFLUX_MEASUREMENT = 'cpu';

/** Tag keys and values escape space, comma and equals sign with a backslash. */
function tagText(text: string): string {
  return text.replace(/[ ,=]/g, (character) => `\\${character}`);
}

/** "cpu,<tags> ": what every line of a host starts with. */
export function influxLinePrefix(host: TsbsHost): string {
  const tags = Object.entries(host.tags)
    .map(([key, value]) => `${tagText(key)}=${tagText(value)}`).join(',');
  return `${INFLUX_MEASUREMENT},${tags} `;
}

/** The body of one write: a line per row of the batch, each ending in a newline. */
export function influxBatchBody(batch: TsbsBatch, linePrefix: string): string {
  const lines: string[] = new Array(batch.rows.length);
  for (let i = 0; i < batch.rows.length; i++) {
    const row = batch.rows[i]!;
    assert(row.length === TSBS_CPU_FIELDS.length + 1);
    let fields = '';
    for (let f = 0; f < TSBS_CPU_FIELDS.length; f++) {
      const value = row[f + 1];
      assert(typeof value === 'number' && Number.isFinite(value));
      fields += `${f === 0 ? '' : ','}${TSBS_CPU_FIELDS[f]}=${String(value)}`;
    }
    lines[i] = `${linePrefix}${fields} ${String(row[0])}\n`;
  }
  return lines.join('');
}

/**
 * influxd's configuration for a benchmark: everything under `root`, HTTP and the RPC (backup)
 * service on 127.0.0.1 ports of our choosing, usage reporting, the _internal monitor database and
 * continuous queries off, quiet logs. The rest keeps `influxd config`'s defaults: notably
 * wal-fsync-delay 0s, so a write is acknowledged after its WAL fsync (durable, as the store's
 * logWriteMode 0), and the in-memory series index.
 */
export function influxConfigText(settings: { root: string; httpPort: number; rpcPort: number }) {
  const { root, httpPort, rpcPort } = settings;
  assert(!root.includes('"') && !root.includes('\\'));
  return [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${rpcPort}"`,
    '[meta]',
    `  dir = "${root}/meta"`,
    '  logging-enabled = false',
    '[data]',
    `  dir = "${root}/data"`,
    `  wal-dir = "${root}/wal"`,
    '  wal-fsync-delay = "0s"',
    '  query-log-enabled = false',
    '[monitor]',
    '  store-enabled = false',
    '[http]',
    `  bind-address = "127.0.0.1:${httpPort}"`,
    '  log-enabled = false',
    '  pprof-enabled = false',
    '[continuous_queries]',
    '  enabled = false',
    '[logging]',
    '  level = "warn"',
    '  suppress-logo = true',
    '',
  ].join('\n');
}
