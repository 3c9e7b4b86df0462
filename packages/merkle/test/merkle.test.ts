import t from 'tap'
import {
  CompactRange, consistencyProof, EMPTY_ROOT, fromHex, frontierOf, hashesOf, inclusionProof, leafHash, nodeHash,
  subtreeRoot, toHex, treeRoot, verifyConsistency, verifyInclusion, type Hash, type PerfectNode, type TreeHashes,
} from '../src/index.js'
import { NODE_ENTRY } from './entries.js'
import { H_LEAF, MTH, PATH, PROOF } from './rfc9162-reference.js'
import { refusesChangedProofs, refusesOutOfBounds } from './verifier-suite.js'
import { CT_LEAVES, CT_ROOTS, inputs } from './vectors.js'

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
  const D = CT_LEAVES
  const roots = CT_ROOTS
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

refusesChangedProofs(t, NODE_ENTRY)

t.test('bounds: proofs are asked for leaves and sizes that exist', async (t) => {
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
  t.equal(subtreeRoot(hashes, 2, 2), EMPTY_ROOT)
})

refusesOutOfBounds(t, NODE_ENTRY)

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
