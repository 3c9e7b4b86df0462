import { sha256, type Hash } from './hash.js'
import { subtreeRoot } from './root.js'
import type { TreeHashes } from './tree-hashes.js'
import { runHashingSync } from './verify/hashing.js'
import { inclusionSteps } from './verify/inclusion.js'
import { isTreeIndex, splitPoint } from './verify/tree-math.js'

/**
 * PATH(m, D[n]) of RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of the first
 * `size` leaves, nearest sibling first.
 */
export function inclusionProof(hashes: TreeHashes, index: number, size: number): Hash[] {
  if (!isTreeIndex(index) || !isTreeIndex(size) || index >= size) {
    throw new RangeError(`leaf ${index} is not in a tree of size ${size}`)
  }
  return path(hashes, index, 0, size)
}

function path(hashes: TreeHashes, index: number, start: number, end: number): Hash[] {
  const size = end - start
  if (size === 1) return []
  const k = splitPoint(size)
  return index < start + k
    ? [...path(hashes, index, start, start + k), subtreeRoot(hashes, start + k, end)]
    : [...path(hashes, index, start + k, end), subtreeRoot(hashes, start, start + k)]
}

/**
 * The verifier of RFC 9162 §2.1.3.2 (`inclusionSteps`, shared with the browser entry), with
 * node:crypto: whether `proof` shows that `leaf` (a leaf hash) is leaf `index` of the tree of
 * `size` leaves whose root is `root`.
 */
export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  return runHashingSync(inclusionSteps(leaf, index, size, proof, root), sha256)
}
