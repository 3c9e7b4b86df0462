import type { Hash } from './hash.js'

/**
 * Where a tree's hashes come from: its leaf hashes, and optionally a cache of the roots of its
 * perfect subtrees. Every left child in RFC 9162's split (`k`, the largest power of two below
 * `n`) is a perfect subtree that starts at a multiple of its own size, so a cache keyed by
 * (level, index) — the subtree of 2^level leaves starting at index · 2^level — answers every one
 * of them, and a proof then costs O(log² n) look-ups instead of O(n) hashing.
 */
export interface TreeHashes {
  /** The hash of leaf `index` (0-based); the caller asks only for leaves that exist. */
  leaf(index: number): Hash
  /** The root of the perfect subtree of 2^level leaves starting at leaf index · 2^level, when known. */
  perfect?(level: number, index: number): Hash | undefined
}

/** Leaf hashes held in memory, with no cache: what tests and small trees use. */
export function hashesOf(leaves: readonly Hash[]): TreeHashes {
  return {
    leaf: (index) => {
      const hash = leaves[index]
      if (hash === undefined) throw new RangeError(`no leaf ${index} in a tree of ${leaves.length}`)
      return hash
    },
  }
}
