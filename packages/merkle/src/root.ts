import { EMPTY_ROOT, nodeHash, type Hash } from './hash.js'
import type { TreeHashes } from './tree-hashes.js'
import { isTreeIndex, perfectLevel, splitPoint } from './verify/tree-math.js'

/**
 * MTH(D[start:end]) of RFC 9162 §2.1.1, over the leaves `hashes` holds: the empty tree's root for
 * an empty range, the leaf's hash for one leaf, else the node over the split at the largest
 * power of two below the range's size. Perfect subtrees are taken from the cache when it has them.
 */
export function subtreeRoot(hashes: TreeHashes, start: number, end: number): Hash {
  const size = end - start
  if (size === 0) return EMPTY_ROOT
  if (size === 1) return hashes.leaf(start)
  const level = perfectLevel(size)
  if (level !== null && hashes.perfect !== undefined) {
    const cached = hashes.perfect(level, start / size)
    if (cached !== undefined) return cached
  }
  const k = splitPoint(size)
  return nodeHash(subtreeRoot(hashes, start, start + k), subtreeRoot(hashes, start + k, end))
}

/** The root of the first `size` leaves (the tree as it was at that size). */
export function treeRoot(hashes: TreeHashes, size: number): Hash {
  if (!isTreeIndex(size)) throw new RangeError(`tree size ${size} is not a whole number ≥ 0`)
  return subtreeRoot(hashes, 0, size)
}
