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
 * rewritten with it. A key still working in its rotation's grace stops at once, whatever grace
 * was given: its replacement exists already. Unknown or already revoked keys change nothing.
 */
export async function revokeExposedKey(keys: KeyRing, dataDir: string, presented: string): Promise<ExposureResult | null> {
  const principal = await keys.authenticate(presented)
  if (principal === null) return null
  let replacement
  try {
    replacement = await keys.rotate(principal.keyId, 'insecure_connection')
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error
    // Not active: either it authenticated during its rotation's grace, or another request or
    // instance rotated it first (then it is revoked either way, and there is no grace to end).
    return endGrace(keys, principal.keyId)
  }
  const replacementKeyId = replacement.record.keyId
  await writeSecretFile(replacementKeyPath(dataDir, replacementKeyId), replacement.key)
  const testKey = await readSecretFile(testKeyPath(dataDir))
  if (testKey !== null && hashApiKey(testKey) === hashApiKey(presented)) {
    await writeSecretFile(testKeyPath(dataDir), replacement.key)
  }
  return { revokedKeyId: principal.keyId, replacementKeyId }
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
