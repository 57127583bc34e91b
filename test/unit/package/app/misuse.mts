// Must NOT type-check (test/unit/package/pack.test.ts): a property the client does not have and a
// row count taken as a string. Passing would mean the package's types are missing or `any`.
import { getStore } from 'store/client';

const store = getStore({
  notificationMember: '127.0.0.1:10001', clusterName: 'myCluster', port: 'x',
});
const names: string = await store.getContainerNames();
console.log(names);
