import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BTree, BTREE_NODE_ENTRY_COUNT_MAX } from '../../../lib/block/btree.ts';

type Op =
  | { kind: 'set'; key: number; value: number }
  | { kind: 'delete'; key: number }
  | { kind: 'query'; key: number; direction: 'asc' | 'desc'; inclusive: boolean; take: number };

const KEY_MAX = 300;
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      { kind: fc.constant('set' as const), key: fc.nat({ max: KEY_MAX }), value: fc.nat() },
      { noNullPrototype: true }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat({ max: KEY_MAX }) },
      { noNullPrototype: true }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('query' as const), key: fc.integer({ min: -1, max: KEY_MAX + 1 }),
      direction: fc.constantFrom('asc' as const, 'desc' as const), inclusive: fc.boolean(),
      take: fc.nat({ max: 20 }),
    }, { noNullPrototype: true }),
  },
);

/** The model: a sorted array of [key, value]. */
class SortedModel {
  entries: Array<[number, number]> = [];
  set(key: number, value: number) {
    const at = this.entries.findIndex(([k]) => k >= key);
    if (at >= 0 && this.entries[at]![0] === key) this.entries[at] = [key, value];
    else if (at < 0) this.entries.push([key, value]);
    else this.entries.splice(at, 0, [key, value]);
  }
  delete(key: number): boolean {
    const at = this.entries.findIndex(([k]) => k === key);
    if (at >= 0) this.entries.splice(at, 1);
    return at >= 0;
  }
  walk(from: number | undefined, direction: 'asc' | 'desc', inclusive: boolean) {
    const ordered = direction === 'asc' ? this.entries : [...this.entries].reverse();
    const after = (k: number, f: number) => (inclusive ? k >= f : k > f);
    const before = (k: number, f: number) => (inclusive ? k <= f : k < f);
    return ordered.filter(([k]) =>
      from === undefined || (direction === 'asc' ? after(k, from) : before(k, from)));
  }
}

function check(tree: BTree<number, number>, model: SortedModel, op: Op) {
  const pairs = (iterable: Iterable<{ key: number; value: number }>, take: number) => {
    const out: Array<[number, number]> = [];
    for (const { key, value } of iterable) {
      if (out.length === take) break;
      out.push([key, value]);
    }
    return out;
  };
  if (op.kind === 'set') {
    tree.set(op.key, op.value);
    model.set(op.key, op.value);
  } else if (op.kind === 'delete') {
    assert.equal(tree.delete(op.key), model.delete(op.key));
  } else {
    const { key, direction, inclusive, take } = op;
    assert.deepStrictEqual(pairs(tree.entries({ from: key, direction, inclusive }), take),
      model.walk(key, direction, inclusive).slice(0, take));
    assert.deepStrictEqual(pairs(tree.entries({ direction }), take),
      model.walk(undefined, direction, true).slice(0, take));
    const entry = (pair: [number, number] | undefined) => pair && { key: pair[0], value: pair[1] };
    assert.deepStrictEqual(tree.floor(key), entry(model.walk(key, 'desc', true)[0]));
    assert.deepStrictEqual(tree.lower(key), entry(model.walk(key, 'desc', false)[0]));
    assert.deepStrictEqual(tree.ceiling(key), entry(model.walk(key, 'asc', true)[0]));
    assert.deepStrictEqual(tree.higher(key), entry(model.walk(key, 'asc', false)[0]));
    assert.equal(tree.get(key), model.entries.find(([k]) => k === key)?.[1]);
  }
  assert.equal(tree.size, model.entries.length);
  tree.checkInvariants();
}

describe('btree', () => {
  for (const nodeEntryCountMax of [4, 5, BTREE_NODE_ENTRY_COUNT_MAX]) {
    it(`matches a sorted array model (fan-out ${nodeEntryCountMax})`, () => {
      fc.assert(fc.property(fc.array(opArbitrary, { maxLength: 400, size: 'max' }), (ops) => {
        const tree = new BTree<number, number>({ compare: (a, b) => a - b, nodeEntryCountMax });
        const model = new SortedModel();
        for (const op of ops) check(tree, model, op);
        // Drain: every key deleted in random-ish order leaves an empty, valid tree.
        for (const [key] of [...model.entries].sort((a, b) => (a[1] % 7) - (b[1] % 7))) {
          assert.ok(tree.delete(key));
          tree.checkInvariants();
        }
        assert.equal(tree.size, 0);
        assert.equal(tree.first(), undefined);
        assert.equal(tree.last(), undefined);
      }), { numRuns: 150 });
    });
  }

  it('keeps fan-out bounded and depth logarithmic with many keys', () => {
    const tree = new BTree<number, string>({ compare: (a, b) => a - b, nodeEntryCountMax: 4 });
    for (let i = 0; i < 5000; i++) tree.set((i * 7919) % 5000, String(i));
    tree.checkInvariants();
    assert.equal(tree.size, 5000);
    assert.deepStrictEqual(tree.first(), { key: 0, value: String(0) });
    assert.equal(tree.last()!.key, 4999);
    for (let i = 0; i < 5000; i += 2) tree.delete(i);
    tree.checkInvariants();
    const descending = [...tree.entries({ from: 4000, direction: 'desc' })].slice(0, 3);
    assert.deepStrictEqual(descending.map((e) => e.key), [3999, 3997, 3995]);
  });
});
