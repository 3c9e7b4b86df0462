import { hash } from 'node:crypto'
import { verifyConsistency, verifyInclusion } from '../src/index.js'
import * as web from '../src/verify/index.js'

/**
 * The verifiers of both entries, so that every vector runs against each: the Node.js entry
 * (synchronous, node:crypto) and the browser entry (`@waybill/merkle/verify`), with WebCrypto and
 * with a synchronous hash handed to it. The tests that try tens of thousands of changed proofs
 * take the second: the browser entry's steps are the same, and WebCrypto answers each hash on
 * Node's thread pool, which would make the suite minutes long.
 */
export interface Entry {
  readonly name: string
  readonly inclusion: (leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array) => boolean | Promise<boolean>
  readonly consistency: (first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]) => boolean | Promise<boolean>
}

const nodeSha256 = (bytes: Uint8Array): Uint8Array => hash('sha256', bytes, 'buffer')

function browserEntry(name: string, sha256: web.Sha256): Entry {
  return {
    name,
    inclusion: (leaf, index, size, proof, root) => web.verifyInclusion(leaf, index, size, proof, root, sha256),
    consistency: (first, second, firstRoot, secondRoot, proof) => web.verifyConsistency(first, second, firstRoot, secondRoot, proof, sha256),
  }
}

export const NODE_ENTRY: Entry = { name: '@waybill/merkle', inclusion: verifyInclusion, consistency: verifyConsistency }
export const WEB_ENTRY = browserEntry('@waybill/merkle/verify, WebCrypto', web.subtleSha256)
/** The browser entry's steps with node:crypto's hash, for the long tests (see above). */
export const WEB_ENTRY_NODE_HASH = browserEntry('@waybill/merkle/verify, node:crypto hash', nodeSha256)
