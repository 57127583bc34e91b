// An application of the packed client (test/unit/package/pack.test.ts): plain JavaScript, top-level
// await, nothing but `store/client`. Prints the rows it wrote, read back, as JSON.
import { getStore } from 'store/client';

const store = getStore({
  notificationMember: process.argv[2], clusterName: 'myCluster',
  username: 'admin', password: 'admin', applicationName: 'meter-app',
});
const meter = await store.putContainer({
  name: 'meter1', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
});
await meter.multiPut([[Date.UTC(2026, 0, 1), 1.5], [Date.UTC(2026, 0, 1, 0, 0, 10), 1.7]]);
const rows = await (await meter.query('SELECT *').fetch()).toArray();
await store.close();
const plain = rows.map((row) => row.map((value) => (value instanceof Date ? value.getTime() : value)));
console.log(JSON.stringify({ rows: plain }));
