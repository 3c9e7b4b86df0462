import { EMPTY_ROOT, nodeHash, type Hash } from './hash.js'
import { isTreeIndex } from './verify/tree-math.js'

/** A perfect subtree: 2^level leaves from leaf index · 2^level, and its root. */
export interface PerfectNode {
  readonly level: number
  readonly index: number
  readonly hash: Hash
}

/**
 * A growing tree as its frontier: the roots of the perfect subtrees that the binary form of its
 * size cuts it into, largest (leftmost) first. Appending a leaf merges equal neighbours, each
 * merge being a new perfect subtree (what a store may cache); the root folds the frontier from
 * the right, which is RFC 9162's MTH (the largest power of two on the left, the rest on the right).
 */
export class CompactRange {
  private readonly nodes: PerfectNode[]
  private count: number

  /** The frontier of a tree of `size` leaves, as `frontierOf(size)` lists its subtrees. */
  constructor(size = 0, frontier: readonly PerfectNode[] = []) {
    const expected = frontierOf(size)
    if (expected.length !== frontier.length ||
      expected.some((node, i) => node.level !== frontier[i]?.level || node.index !== frontier[i].index)) {
      throw new RangeError(`the frontier given does not fit a tree of ${size} leaves`)
    }
    this.nodes = [...frontier]
    this.count = size
  }

  get size(): number {
    return this.count
  }

  /** Appends one leaf hash; returns the perfect subtrees of level ≥ 1 that it completed. */
  append(leaf: Hash): PerfectNode[] {
    let node: PerfectNode = { level: 0, index: this.count, hash: leaf }
    const made: PerfectNode[] = []
    for (let top = this.nodes.at(-1); top !== undefined && top.level === node.level; top = this.nodes.at(-1)) {
      this.nodes.pop()
      node = { level: node.level + 1, index: top.index / 2, hash: nodeHash(top.hash, node.hash) }
      made.push(node)
    }
    this.nodes.push(node)
    this.count += 1
    return made
  }

  root(): Hash {
    let root: Hash | undefined
    for (let i = this.nodes.length - 1; i >= 0; i -= 1) {
      const hash = (this.nodes[i] as PerfectNode).hash
      root = root === undefined ? hash : nodeHash(hash, root)
    }
    return root ?? EMPTY_ROOT
  }
}

/**
 * Which perfect subtrees make up the frontier of a tree of `size` leaves, largest first:
 * one per bit set in `size`. A store reads these to resume a tree without reading its leaves.
 */
export function frontierOf(size: number): Array<{ readonly level: number; readonly index: number }> {
  if (!isTreeIndex(size)) throw new RangeError(`tree size ${size} is not a whole number ≥ 0`)
  const parts: Array<{ level: number; index: number }> = []
  let start = 0
  let power = 1
  let level = 0
  while (power * 2 <= size) {
    power *= 2
    level += 1
  }
  for (; level >= 0; level -= 1, power /= 2) {
    if (start + power <= size) {
      parts.push({ level, index: start / power })
      start += power
    }
  }
  return parts
}
