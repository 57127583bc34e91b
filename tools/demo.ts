// `npm start` until the node server exists: opens the store under GS_HOME (default ./var), writes a
// day of readings for a few sensors into time-series containers, reads them back and prints what it
// did. Running it again reopens the same data (recovery replays the xlog) and appends the next day.

import { StorageError } from '../lib/base/errors.ts';
import { Store } from '../lib/engine/store.ts';

const DAY_MS = 86_400_000;
const SENSOR_COUNT = 4;
const INTERVAL_MS = 10_000;

async function main(): Promise<void> {
  const home = process.env['GS_HOME'] ?? './var';
  const startedMs = performance.now();
  // Settings come from <home>/conf/gs_cluster.json and gs_node.json when they exist.
  const store = await Store.open({ home });
  const recovery = store.recovery!;
  console.log(`opened ${home}: replayed ${recovery.recordCount} xlog records ` +
    `(${recovery.rowCount} row changes) in ${(performance.now() - startedMs).toFixed(0)} ms`);
  const session = store.session();
  try {
    for (let sensor = 0; sensor < SENSOR_COUNT; sensor++) {
      const name = `sensor_${sensor}`;
      await store.createContainer({
        name, type: 'TIME_SERIES',
        columns: [
          { name: 'ts', type: 'TIMESTAMP' },
          { name: 'temperature', type: 'DOUBLE' },
          { name: 'status', type: 'STRING' },
        ],
      });
      const container = session.container(name);
      const last = await container.scan({ direction: 'desc', limit: 1 });
      const fromMs = last.length === 0 ? Date.UTC(2026, 0, 1) : (last[0]![0] as number) + INTERVAL_MS;
      const rows = [];
      for (let t = fromMs; t < fromMs + DAY_MS; t += INTERVAL_MS) {
        rows.push([t, 20 + 5 * Math.sin(t / 3_600_000) + sensor, t % 60_000 === 0 ? 'check' : 'ok']);
      }
      await container.multiPut(rows);
      const count = await container.count();
      console.log(`${name}: wrote ${rows.length} rows from ${new Date(fromMs).toISOString()}, ` +
        `now ${count} rows`);
    }
    const sample = await session.container('sensor_0').scan({ direction: 'desc', limit: 3 });
    console.log('latest rows of sensor_0:');
    for (const row of sample) console.log(`  ${new Date(row[0] as number).toISOString()}  ${row.slice(1).join('  ')}`);
    console.log(`containers: ${store.listContainers().join(', ')}`);
  } finally {
    session.close();
    await store.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof StorageError) console.error(`error ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
