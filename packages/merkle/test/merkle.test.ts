import t from 'tap'
import {
  CompactRange, consistencyProof, EMPTY_ROOT, fromHex, frontierOf, hashesOf, inclusionProof, leafHash, nodeHash,
  subtreeRoot, toHex, treeRoot, verifyConsistency, verifyInclusion, type Hash, type PerfectNode, type TreeHashes,
} from '../src/index.js'
import { H_LEAF, MTH, PATH, PROOF } from './rfc9162-reference.js'

/** Leaf inputs 0..n-1: distinct, of varying length (the empty input among them). */
const inputs = (n: number): Buffer[] => Array.from({ length: n }, (_, i) => Buffer.from('x'.repeat(i % 5) + String(i)))

/** The leaves of a tree, with and without a cache of perfect subtrees (from CompactRange). */
function trees(D: readonly Buffer[]): Array<[string, TreeHashes]> {
  const leaves = D.map(leafHash)
  const range = new CompactRange()
  const cache = new Map<string, Hash>()
  for (const leaf of leaves) for (const node of range.append(leaf)) cache.set(`${node.level}/${node.index}`, node.hash)
  return [
    ['leaves only', hashesOf(leaves)],
    ['with a cache', { ...hashesOf(leaves), perfect: (level, index) => cache.get(`${level}/${index}`) }],
    ['with an empty cache', { ...hashesOf(leaves), perfect: () => undefined }],
  ]
}

/** Which side each sibling of leaf m is on, nearest first, in the RFC's recursion over n leaves. */
function sides(m: number, n: number): string {
  if (n <= 1) return ''
  let k = 1
  while (k * 2 < n) k *= 2
  return m < k ? `${sides(m, k)}R` : `${sides(m - k, n - k)}L`
}
/** The decisions of SUBPROOF(m, D[n], b): which side each step goes and whether the last node is named. */
function subproofShape(m: number, n: number, b: boolean): string {
  if (m === n) return b ? '' : '='
  let k = 1
  while (k * 2 < n) k *= 2
  return m <= k ? `${subproofShape(m, k, b)}R` : `${subproofShape(m - k, n - k, false)}L`
}
const sameShape = (m: number, n: number, size: number): boolean => m < size && sides(m, n) === sides(m, size)

const flipped = (hash: Uint8Array, byte: number): Buffer => {
  const copy = Buffer.from(hash)
  copy[byte] = (copy[byte] ?? 0) ^ 0x01
  return copy
}

t.test('hashing is RFC 9162 §2.1.1: leaf and node prefixes, the empty root', async (t) => {
  t.equal(toHex(EMPTY_ROOT), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  t.same(leafHash(Buffer.from('abc')), H_LEAF(Buffer.from('abc')))
  t.not(toHex(leafHash(Buffer.alloc(0))), toHex(EMPTY_ROOT), 'a leaf is not the empty tree')
  t.same(leafHash('zoë ✓'), H_LEAF(Buffer.from('zoë ✓', 'utf8')), 'a leaf given as text is hashed as its UTF-8 bytes')
  t.same(nodeHash(leafHash(Buffer.from('a')), leafHash(Buffer.from('b'))), MTH([Buffer.from('a'), Buffer.from('b')]))
  t.equal(toHex(treeRoot(hashesOf([]), 0)), toHex(EMPTY_ROOT))
  t.equal(fromHex('AB'.repeat(32)), null, 'uppercase is not how hashes travel')
  t.equal(fromHex('ab'), null)
  t.same(fromHex('ab'.repeat(32)), Buffer.alloc(32, 0xab))
})

t.test('known roots: the certificate-transparency test leaves (RFC 6962 reference data)', async (t) => {
  const D = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((hex) => Buffer.from(hex, 'hex'))
  const roots = [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
    '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
    'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
    '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
  ]
  const hashes = hashesOf(D.map(leafHash))
  for (const [i, root] of roots.entries()) {
    t.equal(toHex(MTH(D.slice(0, i + 1))), root, `the reference gives the published root of ${i + 1}`)
    t.equal(toHex(treeRoot(hashes, i + 1)), root, `root of ${i + 1}`)
  }
  // Hand-checked small proofs: leaf 0 of 3 is [h1, h2]; consistency 3 -> 4 is [h2, h3, node(h0, h1)].
  const h = D.map(leafHash)
  t.same(inclusionProof(hashes, 0, 3), [h[1], h[2]])
  t.same(inclusionProof(hashes, 2, 3), [nodeHash(h[0]!, h[1]!)])
  t.same(consistencyProof(hashes, 3, 4), [h[2], h[3], nodeHash(h[0]!, h[1]!)])
  t.same(consistencyProof(hashes, 2, 8), [nodeHash(h[2]!, h[3]!), MTH(D.slice(4, 8))])
})

t.test('every tree size from 1 to 64: roots, every inclusion proof and every consistency proof', async (t) => {
  let checked = 0
  for (let n = 1; n <= 64; n += 1) {
    const D = inputs(n)
    const leaves = D.map(leafHash)
    for (const [how, hashes] of trees(D)) {
      const root = treeRoot(hashes, n)
      if (!root.equals(MTH(D))) t.fail(`root of ${n} (${how})`)
      for (let m = 0; m < n; m += 1) {
        const proof = inclusionProof(hashes, m, n)
        const expected = PATH(m, D)
        if (proof.length !== expected.length || proof.some((p, i) => !p.equals(expected[i]!))) t.fail(`PATH(${m}, D[${n}]) (${how})`)
        if (!verifyInclusion(leaves[m]!, m, n, proof, root)) t.fail(`inclusion of ${m} in ${n} does not verify (${how})`)
        checked += 1
      }
      for (let m = 0; m <= n; m += 1) {
        const proof = consistencyProof(hashes, m, n)
        const expected = m === 0 || m === n ? [] : PROOF(m, D)
        if (proof.length !== expected.length || proof.some((p, i) => !p.equals(expected[i]!))) t.fail(`PROOF(${m}, D[${n}]) (${how})`)
        if (!verifyConsistency(m, n, treeRoot(hashes, m), root, proof)) t.fail(`consistency ${m} -> ${n} does not verify (${how})`)
        checked += 1
      }
    }
  }
  t.equal(checked, 3 * (2080 + 2144), 'every proof of every size was checked, three ways')
})

t.test('an inclusion proof fails when any byte of the leaf, a path element or the root changes, or the index or size', async (t) => {
  let refused = 0
  let accepted = 0
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 32, 33, 64]) {
    const D = inputs(n)
    const leaves = D.map(leafHash)
    const hashes = hashesOf(leaves)
    const root = treeRoot(hashes, n)
    for (let m = 0; m < n; m += 1) {
      const leaf = leaves[m]!
      const proof = inclusionProof(hashes, m, n)
      const tries: Array<[Uint8Array, number, number, Uint8Array[], Uint8Array]> = []
      for (let byte = 0; byte < 32; byte += 1) {
        tries.push([flipped(leaf, byte), m, n, proof, root])
        tries.push([leaf, m, n, proof, flipped(root, byte)])
        for (let p = 0; p < proof.length; p += 1) tries.push([leaf, m, n, proof.map((h, i) => i === p ? flipped(h, byte) : h), root])
      }
      for (const index of [m - 1, m + 1, m + n, -1, 0.5, n]) if (index !== m) tries.push([leaf, index, n, proof, root])
      for (const size of [n - 1, n + 1, 2 * n, m, 0]) if (size !== n) tries.push([leaf, m, size, proof, root])
      tries.push([leaf, m, n, [...proof, leaf], root], [leaf, m, n, proof.slice(1), root], [leaf, m, n, [...proof].reverse(), root])
      for (const args of tries) {
        if (!verifyInclusion(...args)) refused += 1
        // The proof alone does not bind the size: leaf 0 of 3 and leaf 0 of 4 have the same path
        // shape, and only the signed head binds a size to its root (tree-head.test.ts). A size
        // that changes the shape fails; one that keeps it is the one change allowed through.
        else if (args[3].length === proof.length && args[3].every((h, i) => proof[i]!.equals(h)) && args[1] === m && sameShape(m, n, args[2])) accepted += 1
        else t.fail(`a changed inclusion proof verified (n=${n}, m=${m}, index ${args[1]}, size ${args[2]})`)
      }
    }
  }
  t.ok(refused > 20_000, `${refused} changed proofs refused`)
  t.ok(accepted > 0 && accepted < refused / 100, `only ${accepted} size changes that keep the path's shape went through`)
})

t.test('a consistency proof fails when any byte of either root or a proof element changes, or either size', async (t) => {
  let refused = 0
  let accepted = 0
  for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 33, 64]) {
    const D = inputs(n)
    const hashes = hashesOf(D.map(leafHash))
    const second = treeRoot(hashes, n)
    for (let m = 0; m <= n; m += 1) {
      const first = treeRoot(hashes, m)
      const proof = consistencyProof(hashes, m, n)
      const tries: Array<[number, number, Uint8Array, Uint8Array, Uint8Array[]]> = []
      for (let byte = 0; byte < 32; byte += 1) {
        tries.push([m, n, flipped(first, byte), second, proof], [m, n, first, flipped(second, byte), proof])
        for (let p = 0; p < proof.length; p += 1) tries.push([m, n, first, second, proof.map((h, i) => i === p ? flipped(h, byte) : h)])
      }
      for (const size of [m - 1, m + 1, n + 1, 0.5]) if (size !== m && size >= 0 && size <= n) tries.push([size, n, first, second, proof])
      for (const size of [n - 1, n + 1, 2 * n]) if (size !== n && size >= m) tries.push([m, size, first, second, proof])
      tries.push([m, n, first, second, [...proof, second]], [-1, n, first, second, proof])
      if (m !== n) tries.push([n, m, second, first, proof])
      if (proof.length > 0) tries.push([m, n, first, second, proof.slice(1)], [m, n, first, second, proof.slice(0, -1)])
      for (const args of tries) {
        // Every tree extends the empty one: from size 0 a proof says nothing of the second tree.
        if (m === 0 && args[0] === 0 && Buffer.from(args[2]).equals(first) && args[4].length === 0) continue
        if (verifyConsistency(...args) && args[4] === proof && args[0] === m && subproofShape(m, n, true) === subproofShape(m, args[1], true)) accepted += 1
        else if (verifyConsistency(...args)) t.fail(`a changed consistency proof verified (m=${m}, n=${n}, ${JSON.stringify(args.slice(0, 2))})`)
        else refused += 1
      }
    }
  }
  t.ok(refused > 10_000, `${refused} changed proofs refused`)
  t.ok(accepted < refused / 100, `only ${accepted} second sizes that keep the proof's shape went through (the signed head binds the size)`)
})

t.test('bounds: proofs are asked for leaves and sizes that exist; verifiers refuse the rest', async (t) => {
  const hashes = hashesOf(inputs(5).map(leafHash))
  t.throws(() => inclusionProof(hashes, 5, 5), RangeError)
  t.throws(() => inclusionProof(hashes, -1, 5), RangeError)
  t.throws(() => inclusionProof(hashes, 0, 0), RangeError)
  t.throws(() => inclusionProof(hashes, 0, 1.5), RangeError)
  t.throws(() => consistencyProof(hashes, 3, 2), RangeError)
  t.throws(() => consistencyProof(hashes, -1, 2), RangeError)
  t.throws(() => consistencyProof(hashes, 1, Number.MAX_SAFE_INTEGER + 1), RangeError)
  t.throws(() => treeRoot(hashes, -1), RangeError)
  t.throws(() => treeRoot(hashes, 6), /no leaf 5 in a tree of 5/)
  const root = treeRoot(hashes, 5)
  t.notOk(verifyInclusion(leafHash(Buffer.from('0')), 0, 5, [], root), 'an empty path proves only a one-leaf tree')
  t.ok(verifyInclusion(leafHash(Buffer.from('0')), 0, 1, [], leafHash(Buffer.from('0'))))
  t.notOk(verifyConsistency(0, 5, root, root, []), 'the empty tree has the empty root')
  t.ok(verifyConsistency(0, 5, EMPTY_ROOT, root, []))
  t.notOk(verifyConsistency(0, 5, EMPTY_ROOT, root, [root]), 'nothing is needed to extend the empty tree')
  t.ok(verifyConsistency(5, 5, root, root, []))
  t.notOk(verifyConsistency(5, 5, root, EMPTY_ROOT, []))
  t.notOk(verifyConsistency(5, 5, root, root, [root]))
  t.notOk(verifyConsistency(3, 5, treeRoot(hashes, 3), root, []), 'a growing tree needs a proof')
  t.equal(subtreeRoot(hashes, 2, 2), EMPTY_ROOT)
})

t.test('CompactRange: roots as the tree grows, made subtrees, and resuming from a stored frontier', async (t) => {
  const D = inputs(40)
  const range = new CompactRange()
  t.same(range.root(), EMPTY_ROOT)
  const made: PerfectNode[] = []
  for (const [i, d] of D.entries()) {
    made.push(...range.append(leafHash(d)))
    t.ok(range.root().equals(MTH(D.slice(0, i + 1))), `root after ${i + 1}`)
    t.equal(range.size, i + 1)
  }
  t.equal(made.length, 40 - 2, 'n leaves complete n - popcount(n) subtrees of level ≥ 1 (40 = 101000b)')
  t.same(made.slice(0, 3).map((node) => [node.level, node.index]), [[1, 0], [1, 1], [2, 0]])
  t.ok(made[2]!.hash.equals(MTH(D.slice(0, 4))))

  t.same(frontierOf(0), [])
  t.same(frontierOf(1), [{ level: 0, index: 0 }])
  t.same(frontierOf(13), [{ level: 3, index: 0 }, { level: 2, index: 2 }, { level: 0, index: 12 }])
  t.throws(() => frontierOf(-1), RangeError)
  const byKey = new Map(made.map((node) => [`${node.level}/${node.index}`, node.hash]))
  const frontier = frontierOf(13).map(({ level, index }) => ({ level, index, hash: level === 0 ? leafHash(D[index]!) : byKey.get(`${level}/${index}`)! }))
  const resumed = new CompactRange(13, frontier)
  t.ok(resumed.root().equals(MTH(D.slice(0, 13))))
  resumed.append(leafHash(D[13]!))
  t.ok(resumed.root().equals(MTH(D.slice(0, 14))), 'a resumed range grows like the original')
  t.throws(() => new CompactRange(13, frontier.slice(1)), /does not fit a tree of 13/)
  t.throws(() => new CompactRange(13, [...frontier.slice(0, 2), { level: 1, index: 6, hash: EMPTY_ROOT }]), /does not fit/)
  t.throws(() => new CompactRange(2), /does not fit/)
})
