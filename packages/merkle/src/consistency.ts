import { sha256, type Hash } from './hash.js'
import { subtreeRoot } from './root.js'
import type { TreeHashes } from './tree-hashes.js'
import { consistencySteps } from './verify/consistency.js'
import { runHashingSync } from './verify/hashing.js'
import { isTreeIndex, splitPoint } from './verify/tree-math.js'

/**
 * PROOF(m, D[n]) of RFC 9162 §2.1.4.1: that the tree of the first `first` leaves is a prefix of
 * the tree of the first `second`. The RFC defines it for 0 < m < n; for m = 0 or m = n the
 * proof is empty (every tree extends the empty one, and a tree is consistent with itself; the
 * verifier then compares the roots).
 */
export function consistencyProof(hashes: TreeHashes, first: number, second: number): Hash[] {
  if (!isTreeIndex(first) || !isTreeIndex(second) || first > second) {
    throw new RangeError(`no consistency proof from size ${first} to size ${second}`)
  }
  if (first === 0 || first === second) return []
  return subproof(hashes, first, 0, second, true)
}

/** SUBPROOF(m, D[start:end], b), with m counted from `start`. */
function subproof(hashes: TreeHashes, m: number, start: number, end: number, whole: boolean): Hash[] {
  const size = end - start
  if (m === size) return whole ? [] : [subtreeRoot(hashes, start, end)]
  const k = splitPoint(size)
  return m <= k
    ? [...subproof(hashes, m, start, start + k, whole), subtreeRoot(hashes, start + k, end)]
    : [...subproof(hashes, m - k, start + k, end, false), subtreeRoot(hashes, start, start + k)]
}

/**
 * The verifier of RFC 9162 §2.1.4.2 (`consistencySteps`, shared with the browser entry), with
 * node:crypto: whether `proof` shows that the tree of size `first` with root `firstRoot` is a
 * prefix of the tree of size `second` with root `secondRoot`. For first = second the proof must
 * be empty and the roots equal; for first = 0 the proof must be empty and `firstRoot` the empty
 * tree's.
 */
export function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array,
  proof: readonly Uint8Array[]): boolean {
  return runHashingSync(consistencySteps(first, second, firstRoot, secondRoot, proof), sha256)
}
