import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { sha256 } from './hash.js'
import { runHashingSync } from './verify/hashing.js'
import {
  headToVerify, isWellFormedHead, keyIdSteps, treeHeadMessage as messageBytes, type SignedTreeHead,
} from './verify/tree-head.js'

export type { SignedTreeHead } from './verify/tree-head.js'

/**
 * The bytes a head's signature covers: "waybill-tree-head/v1\n" + size + "\n" + root + "\n" +
 * timestamp + "\n", in UTF-8 (the browser entry's `treeHeadMessage`, as a Buffer).
 */
export function treeHeadMessage(head: Pick<SignedTreeHead, 'tree_size' | 'root_hash' | 'timestamp'>): Buffer {
  const bytes = messageBytes(head)
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** The raw 32-byte Ed25519 public key of `key` (a private or public KeyObject). */
export function rawPublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key
  const jwk = publicKey.export({ format: 'jwk' })
  if (jwk.crv !== 'Ed25519' || jwk.x === undefined) throw new TypeError('not an Ed25519 key')
  return Buffer.from(jwk.x, 'base64url')
}

/** A key's id: the first 16 hex characters of sha256 over its raw 32-byte public key. */
export function keyIdOf(key: KeyObject): string {
  return runHashingSync(keyIdSteps(rawPublicKey(key)), sha256)
}

/** Signs the head of a tree of `treeSize` leaves with root `rootHash` (hex) at `at`. */
export function signTreeHead(privateKey: KeyObject, treeSize: number, rootHash: string, at: Date): SignedTreeHead {
  const unsigned = { tree_size: treeSize, root_hash: rootHash, timestamp: at.toISOString() }
  if (!isWellFormedHead(unsigned)) throw new RangeError(`not a tree head: ${JSON.stringify(unsigned)}`)
  return { ...unsigned, signature: sign(null, treeHeadMessage(unsigned), privateKey).toString('base64'), key_id: keyIdOf(privateKey) }
}

/**
 * Whether `head` is well formed and signed by `publicKey`, and names that key. Never throws:
 * anything that is not a good head is false.
 */
export function verifyTreeHead(head: SignedTreeHead, publicKey: KeyObject): boolean {
  const toVerify = headToVerify(head, keyIdOf(publicKey))
  return toVerify.ok && verify(null, toVerify.message, publicKey, toVerify.signature)
}

/**
 * A head read from outside (a file an auditor kept, a JSON line): the object if it has the
 * head's members with the right types, else null. The signature is not checked here.
 */
export function parseTreeHead(value: unknown): SignedTreeHead | null {
  if (typeof value !== 'object' || value === null) return null
  const head = value as Record<string, unknown>
  const { tree_size: size, root_hash: root, timestamp, signature, key_id: keyId } = head
  if (typeof size !== 'number' || typeof root !== 'string' || typeof timestamp !== 'string' ||
    typeof signature !== 'string' || typeof keyId !== 'string') return null
  const parsed = { tree_size: size, root_hash: root, timestamp, signature, key_id: keyId }
  return isWellFormedHead(parsed) ? parsed : null
}
