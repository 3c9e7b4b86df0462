/** Leaf inputs and proof shapes the merkle tests share. */

/** Leaf inputs 0..n-1: distinct, of varying length (the empty input among them). */
export const inputs = (n: number): Buffer[] => Array.from({ length: n }, (_, i) => Buffer.from('x'.repeat(i % 5) + String(i)))

/** The certificate-transparency test leaves (RFC 6962 reference data) and the published roots of their prefixes. */
export const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']
  .map((hex) => Buffer.from(hex, 'hex'))
export const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
]

/** Which side each sibling of leaf m is on, nearest first, in the RFC's recursion over n leaves. */
function sides(m: number, n: number): string {
  if (n <= 1) return ''
  let k = 1
  while (k * 2 < n) k *= 2
  return m < k ? `${sides(m, k)}R` : `${sides(m - k, n - k)}L`
}
/** The decisions of SUBPROOF(m, D[n], b): which side each step goes and whether the last node is named. */
export function subproofShape(m: number, n: number, b: boolean): string {
  if (m === n) return b ? '' : '='
  let k = 1
  while (k * 2 < n) k *= 2
  return m <= k ? `${subproofShape(m, k, b)}R` : `${subproofShape(m - k, n - k, false)}L`
}
/** Whether leaf m's path has the same shape in a tree of n leaves and one of `size`. */
export const sameShape = (m: number, n: number, size: number): boolean => m < size && sides(m, n) === sides(m, size)

export const flipped = (hash: Uint8Array, byte: number): Buffer => {
  const copy = Buffer.from(hash)
  copy[byte] = (copy[byte] ?? 0) ^ 0x01
  return copy
}
