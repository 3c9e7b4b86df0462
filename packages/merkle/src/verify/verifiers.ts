import { consistencySteps } from './consistency.js'
import { leafInput, nodeInput, runHashing, type Sha256 } from './hashing.js'
import { inclusionSteps } from './inclusion.js'
import { headToVerify, keyIdSteps, type SignedTreeHead } from './tree-head.js'

/**
 * The shared steps run with a SHA-256 that may answer a promise (WebCrypto's, in a browser), each
 * taking it as its last argument. The Node.js entry (`@waybill/merkle`) runs the same steps with
 * node:crypto and answers at once.
 */

/** RFC 9162 §2.1.1: SHA-256(0x00 ‖ leaf bytes). */
export async function leafHash(leaf: Uint8Array, sha256: Sha256): Promise<Uint8Array> {
  return sha256(leafInput(leaf))
}

/** RFC 9162 §2.1.1: SHA-256(0x01 ‖ left ‖ right). */
export async function nodeHash(left: Uint8Array, right: Uint8Array, sha256: Sha256): Promise<Uint8Array> {
  return sha256(nodeInput(left, right))
}

/** RFC 9162 §2.1.3.2: whether `proof` shows that `leaf` (a leaf hash) is leaf `index` of the tree of `size` leaves with root `root`. */
export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array,
  sha256: Sha256): Promise<boolean> {
  return runHashing(inclusionSteps(leaf, index, size, proof, root), sha256)
}

/** RFC 9162 §2.1.4.2: whether `proof` shows that the tree (`first`, `firstRoot`) is a prefix of the tree (`second`, `secondRoot`). */
export function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array,
  proof: readonly Uint8Array[], sha256: Sha256): Promise<boolean> {
  return runHashing(consistencySteps(first, second, firstRoot, secondRoot, proof), sha256)
}

/** The id of a raw 32-byte Ed25519 public key: the first 16 hex of its SHA-256. */
export function keyIdOf(rawPublicKey: Uint8Array, sha256: Sha256): Promise<string> {
  return runHashing(keyIdSteps(rawPublicKey), sha256)
}

export type HeadCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/**
 * Whether `head` is well formed, names the key `rawPublicKey` (raw 32 bytes of Ed25519) and is
 * signed by it, checked with WebCrypto's Ed25519 so that the browser, not the server, decides;
 * if not, why not.
 */
export async function verifyTreeHead(head: SignedTreeHead, rawPublicKey: Uint8Array<ArrayBuffer>, sha256: Sha256): Promise<HeadCheck> {
  if (rawPublicKey.length !== 32) return { ok: false, reason: 'the public key is not 32 bytes' }
  const toVerify = headToVerify(head, await keyIdOf(rawPublicKey, sha256))
  if (!toVerify.ok) return toVerify
  const key = await crypto.subtle.importKey('raw', rawPublicKey, { name: 'Ed25519' }, false, ['verify'])
  return await crypto.subtle.verify({ name: 'Ed25519' }, key, toVerify.signature, toVerify.message)
    ? { ok: true }
    : { ok: false, reason: 'the head signature does not verify against the public key' }
}
