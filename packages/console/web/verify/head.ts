import { base64ToBytes, bytesToHex, hexToBytes, utf8 } from './bytes.js'
import { sha256 } from './merkle.js'
import type { PublicKey, SignedHead } from '../wire.js'

/** The bytes a tree head's Ed25519 signature covers (docs/audit.md#signed-tree-heads). */
function headMessage(head: Pick<SignedHead, 'tree_size' | 'root_hash' | 'timestamp'>): Uint8Array<ArrayBuffer> {
  return utf8(`waybill-tree-head/v1\n${head.tree_size}\n${head.root_hash}\n${head.timestamp}\n`)
}

/** The key id the contract gives a public key: the first 16 hex digits of the SHA-256 of its 32 raw bytes. */
async function keyIdOf(raw: Uint8Array<ArrayBuffer>): Promise<string> {
  return bytesToHex(await sha256(raw)).slice(0, 16)
}

export type HeadCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/**
 * Checks a signed head against the log's public key with WebCrypto's Ed25519, so the browser,
 * not the server, decides whether the head is genuine. `pinnedKeyId`, when the auditor gave one,
 * must be the key's id: a server that swapped keys would otherwise swap verdicts too
 * (docs/audit.md#trust-model).
 */
export async function verifyHead(head: SignedHead, key: Pick<PublicKey, 'algorithm' | 'public_key'>, pinnedKeyId?: string): Promise<HeadCheck> {
  if (key.algorithm !== 'Ed25519') return { ok: false, reason: `the log's key is ${key.algorithm}, not Ed25519` }
  const raw = base64ToBytes(key.public_key)
  if (raw?.length !== 32) return { ok: false, reason: 'the public key is not 32 bytes of base64' }
  const keyId = await keyIdOf(raw)
  if (pinnedKeyId !== undefined && keyId !== pinnedKeyId) return { ok: false, reason: `the log's public key has id ${keyId}, not the pinned ${pinnedKeyId}` }
  if (keyId !== head.key_id) return { ok: false, reason: `the head was signed by key ${head.key_id}, not by the log's public key` }
  const signature = base64ToBytes(head.signature)
  if (signature?.length !== 64) return { ok: false, reason: 'the head signature is not 64 bytes of base64' }
  if (!Number.isSafeInteger(head.tree_size) || head.tree_size < 0 || hexToBytes(head.root_hash)?.length !== 32) {
    return { ok: false, reason: 'the head is malformed' }
  }
  const publicKey = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify'])
  const valid = await crypto.subtle.verify({ name: 'Ed25519' }, publicKey, signature, headMessage(head))
  return valid ? { ok: true } : { ok: false, reason: 'the head signature does not verify against the public key' }
}
