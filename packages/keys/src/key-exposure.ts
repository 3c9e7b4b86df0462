import { hashApiKey } from './api-key.js'
import { readSecretFile, replacementKeyPath, testKeyPath, writeSecretFile } from './key-files.js'
import { KeyRingError } from './key-errors.js'
import type { KeyRing } from './key-ring.js'

export interface ExposureResult {
  readonly revokedKeyId: string
  /**
   * The key that replaces it: issued now and written to `replaced-keys/`, or, for a key exposed
   * during its rotation's grace, the replacement that rotation issued (null if it stopped first).
   */
  readonly replacementKeyId: string | null
}

/**
 * A key was seen on plain HTTP: revoke it and issue a replacement for the same account and
 * scopes, before the caller's `insecure_connection` answer leaves. The replacement never goes
 * back over that connection; it is written to `<dataDir>/replaced-keys/<new id>` (0600) for the
 * operator, and when the exposed key was the sandbox test key, `<dataDir>/test-api-key` is
 * rewritten with it. The key is found by its hash whatever its state: a key still working in its
 * rotation's grace stops at once (its replacement exists already), and an expired key is revoked
 * for good with no replacement (it gave no access to hand on), so renewing it can never bring the
 * exposed secret back. Unknown or already revoked keys change nothing.
 */
export async function revokeExposedKey(keys: KeyRing, dataDir: string, presented: string): Promise<ExposureResult | null> {
  const record = await keys.findByKey(presented)
  if (record === null) return null
  if (record.state !== 'active') return endGrace(keys, record.keyId)
  if (!keys.isUsable(record)) return revokeExpired(keys, record.keyId)
  let replacement
  try {
    replacement = await keys.rotate(record.keyId, 'insecure_connection')
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error
    // Another request or instance rotated it first: it is revoked either way (within a grace, if
    // that rotation gave one, which ends now).
    return endGrace(keys, record.keyId)
  }
  const replacementKeyId = replacement.record.keyId
  await writeSecretFile(replacementKeyPath(dataDir, replacementKeyId), replacement.key)
  const testKey = await readSecretFile(testKeyPath(dataDir))
  if (testKey !== null && hashApiKey(testKey) === hashApiKey(presented)) {
    await writeSecretFile(testKeyPath(dataDir), replacement.key)
  }
  return { revokedKeyId: record.keyId, replacementKeyId }
}

async function revokeExpired(keys: KeyRing, keyId: string): Promise<ExposureResult | null> {
  try {
    await keys.revoke(keyId, 'insecure_connection')
    return { revokedKeyId: keyId, replacementKeyId: null }
  } catch (error) {
    // Revoked by another request or instance first.
    if (error instanceof KeyRingError) return null
    throw error
  }
}

async function endGrace(keys: KeyRing, keyId: string): Promise<ExposureResult | null> {
  try {
    const ended = await keys.endGrace(keyId, 'insecure_connection')
    return { revokedKeyId: keyId, replacementKeyId: ended.replacedBy }
  } catch (error) {
    if (error instanceof KeyRingError) return null
    throw error
  }
}
