// Type-checked (not run) by test/unit/package/pack.test.ts against the packed client's .d.ts.
import { getStore, StorageError, type Row } from 'store/client';

const store = getStore({
  notificationMember: '127.0.0.1:10001', clusterName: 'myCluster',
  username: 'admin', password: 'admin',
});
const meter = await store.putContainer({
  name: 'meter1', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
});
const rows: Row[] = await (await meter.query('SELECT *').fetch()).toArray();
const count: number = rows.length;
if (count < 0) throw new StorageError('CONFIG_INVALID', 'impossible');
await store.close();
