// An in-memory B+tree: an ordered map with bounded fan-out. RowStore maps the first key of each row
// block to the block; find the block for a key with floor(), walk blocks with entries().
//
// Shape: every node holds at most nodeEntryCountMax entries (leaves: keys and values; internal
// nodes: children, with one separator key fewer). Every node but the root holds at least half that.
// Child i of an internal node holds the keys k with separators[i - 1] <= k < separators[i]. Leaves
// are linked both ways so iteration never climbs the tree. The bound is a named constant so that a
// node will fit in a block when the tree is stored in blocks later.

import { assert } from '../base/assert.ts';
import { invariants } from '../base/invariants.ts';
import { BTREE_NODE_ENTRY_COUNT_MAX } from '../base/limits.ts';

export { BTREE_NODE_ENTRY_COUNT_MAX };
/** The smallest fan-out the shape rules work with (tests use it to reach every rebalance case). */
export const BTREE_NODE_ENTRY_COUNT_MIN_ALLOWED = 4;

export interface BTreeEntry<K, V> {
  readonly key: K;
  readonly value: V;
}

interface Leaf<K, V> {
  readonly leaf: true;
  keys: K[];
  values: V[];
  prev: Leaf<K, V> | undefined;
  next: Leaf<K, V> | undefined;
}

interface Internal<K, V> {
  readonly leaf: false;
  /** separators.length === children.length - 1 */
  separators: K[];
  children: Array<Node<K, V>>;
}

type Node<K, V> = Leaf<K, V> | Internal<K, V>;

/** A node that overflowed: its new right sibling, and the key that separates the two. */
interface Split<K, V> {
  separator: K;
  right: Node<K, V>;
}

export interface BTreeOptions<K> {
  compare: (a: K, b: K) => number;
  /** Tests shrink this to reach splits and merges with few keys. */
  nodeEntryCountMax?: number;
}

export class BTree<K, V> {
  private root: Node<K, V> = newLeaf();
  private entryCount = 0;
  private readonly compare: (a: K, b: K) => number;
  private readonly entryCountMax: number;
  private readonly entryCountMin: number;

  constructor(options: BTreeOptions<K>) {
    this.compare = options.compare;
    this.entryCountMax = options.nodeEntryCountMax ?? BTREE_NODE_ENTRY_COUNT_MAX;
    assert(this.entryCountMax >= BTREE_NODE_ENTRY_COUNT_MIN_ALLOWED);
    assert(this.entryCountMax <= BTREE_NODE_ENTRY_COUNT_MAX);
    this.entryCountMin = this.entryCountMax >> 1;
  }

  get size(): number {
    return this.entryCount;
  }

  get(key: K): V | undefined {
    const leaf = this.leafFor(key);
    const index = this.indexIn(leaf.keys, key);
    return index < leaf.keys.length && this.compare(leaf.keys[index]!, key) === 0
      ? leaf.values[index]
      : undefined;
  }

  /** Inserts, or replaces the value of an equal key. */
  set(key: K, value: V): void {
    const split = this.insertInto(this.root, key, value);
    if (split !== undefined) {
      const children = [this.root, split.right];
      this.root = { leaf: false, separators: [split.separator], children };
    }
    if (invariants.enabled) this.checkInvariants();
  }

  /** Removes key; returns whether it was there. */
  delete(key: K): boolean {
    const deleted = this.deleteFrom(this.root, key);
    if (!deleted) return false;
    const root = this.root;
    if (!root.leaf && root.children.length === 1) this.root = root.children[0]!;
    if (invariants.enabled) this.checkInvariants();
    return true;
  }

  clear(): void {
    this.root = newLeaf();
    this.entryCount = 0;
  }

  /** The entry with the greatest key <= key. */
  floor(key: K): BTreeEntry<K, V> | undefined {
    const leaf = this.leafFor(key);
    const index = this.upperIndexIn(leaf.keys, key) - 1;
    if (index >= 0) return entryAt(leaf, index);
    return leaf.prev === undefined ? undefined : entryAt(leaf.prev, leaf.prev.keys.length - 1);
  }

  /** The entry with the least key >= key. */
  ceiling(key: K): BTreeEntry<K, V> | undefined {
    const leaf = this.leafFor(key);
    const index = this.indexIn(leaf.keys, key);
    if (index < leaf.keys.length) return entryAt(leaf, index);
    return leaf.next === undefined ? undefined : entryAt(leaf.next, 0);
  }

  /** The entry with the greatest key < key. */
  lower(key: K): BTreeEntry<K, V> | undefined {
    return this.entries({ from: key, direction: 'desc', inclusive: false }).next().value;
  }

  /** The entry with the least key > key. */
  higher(key: K): BTreeEntry<K, V> | undefined {
    return this.entries({ from: key, direction: 'asc', inclusive: false }).next().value;
  }

  first(): BTreeEntry<K, V> | undefined {
    return this.entries({ direction: 'asc' }).next().value;
  }

  last(): BTreeEntry<K, V> | undefined {
    let node = this.root;
    while (!node.leaf) node = node.children[node.children.length - 1]!;
    return node.keys.length === 0 ? undefined : entryAt(node, node.keys.length - 1);
  }

  /**
   * Entries in order: 'asc' from the least key >= from (> from when not inclusive), 'desc' from the
   * greatest key <= from (< from). Without `from`, from the first or last entry. Do not modify the
   * tree while iterating.
   */
  *entries(
    options: { from?: K; direction: 'asc' | 'desc'; inclusive?: boolean },
  ): Generator<BTreeEntry<K, V>, undefined, undefined> {
    const { from, direction } = options;
    const inclusive = options.inclusive ?? true;
    let leaf: Leaf<K, V> | undefined;
    let index: number;
    if (direction === 'asc') {
      leaf = from === undefined ? this.edgeLeaf('first') : this.leafFor(from);
      index = from === undefined ? 0
        : inclusive ? this.indexIn(leaf.keys, from) : this.upperIndexIn(leaf.keys, from);
      for (; leaf !== undefined; leaf = leaf.next, index = 0) {
        for (; index < leaf.keys.length; index++) yield entryAt(leaf, index);
      }
      return;
    }
    leaf = from === undefined ? this.edgeLeaf('last') : this.leafFor(from);
    index = from === undefined ? leaf.keys.length - 1
      : (inclusive ? this.upperIndexIn(leaf.keys, from) : this.indexIn(leaf.keys, from)) - 1;
    while (leaf !== undefined) {
      for (; index >= 0; index--) yield entryAt(leaf, index);
      leaf = leaf.prev;
      index = leaf === undefined ? -1 : leaf.keys.length - 1;
    }
  }

  private edgeLeaf(edge: 'first' | 'last'): Leaf<K, V> {
    let node = this.root;
    while (!node.leaf) node = node.children[edge === 'first' ? 0 : node.children.length - 1]!;
    return node;
  }

  private leafFor(key: K): Leaf<K, V> {
    let node = this.root;
    while (!node.leaf) node = node.children[this.upperIndexIn(node.separators, key)]!;
    return node;
  }

  /** First index whose key is >= key. */
  private indexIn(keys: readonly K[], key: K): number {
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(keys[mid]!, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First index whose key is > key. */
  private upperIndexIn(keys: readonly K[], key: K): number {
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(keys[mid]!, key) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private insertInto(node: Node<K, V>, key: K, value: V): Split<K, V> | undefined {
    if (node.leaf) {
      const index = this.indexIn(node.keys, key);
      if (index < node.keys.length && this.compare(node.keys[index]!, key) === 0) {
        node.values[index] = value;
        return undefined;
      }
      node.keys.splice(index, 0, key);
      node.values.splice(index, 0, value);
      this.entryCount++;
      return node.keys.length > this.entryCountMax ? splitLeaf(node) : undefined;
    }
    const childIndex = this.upperIndexIn(node.separators, key);
    const split = this.insertInto(node.children[childIndex]!, key, value);
    if (split === undefined) return undefined;
    node.separators.splice(childIndex, 0, split.separator);
    node.children.splice(childIndex + 1, 0, split.right);
    return node.children.length > this.entryCountMax ? splitInternal(node) : undefined;
  }

  private deleteFrom(node: Node<K, V>, key: K): boolean {
    if (node.leaf) {
      const index = this.indexIn(node.keys, key);
      if (index >= node.keys.length || this.compare(node.keys[index]!, key) !== 0) return false;
      node.keys.splice(index, 1);
      node.values.splice(index, 1);
      this.entryCount--;
      return true;
    }
    const childIndex = this.upperIndexIn(node.separators, key);
    if (!this.deleteFrom(node.children[childIndex]!, key)) return false;
    if (nodeSize(node.children[childIndex]!) < this.entryCountMin) this.rebalance(node, childIndex);
    return true;
  }

  /** Child i of parent underflowed: borrow from a sibling with spare entries, else merge. */
  private rebalance(parent: Internal<K, V>, i: number): void {
    const left = i > 0 ? parent.children[i - 1] : undefined;
    const right = parent.children[i + 1];
    if (left !== undefined && nodeSize(left) > this.entryCountMin) {
      borrowFromLeft(parent, i);
    } else if (right !== undefined && nodeSize(right) > this.entryCountMin) {
      borrowFromRight(parent, i);
    } else if (left !== undefined) {
      mergeChildren(parent, i - 1);
    } else {
      assert(right !== undefined, 'an internal node has at least two children');
      mergeChildren(parent, i);
    }
  }

  /** O(n): ordering, fill bounds, separators and leaf links. */
  checkInvariants(): void {
    let count = 0;
    let previous: Leaf<K, V> | undefined;
    type Bound = K | undefined;
    type Visit = (node: Node<K, V>, low: Bound, high: Bound, depth: number) => number;
    const visit: Visit = (node, low, high, depth) => {
      const size = nodeSize(node);
      assert(size <= this.entryCountMax, 'node over its fan-out');
      if (node !== this.root) assert(size >= this.entryCountMin, 'node under half full');
      const keys = node.leaf ? node.keys : node.separators;
      for (let j = 0; j < keys.length; j++) {
        if (j > 0) assert(this.compare(keys[j - 1]!, keys[j]!) < 0, 'keys out of order');
        if (low !== undefined) assert(this.compare(keys[j]!, low) >= 0, 'key below its range');
        if (high !== undefined) assert(this.compare(keys[j]!, high) < 0, 'key above its range');
      }
      if (node.leaf) {
        assert(node.prev === previous, 'leaf links broken');
        if (previous !== undefined) assert(previous.next === node, 'leaf links broken');
        previous = node;
        count += node.keys.length;
        return depth;
      }
      const depths = node.children.map((child, j): number => {
        const childLow = j === 0 ? low : node.separators[j - 1];
        const childHigh = j < node.separators.length ? node.separators[j] : high;
        return visit(child, childLow, childHigh, depth + 1);
      });
      assert(depths.every((d) => d === depths[0]), 'leaves at different depths');
      return depths[0]!;
    };
    visit(this.root, undefined, undefined, 0);
    assert(previous?.next === undefined, 'last leaf has a successor');
    assert(count === this.entryCount, 'entry count drift');
  }
}

function newLeaf<K, V>(): Leaf<K, V> {
  return { leaf: true, keys: [], values: [], prev: undefined, next: undefined };
}

function entryAt<K, V>(leaf: Leaf<K, V>, index: number): BTreeEntry<K, V> {
  return { key: leaf.keys[index]!, value: leaf.values[index]! };
}

function nodeSize<K, V>(node: Node<K, V>): number {
  return node.leaf ? node.keys.length : node.children.length;
}

function splitLeaf<K, V>(leaf: Leaf<K, V>): Split<K, V> {
  const half = Math.ceil(leaf.keys.length / 2);
  const right: Leaf<K, V> = {
    leaf: true, keys: leaf.keys.splice(half), values: leaf.values.splice(half),
    prev: leaf, next: leaf.next,
  };
  if (leaf.next !== undefined) leaf.next.prev = right;
  leaf.next = right;
  return { separator: right.keys[0]!, right };
}

function splitInternal<K, V>(node: Internal<K, V>): Split<K, V> {
  const half = Math.ceil(node.children.length / 2);
  const children = node.children.splice(half);
  const separators = node.separators.splice(half);
  // The separator between the halves moves up; it is the last one the left half kept.
  const separator = node.separators.pop()!;
  assert(separators.length === children.length - 1);
  return { separator, right: { leaf: false, separators, children } };
}

function borrowFromLeft<K, V>(parent: Internal<K, V>, i: number): void {
  const node = parent.children[i]!;
  const left = parent.children[i - 1]!;
  if (node.leaf && left.leaf) {
    node.keys.unshift(left.keys.pop()!);
    node.values.unshift(left.values.pop()!);
    parent.separators[i - 1] = node.keys[0]!;
    return;
  }
  assert(!node.leaf && !left.leaf);
  node.children.unshift(left.children.pop()!);
  node.separators.unshift(parent.separators[i - 1]!);
  parent.separators[i - 1] = left.separators.pop()!;
}

function borrowFromRight<K, V>(parent: Internal<K, V>, i: number): void {
  const node = parent.children[i]!;
  const right = parent.children[i + 1]!;
  if (node.leaf && right.leaf) {
    node.keys.push(right.keys.shift()!);
    node.values.push(right.values.shift()!);
    parent.separators[i] = right.keys[0]!;
    return;
  }
  assert(!node.leaf && !right.leaf);
  node.children.push(right.children.shift()!);
  node.separators.push(parent.separators[i]!);
  parent.separators[i] = right.separators.shift()!;
}

/** Merges child i + 1 of parent into child i. */
function mergeChildren<K, V>(parent: Internal<K, V>, i: number): void {
  const left = parent.children[i]!;
  const right = parent.children[i + 1]!;
  const separator = parent.separators[i]!;
  parent.separators.splice(i, 1);
  parent.children.splice(i + 1, 1);
  if (left.leaf && right.leaf) {
    left.keys.push(...right.keys);
    left.values.push(...right.values);
    left.next = right.next;
    if (right.next !== undefined) right.next.prev = left;
    return;
  }
  assert(!left.leaf && !right.leaf);
  left.separators.push(separator, ...right.separators);
  left.children.push(...right.children);
}
