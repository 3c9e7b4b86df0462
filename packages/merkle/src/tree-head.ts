import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { fromHex } from './hash.js'
import { isTreeIndex } from './tree-math.js'

/** A signed tree head (docs/audit.md#signed-tree-heads), as it is served, exported and kept. */
export interface SignedTreeHead {
  readonly tree_size: number
  /** Lowercase hex of the root. */
  readonly root_hash: string
  /** RFC 3339 UTC with milliseconds, as `Date.prototype.toISOString` writes it. */
  readonly timestamp: string
  /** Base64 (standard alphabet, padded) of the 64-byte Ed25519 signature. */
  readonly signature: string
  /** `keyIdOf` the public key that verifies it. */
  readonly key_id: string
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * The bytes a head's signature covers: "waybill-tree-head/v1\n" + size + "\n" + root + "\n" +
 * timestamp + "\n", in UTF-8. Plain text with a version tag, so that a browser or a shell can
 * rebuild it without a canonical JSON encoder, and no other message Waybill signs can be taken
 * for one.
 */
export function treeHeadMessage(head: Pick<SignedTreeHead, 'tree_size' | 'root_hash' | 'timestamp'>): Buffer {
  return Buffer.from(`waybill-tree-head/v1\n${head.tree_size}\n${head.root_hash}\n${head.timestamp}\n`, 'utf8')
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
  return createHash('sha256').update(rawPublicKey(key)).digest('hex').slice(0, 16)
}

/** Signs the head of a tree of `treeSize` leaves with root `rootHash` (hex) at `at`. */
export function signTreeHead(privateKey: KeyObject, treeSize: number, rootHash: string, at: Date): SignedTreeHead {
  const unsigned = { tree_size: treeSize, root_hash: rootHash, timestamp: at.toISOString() }
  if (!isWellFormed(unsigned)) throw new RangeError(`not a tree head: ${JSON.stringify(unsigned)}`)
  return { ...unsigned, signature: sign(null, treeHeadMessage(unsigned), privateKey).toString('base64'), key_id: keyIdOf(privateKey) }
}

/**
 * Whether `head` is well formed and signed by `publicKey`, and names that key. Never throws:
 * anything that is not a good head is false.
 */
export function verifyTreeHead(head: SignedTreeHead, publicKey: KeyObject): boolean {
  if (!isWellFormed(head) || head.key_id !== keyIdOf(publicKey) || typeof head.signature !== 'string') return false
  const signature = Buffer.from(head.signature, 'base64')
  if (signature.length !== 64 || signature.toString('base64') !== head.signature) return false
  return verify(null, treeHeadMessage(head), publicKey, signature)
}

function isWellFormed(head: Pick<SignedTreeHead, 'tree_size' | 'root_hash' | 'timestamp'>): boolean {
  return typeof head.tree_size === 'number' && isTreeIndex(head.tree_size) &&
    typeof head.root_hash === 'string' && fromHex(head.root_hash) !== null &&
    typeof head.timestamp === 'string' && TIMESTAMP.test(head.timestamp)
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
  return isWellFormed(parsed) ? parsed : null
}
