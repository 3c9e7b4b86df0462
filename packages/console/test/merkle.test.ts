import t from 'tap'
import { bytesToHex } from '../web/verify/bytes.js'
import { leafHash, nodeHash, verifyInclusion } from '../web/verify/merkle.js'
import { refLeafHash, refPath, refRoot } from './rfc9162.js'

// The eight leaves of the Certificate Transparency test vectors, and the roots of their prefixes.
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']
  .map((hex) => Buffer.from(hex, 'hex'))
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
]

t.test('leaf and node hashes are RFC 9162 §2.1.1 (0x00 and 0x01 prefixes)', async (t) => {
  t.equal(bytesToHex(await leafHash(new Uint8Array())), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d')
  const a = refLeafHash(Buffer.from('a'))
  const b = refLeafHash(Buffer.from('b'))
  t.equal(bytesToHex(await nodeHash(a, b)), refRoot([Buffer.from('a'), Buffer.from('b')]).toString('hex'))
  t.equal(refRoot([]).toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'the empty tree is SHA-256 of nothing')
})

t.test('the reference tree gives the known roots of the CT vectors', async (t) => {
  for (let n = 1; n <= CT_LEAVES.length; n++) t.equal(refRoot(CT_LEAVES.slice(0, n)).toString('hex'), CT_ROOTS[n - 1], `size ${n}`)
})

t.test('every inclusion proof of every tree size from 1 to 64 verifies, and fails when anything changes', async (t) => {
  const leaves = Array.from({ length: 64 }, (_, i) => Buffer.from(`leaf ${i}`))
  let checked = 0
  let refused = 0
  for (let n = 1; n <= 64; n++) {
    const tree = leaves.slice(0, n)
    const root = refRoot(tree)
    for (let m = 0; m < n; m++) {
      const leaf = refLeafHash(tree[m]!)
      const path = refPath(m, tree)
      if (!await verifyInclusion(m, n, leaf, path, root)) t.fail(`size ${n} index ${m} does not verify`)
      checked++
      // A changed byte anywhere (the leaf, each path node, the root), a wrong index, a size of another shape,
      // a path one node short or long: each must fail.
      const flip = (bytes: Buffer, at: number): Buffer => { const copy = Buffer.from(bytes); copy[at % copy.length]! ^= 0x01; return copy }
      const bad: [string, Promise<boolean>][] = [
        ['leaf', verifyInclusion(m, n, flip(leaf, m), path, root)],
        ['root', verifyInclusion(m, n, leaf, path, flip(root, n))],
        ['index', verifyInclusion((m + 1) % n === m ? m + 1 : (m + 1) % n, n, leaf, path, root)],
        // (A size with the same proof shape, e.g. 3 and 4 for index 0, takes the same path: the
        // signed head binds the size; a size whose shape differs must fail.)
        ['size × 2', verifyInclusion(m, n * 2, leaf, path, root)],
        ['longer path', verifyInclusion(m, n, leaf, [...path, root], root)],
        ...path.map((_, i): [string, Promise<boolean>] => [`path[${i}]`, verifyInclusion(m, n, leaf, path.map((node, j) => j === i ? flip(node, m + i) : node), root)]),
        ...(path.length > 0 ? [['shorter path', verifyInclusion(m, n, leaf, path.slice(0, -1), root)] as [string, Promise<boolean>]] : []),
      ]
      for (const [what, verdict] of bad) {
        if (await verdict) t.fail(`size ${n} index ${m}: a changed ${what} still verifies`)
        refused++
      }
    }
  }
  t.equal(checked, 64 * 65 / 2, 'every (size, index) pair verified')
  t.ok(refused > checked * 5, `${refused} altered proofs refused`)
})

t.test('an index outside the tree never verifies', async (t) => {
  const root = refRoot([Buffer.from('x')])
  const leaf = refLeafHash(Buffer.from('x'))
  t.ok(await verifyInclusion(0, 1, leaf, [], root))
  t.notOk(await verifyInclusion(1, 1, leaf, [], root))
  t.notOk(await verifyInclusion(-1, 1, leaf, [], root))
  t.notOk(await verifyInclusion(0, 0, leaf, [], root))
  t.notOk(await verifyInclusion(0.5, 1, leaf, [], root))
})
