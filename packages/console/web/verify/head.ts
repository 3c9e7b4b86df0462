import { checkHeadKey, checkKeySet, subtleSha256, type HeadCheck } from '@waybill/merkle/verify'
import type { LogKey, SignedHead } from '../api.js'

/**
 * Checks a signed head against the key it names, from the log's key set, with WebCrypto's
 * Ed25519 (`@waybill/merkle/verify`: the head's message, the key ids and the key statements as
 * the server makes them), so the browser, not the server, decides whether the head is genuine.
 * `pinnedKeyId`, when the auditor gave one, is the only key believed from the server's set
 * without a signed word: a later key counts when the pinned key vouched for it by a rotation
 * (docs/audit.md#key-lifecycle); a server that swapped keys would otherwise swap verdicts too
 * (docs/audit.md#trust-model).
 */
export async function verifyHead(head: SignedHead, keys: readonly LogKey[], pinnedKeyId?: string): Promise<HeadCheck> {
  for (const key of keys) {
    // The answer's type says Ed25519; the server's word is what is being checked.
    const algorithm: string = key.algorithm
    if (algorithm !== 'Ed25519') return { ok: false, reason: `the log's key ${key.key_id} is ${algorithm}, not Ed25519` }
  }
  if (pinnedKeyId !== undefined && !keys.some((key) => key.key_id === pinnedKeyId)) {
    return { ok: false, reason: `the log's keys (${keys.map((key) => key.key_id).join(', ') || 'none'}) do not include the pinned ${pinnedKeyId}` }
  }
  const checked = await checkKeySet(keys, pinnedKeyId === undefined ? null : [pinnedKeyId], subtleSha256)
  const problem = checked.problems[0]
  if (problem !== undefined) return { ok: false, reason: `the log's key set does not hold together: ${problem}` }
  return checkHeadKey(head, checked, subtleSha256)
}
