import { equalBytes } from './bytes.js'
import { nodeInput, type Hashing } from './hashing.js'
import { isTreeIndex } from './tree-math.js'

/**
 * The verifier of RFC 9162 §2.1.3.2, step by step: whether `proof` shows that `leaf` (a leaf
 * hash) is leaf `index` of the tree of `size` leaves whose root is `root`. A path that is too
 * long or too short, or any changed byte, gives false.
 */
export function* inclusionSteps(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): Hashing<boolean> {
  if (!isTreeIndex(index) || !isTreeIndex(size) || index >= size) return false
  // Arithmetic, not bit operators, which would truncate indexes past 2^31.
  let fn = index
  let sn = size - 1
  let r: Uint8Array = leaf
  for (const p of proof) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      r = yield nodeInput(p, r)
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2
        sn = Math.floor(sn / 2)
      }
    } else {
      r = yield nodeInput(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && equalBytes(r, root)
}
