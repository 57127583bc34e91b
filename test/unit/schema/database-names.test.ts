import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import {
  DATABASE_ID_MAX, containerBaseName, containerDatabaseId, containerKey,
  messageWithoutContainerKeys,
} from '../../../lib/schema/database-names.ts';
import { validateContainerName } from '../../../lib/schema/names.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';

const limits = blockSizeLimits(64 * 1024);
const names = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.=-]{0,15}(@[A-Za-z0-9]{1,6})?$/);

describe('container keys', () => {
  it('public\'s key is the name; another database\'s keeps its id and name, in the name\'s partition', () => {
    fc.assert(fc.property(names, fc.integer({ min: 0, max: DATABASE_ID_MAX }),
      fc.integer({ min: 1, max: 128 }), (name, databaseId, partitionNum) => {
        const key = containerKey(databaseId, name);
        if (databaseId === 0) assert.equal(key, name);
        assert.equal(containerDatabaseId(key), databaseId);
        assert.equal(containerBaseName(key), name);
        assert.equal(validateContainerName(key, limits), key);
        assert.equal(containerPartitionId(key, partitionNum), containerPartitionId(name, partitionNum));
        assert.equal(messageWithoutContainerKeys(`container "${key}" exists`), `container "${name}" exists`);
      }));
  });

  it('no name from a request spells a key of another database', () => {
    for (const name of [containerKey(1, 'x'), '\u0001', 'a\u0001b']) {
      assert.throws(() => containerKey(0, name), (e) => isStorageError(e, 'INVALID_NAME'));
      assert.throws(() => containerKey(2, name), (e) => isStorageError(e, 'INVALID_NAME'));
    }
    assert.throws(() => validateContainerName(`${containerKey(1, 'x')}\u0001`, limits),
      (e) => isStorageError(e, 'INVALID_NAME'));
  });
});
