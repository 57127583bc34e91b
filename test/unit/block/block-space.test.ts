import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { containerId, type BlockId } from '../../../lib/base/ids.ts';
import { BlockSpace, blockOwnerOf, type BlockOwner } from '../../../lib/block/block-space.ts';
import { RowBlock } from '../../../lib/block/row-block.ts';
import { blockLayout } from '../../../lib/block/row-block-layout.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';

const BLOCK_SIZE_BYTES = 64 * 1024;
const small: BlockOwner = { containerId: containerId(1), unique: false };
const other: BlockOwner = { containerId: containerId(2), unique: false };
const unique: BlockOwner = blockOwnerOf(containerId(3), '#unique');

function timeSeries(name: string, dataAffinity?: string): ContainerSchema {
  return {
    name, type: 'TIME_SERIES', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
    ...(dataAffinity === undefined ? {} : { dataAffinity }),
    columns: [
      { name: 't', type: 'TIMESTAMP', array: false, notNull: true },
      { name: 'v', type: 'DOUBLE', array: false, notNull: false },
    ],
  };
}

/** A row block to stand for a tenant: the space accounts the bytes it is told, not the block's. */
function tenant(owner: BlockOwner): RowBlock {
  return new RowBlock({
    layout: blockLayout(timeSeries('t')), containerId: owner.containerId,
    blockSizeBytes: BLOCK_SIZE_BYTES,
  });
}

describe('block-space', () => {
  it('packs two small non-unique containers into one shared block', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const a = space.place(small, 500, tenant(small));
    const b = space.place(other, 800, tenant(other));
    assert.equal(a, b);
    assert.ok(space.isShared(a));
    assert.deepStrictEqual(space.tenantsOf(a).sort(), [1, 2]);
    assert.equal(space.blockCount, 1);
    assert.equal(space.bytesInUse, 1300);
  });

  it('never shares a #unique container, however small', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const shared = space.place(small, 100, tenant(small));
    const ownTenant = tenant(unique);
    const own1 = space.place(unique, 100, ownTenant);
    const own2 = space.place(unique, 100, tenant(unique));
    const shared2 = space.place(other, 100, tenant(other));
    assert.equal(shared, shared2);
    assert.notEqual(own1, shared);
    assert.notEqual(own2, own1);
    assert.deepStrictEqual(space.tenantsOf(own1), [3]);
    assert.equal(space.isShared(own1), false);
    // Growth or shrinkage keeps a private block private.
    assert.equal(space.resize(unique, own1, { fromBytes: 100, toBytes: 60_000 }, ownTenant), own1);
    assert.equal(space.resize(unique, own1, { fromBytes: 60_000, toBytes: 50 }, ownTenant), own1);
  });

  it('groups shared blocks by affinity', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const plain = space.place(small, 100, tenant(small));
    const room = (id: number) =>
      ({ containerId: containerId(id), unique: false, affinity: 'room1' });
    const grouped = space.place(room(5), 100, tenant(room(5)));
    const grouped2 = space.place(room(6), 100, tenant(room(6)));
    assert.notEqual(plain, grouped);
    assert.equal(grouped, grouped2);
  });

  it('moves a row block that grows past the share to a block of its own', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const grower = tenant(small);
    const a = space.place(small, 1000, grower);
    space.place(other, 1000, tenant(other));
    const atShare = space.resize(small, a, { fromBytes: 1000, toBytes: 16_384 }, grower);
    assert.equal(atShare, a, 'at the share: stays');
    const moved = space.resize(small, a, { fromBytes: 16_384, toBytes: 16_385 }, grower);
    assert.notEqual(moved, a);
    assert.equal(space.isShared(moved), false);
    assert.deepStrictEqual(space.tenantsOf(a), [2], 'the other tenant keeps its block');
    assert.equal(space.bytesInUse, 17_385);
  });

  it('opens another shared block when one is full, and reuses freed room', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const owners = Array.from({ length: 10 },
      (_, i) => ({ containerId: containerId(100 + i), unique: false }));
    const tenants = owners.map(tenant);
    const ids = owners.map((owner, i) => space.place(owner, 15_000, tenants[i]!));
    assert.equal(new Set(ids).size, 3, '4 + 4 + 2 row blocks of 15 KB');
    space.release(owners[0]!, ids[0]!, 15_000, tenants[0]!);
    const late = { containerId: containerId(200), unique: false };
    assert.equal(space.place(late, 15_000, tenant(late)), ids[0]);
    space.checkInvariants();
  });

  it('a dropped container frees its blocks; shared tenants keep theirs', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const open = (id: number, name: string, affinity?: string) => new RowStore({
      containerId: containerId(id), schema: timeSeries(name, affinity),
      blockSizeBytes: BLOCK_SIZE_BYTES, space,
    });
    const tiny1 = open(1, 'a');
    const tiny2 = open(2, 'b');
    const own = open(3, 'c', '#unique');
    const big = open(4, 'd');
    tiny1.put([[1, 1.5], [2, 2.5]]);
    tiny2.put([[1, 0]]);
    own.put([[1, 0]]);
    big.put(Array.from({ length: 20_000 }, (_, i) => [i, i / 2]));
    assert.deepStrictEqual(tiny1.blockIds(), tiny2.blockIds(), 'tiny containers share');
    assert.notDeepEqual(own.blockIds(), tiny1.blockIds());
    assert.ok(big.blockIds().length > 1);
    assert.ok(big.blockIds().every((id) => space.tenantsOf(id).join() === '4'));
    const sharedId = tiny1.blockIds()[0]!;
    const blockCount = space.blockCount;
    const bigBlockCount = big.blockIds().length;
    big.drop();
    assert.equal(space.blockCount, blockCount - bigBlockCount);
    tiny1.drop();
    assert.deepStrictEqual(tiny2.blockIds(), [sharedId]);
    assert.deepStrictEqual(space.tenantsOf(sharedId), [2]);
    own.drop();
    tiny2.drop();
    assert.equal(space.blockCount, 0);
    assert.equal(space.bytesInUse, 0);
  });

  it('keeps its byte totals under random place / resize / release', () => {
    const step = fc.record({
      owner: fc.nat({ max: 5 }), sizeBytes: fc.integer({ min: 1, max: BLOCK_SIZE_BYTES }),
      action: fc.constantFrom('place', 'resize', 'release'),
    }, { noNullPrototype: true });
    fc.assert(fc.property(fc.array(step, { maxLength: 200, size: 'max' }), (steps) => {
      const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
      const owners = Array.from({ length: 6 },
        (_, i) => blockOwnerOf(containerId(i), i === 0 ? '#unique' : undefined));
      const placed: Array<{ owner: BlockOwner; id: BlockId; bytes: number; tenant: RowBlock }> =
        [];
      for (const { owner, sizeBytes, action } of steps) {
        const target = placed[owner % Math.max(1, placed.length)];
        if (action === 'place' || target === undefined) {
          const placedTenant = tenant(owners[owner]!);
          const id = space.place(owners[owner]!, sizeBytes, placedTenant);
          placed.push({ owner: owners[owner]!, id, bytes: sizeBytes, tenant: placedTenant });
        } else if (action === 'resize') {
          const sizes = { fromBytes: target.bytes, toBytes: sizeBytes };
          target.id = space.resize(target.owner, target.id, sizes, target.tenant);
          target.bytes = sizeBytes;
        } else {
          space.release(target.owner, target.id, target.bytes, target.tenant);
          placed.splice(placed.indexOf(target), 1);
        }
        space.checkInvariants();
        assert.equal(space.bytesInUse, placed.reduce((sum, p) => sum + p.bytes, 0));
        for (const p of placed) {
          assert.ok(space.tenantsOf(p.id).includes(p.owner.containerId));
          if (p.owner.unique) assert.equal(space.isShared(p.id), false);
        }
      }
    }), { numRuns: 200 });
  });
});
