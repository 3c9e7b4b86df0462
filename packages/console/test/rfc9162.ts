import { createHash } from 'node:crypto'

/**
 * RFC 9162 §2.1.1 and §2.1.3.1 written out as the RFC defines them (recursive MTH and PATH), with
 * node:crypto, independent of the module under test: the reference the tests compare it with.
 */
function sha256(...parts: readonly Uint8Array[]): Buffer {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

export function refLeafHash(leaf: Uint8Array): Buffer {
  return sha256(Buffer.of(0), leaf)
}

function split(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** MTH(D[n]). */
export function refRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha256()
  if (leaves.length === 1) return refLeafHash(leaves[0]!)
  const k = split(leaves.length)
  return sha256(Buffer.of(1), refRoot(leaves.slice(0, k)), refRoot(leaves.slice(k)))
}

/** PATH(m, D[n]). */
export function refPath(m: number, leaves: readonly Uint8Array[]): Buffer[] {
  if (leaves.length <= 1) return []
  const k = split(leaves.length)
  return m < k
    ? [...refPath(m, leaves.slice(0, k)), refRoot(leaves.slice(k))]
    : [...refPath(m - k, leaves.slice(k)), refRoot(leaves.slice(0, k))]
}
