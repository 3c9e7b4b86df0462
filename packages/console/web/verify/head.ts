import { base64ToBytes, keyIdOf, subtleSha256, verifyTreeHead, type HeadCheck } from '@waybill/merkle/verify'
import type { PublicKey, SignedHead } from '../api.js'

/**
 * Checks a signed head against the log's public key with WebCrypto's Ed25519
 * (`@waybill/merkle/verify`: the head's message and key id as the server makes them), so the
 * browser, not the server, decides whether the head is genuine. `pinnedKeyId`, when the auditor
 * gave one, must be the key's id: a server that swapped keys would otherwise swap verdicts too
 * (docs/audit.md#trust-model).
 */
export async function verifyHead(head: SignedHead, key: Pick<PublicKey, 'algorithm' | 'public_key'>, pinnedKeyId?: string): Promise<HeadCheck> {
  // The answer's type says Ed25519; the server's word is what is being checked.
  const algorithm: string = key.algorithm
  if (algorithm !== 'Ed25519') return { ok: false, reason: `the log's key is ${algorithm}, not Ed25519` }
  const raw = base64ToBytes(key.public_key)
  if (raw?.length !== 32) return { ok: false, reason: 'the public key is not 32 bytes of base64' }
  const keyId = await keyIdOf(raw, subtleSha256)
  if (pinnedKeyId !== undefined && keyId !== pinnedKeyId) return { ok: false, reason: `the log's public key has id ${keyId}, not the pinned ${pinnedKeyId}` }
  return verifyTreeHead(head, raw, subtleSha256)
}
