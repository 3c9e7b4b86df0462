import { concat, equalBytes } from './bytes.js'

/** SHA-256 through WebCrypto, which the browser and Node.js both have. */
export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
}

/** RFC 9162 §2.1.1: a leaf's hash is SHA-256(0x00 ‖ leaf bytes). */
export function leafHash(leaf: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return sha256(concat(Uint8Array.of(0), leaf))
}

/** RFC 9162 §2.1.1: an interior node's hash is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return sha256(concat(Uint8Array.of(1), left, right))
}

/**
 * RFC 9162 §2.1.3.2: whether `path` proves that the leaf with hash `leaf` is at `index` in the
 * tree of `treeSize` leaves whose root is `root`. The algorithm as the RFC writes it, step for
 * step: a path that is too long or too short, or any changed byte, gives false.
 */
export async function verifyInclusion(
  index: number, treeSize: number, leaf: Uint8Array, path: readonly Uint8Array[], root: Uint8Array,
): Promise<boolean> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false
  // Sizes past 2^53 cannot reach here; below it, BigInt keeps the shifts exact past 2^31.
  let fn = BigInt(index)
  let sn = BigInt(treeSize - 1)
  let r: Uint8Array = leaf
  for (const p of path) {
    if (sn === 0n) return false
    if ((fn & 1n) === 1n || fn === sn) {
      r = await nodeHash(p, r)
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n
          sn >>= 1n
        }
      }
    } else {
      r = await nodeHash(r, p)
    }
    fn >>= 1n
    sn >>= 1n
  }
  return sn === 0n && equalBytes(r, root)
}
