// After a timed TSBS load into a node (through the client or the web API): checks, untimed, that
// every host's container holds all its rows, then drops the containers for the next run.

import { assert } from '../lib/base/assert.ts';
import type { ClientStore } from '../lib/client/client-store.ts';
import type { TsbsDataset } from './tsbs.ts';

export async function checkAndDropHostContainers(
  admin: ClientStore,
  names: readonly string[],
  dataset: TsbsDataset,
): Promise<void> {
  for (let h = 0; h < names.length; h++) {
    const info = await admin.getContainerInfo(names[h]!);
    assert(info?.rowCount === dataset.rowsByHost[h]!.length,
      `${names[h]!}: ${info?.rowCount} rows of ${dataset.rowsByHost[h]!.length}`);
    await admin.dropContainer(names[h]!);
  }
}
