import { createHash } from 'node:crypto'

/**
 * RFC 9162 §2.1 written out as the RFC writes it, over lists of leaf inputs sliced as the RFC
 * slices them (D[0:k], D[k:n]), with no cache and no index arithmetic: the tests compare the
 * package's code against this, never against itself.
 */
const sha256 = (...parts: Uint8Array[]): Buffer => {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

export const H_LEAF = (d: Uint8Array): Buffer => sha256(Buffer.from([0x00]), d)
const H_NODE = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Buffer.from([0x01]), l, r)

/** k: the largest power of two smaller than n. */
function k(n: number): number {
  let power = 1
  while (power * 2 < n) power *= 2
  return power
}

/** MTH(D[n]). */
export function MTH(D: readonly Uint8Array[]): Buffer {
  const n = D.length
  if (n === 0) return sha256()
  if (n === 1) return H_LEAF(D[0]!)
  return H_NODE(MTH(D.slice(0, k(n))), MTH(D.slice(k(n))))
}

/** PATH(m, D[n]). */
export function PATH(m: number, D: readonly Uint8Array[]): Buffer[] {
  const n = D.length
  if (n === 1) return []
  return m < k(n)
    ? [...PATH(m, D.slice(0, k(n))), MTH(D.slice(k(n)))]
    : [...PATH(m - k(n), D.slice(k(n))), MTH(D.slice(0, k(n)))]
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true), for 0 < m < n. */
export function PROOF(m: number, D: readonly Uint8Array[]): Buffer[] {
  return SUBPROOF(m, D, true)
}

function SUBPROOF(m: number, D: readonly Uint8Array[], b: boolean): Buffer[] {
  const n = D.length
  if (m === n) return b ? [] : [MTH(D)]
  return m <= k(n)
    ? [...SUBPROOF(m, D.slice(0, k(n)), b), MTH(D.slice(k(n)))]
    : [...SUBPROOF(m - k(n), D.slice(k(n)), false), MTH(D.slice(0, k(n)))]
}
