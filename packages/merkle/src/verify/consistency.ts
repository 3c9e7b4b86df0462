import { equalBytes } from './bytes.js'
import { nodeInput, type Hashing } from './hashing.js'
import { isTreeIndex, perfectLevel } from './tree-math.js'

/**
 * The verifier of RFC 9162 §2.1.4.2, step by step: whether `proof` shows that the tree of size
 * `first` with root `firstRoot` is a prefix of the tree of size `second` with root `secondRoot`.
 * For first = second the proof must be empty and the roots equal; for first = 0 the proof must
 * be empty and `firstRoot` the empty tree's (SHA-256 of nothing).
 */
export function* consistencySteps(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array,
  proof: readonly Uint8Array[]): Hashing<boolean> {
  if (!isTreeIndex(first) || !isTreeIndex(second) || first > second) return false
  if (first === 0) return proof.length === 0 && equalBytes(yield new Uint8Array(0), firstRoot)
  if (first === second) return proof.length === 0 && equalBytes(firstRoot, secondRoot)
  if (proof.length === 0) return false
  const path = perfectLevel(first) !== null ? [firstRoot, ...proof] : [...proof]
  let fn = first - 1
  let sn = second - 1
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  const [seed, ...rest] = path as [Uint8Array, ...Uint8Array[]]
  let fr: Uint8Array = seed
  let sr: Uint8Array = seed
  for (const c of rest) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      fr = yield nodeInput(c, fr)
      sr = yield nodeInput(c, sr)
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2
        sn = Math.floor(sn / 2)
      }
    } else {
      sr = yield nodeInput(sr, c)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && equalBytes(fr, firstRoot) && equalBytes(sr, secondRoot)
}
