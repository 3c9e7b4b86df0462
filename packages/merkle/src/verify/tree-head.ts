import { base64ToBytes, bytesToHex, hashFromHex, utf8 } from './bytes.js'
import type { Hashing } from './hashing.js'
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
  /** The key id (`keyIdSteps`) of the public key that verifies it. */
  readonly key_id: string
}

type UnsignedHead = Pick<SignedTreeHead, 'tree_size' | 'root_hash' | 'timestamp'>

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * The bytes a head's signature covers: "waybill-tree-head/v1\n" + size + "\n" + root + "\n" +
 * timestamp + "\n", in UTF-8. Plain text with a version tag, so that a browser or a shell can
 * rebuild it without a canonical JSON encoder, and no other message Waybill signs can be taken
 * for one.
 */
export function treeHeadMessage(head: UnsignedHead): Uint8Array<ArrayBuffer> {
  return utf8(`waybill-tree-head/v1\n${head.tree_size}\n${head.root_hash}\n${head.timestamp}\n`)
}

/** A key's id: the first 16 hex characters of SHA-256 over its raw 32-byte Ed25519 public key. */
export function* keyIdSteps(rawPublicKey: Uint8Array): Hashing<string> {
  return bytesToHex(yield Uint8Array.from(rawPublicKey)).slice(0, 16)
}

/** Whether the signed fields of `head` are well formed (it may come from anywhere: a file, an answer). */
export function isWellFormedHead(head: UnsignedHead): boolean {
  return typeof head.tree_size === 'number' && isTreeIndex(head.tree_size) &&
    typeof head.root_hash === 'string' && hashFromHex(head.root_hash) !== null &&
    typeof head.timestamp === 'string' && TIMESTAMP.test(head.timestamp)
}

/** A head ready for its signature check (the bytes signed and the signature), or why it cannot be one. */
export type HeadToVerify =
  | { readonly ok: true; readonly message: Uint8Array<ArrayBuffer>; readonly signature: Uint8Array<ArrayBuffer> }
  | { readonly ok: false; readonly reason: string }

/**
 * Everything about a head but the Ed25519 check itself, which the caller makes with the crypto it
 * has: its fields well formed, its `key_id` that of the key it is checked with (`keyId`), its
 * signature 64 bytes of base64. Never throws.
 */
export function headToVerify(head: SignedTreeHead, keyId: string): HeadToVerify {
  if (!isWellFormedHead(head)) return { ok: false, reason: 'the head is malformed' }
  if (head.key_id !== keyId) return { ok: false, reason: `the head was signed by key ${head.key_id}, not by the log's public key` }
  const signature = typeof head.signature === 'string' ? base64ToBytes(head.signature) : null
  if (signature?.length !== 64) return { ok: false, reason: 'the head signature is not 64 bytes of base64' }
  return { ok: true, message: treeHeadMessage(head), signature }
}
