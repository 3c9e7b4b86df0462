import type { Test } from 'tap'
import { consistencyProof, EMPTY_ROOT, fromHex, hashesOf, inclusionProof, leafHash, treeRoot } from '../src/index.js'
import type { Entry } from './entries.js'
import { CT_LEAVES, CT_ROOTS, flipped, inputs, sameShape, subproofShape } from './vectors.js'

/**
 * The verifier tests, run against each entry (test/entries.ts): one suite for the Node.js entry
 * and the browser entry, so that both are held to the same vectors. The proofs come from the
 * Node.js entry's prover, which merkle.test.ts checks against the RFC's definitions.
 */

/** The CT vectors' proofs and every proof of every tree size from 1 to 64 verify. */
export function verifiesEveryProof(t: Test, entry: Entry): void {
  t.test(`the CT vectors and every proof of every tree size from 1 to 64 verify (${entry.name})`, async (t) => {
    const ct = hashesOf(CT_LEAVES.map(leafHash))
    for (const [i, root] of CT_ROOTS.entries()) {
      for (let m = 0; m <= i; m += 1) {
        if (!await entry.inclusion(leafHash(CT_LEAVES[m]!), m, i + 1, inclusionProof(ct, m, i + 1), fromHex(root)!)) t.fail(`CT leaf ${m} of ${i + 1}`)
      }
      t.ok(await entry.consistency(1, i + 1, fromHex(CT_ROOTS[0]!)!, fromHex(root)!, consistencyProof(ct, 1, i + 1)), `CT 1 -> ${i + 1}`)
    }
    let checked = 0
    for (let n = 1; n <= 64; n += 1) {
      const leaves = inputs(n).map(leafHash)
      const hashes = hashesOf(leaves)
      const root = treeRoot(hashes, n)
      for (let m = 0; m < n; m += 1) {
        if (!await entry.inclusion(leaves[m]!, m, n, inclusionProof(hashes, m, n), root)) t.fail(`inclusion of ${m} in ${n} does not verify`)
        checked += 1
      }
      for (let m = 0; m <= n; m += 1) {
        if (!await entry.consistency(m, n, treeRoot(hashes, m), root, consistencyProof(hashes, m, n))) t.fail(`consistency ${m} -> ${n} does not verify`)
        checked += 1
      }
    }
    t.equal(checked, 2080 + 2144, 'every proof of every size was checked')
  })
}

/** Proofs with any byte, index, size or length changed fail, tens of thousands of them. */
export function refusesChangedProofs(t: Test, entry: Entry): void {
  t.test(`an inclusion proof fails when any byte of the leaf, a path element or the root changes, or the index or size (${entry.name})`, async (t) => {
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
          if (!await entry.inclusion(...args)) refused += 1
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

  t.test(`a consistency proof fails when any byte of either root or a proof element changes, or either size (${entry.name})`, async (t) => {
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
          const verified = await entry.consistency(...args)
          if (verified && args[4] === proof && args[0] === m && subproofShape(m, n, true) === subproofShape(m, args[1], true)) accepted += 1
          else if (verified) t.fail(`a changed consistency proof verified (m=${m}, n=${n}, ${JSON.stringify(args.slice(0, 2))})`)
          else refused += 1
        }
      }
    }
    t.ok(refused > 10_000, `${refused} changed proofs refused`)
    t.ok(accepted < refused / 100, `only ${accepted} second sizes that keep the proof's shape went through (the signed head binds the size)`)
  })
}

/** Leaves and sizes that do not exist, and the edges of consistency (size 0, equal sizes). */
export function refusesOutOfBounds(t: Test, entry: Entry): void {
  t.test(`bounds: verifiers refuse leaves and sizes that do not exist (${entry.name})`, async (t) => {
    const hashes = hashesOf(inputs(5).map(leafHash))
    const root = treeRoot(hashes, 5)
    t.notOk(await entry.inclusion(leafHash(Buffer.from('0')), 0, 5, [], root), 'an empty path proves only a one-leaf tree')
    t.ok(await entry.inclusion(leafHash(Buffer.from('0')), 0, 1, [], leafHash(Buffer.from('0'))))
    t.notOk(await entry.consistency(0, 5, root, root, []), 'the empty tree has the empty root')
    t.ok(await entry.consistency(0, 5, EMPTY_ROOT, root, []))
    t.notOk(await entry.consistency(0, 5, EMPTY_ROOT, root, [root]), 'nothing is needed to extend the empty tree')
    t.ok(await entry.consistency(5, 5, root, root, []))
    t.notOk(await entry.consistency(5, 5, root, EMPTY_ROOT, []))
    t.notOk(await entry.consistency(5, 5, root, root, [root]))
    t.notOk(await entry.consistency(3, 5, treeRoot(hashes, 3), root, []), 'a growing tree needs a proof')
  })
}
