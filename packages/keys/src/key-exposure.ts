import { hashApiKey } from './api-key.js'
import { readSecretFile, replacementKeyPath, testKeyPath, writeSecretFile } from './key-files.js'
import { KeyRingError } from './key-errors.js'
import type { KeyRing } from './key-ring.js'

export interface ExposureResult {
  readonly revokedKeyId: string
  readonly replacementKeyId: string
}

/**
 * A key was seen on plain HTTP: revoke it and issue a replacement for the same account and
 * scopes, before the caller's `insecure_connection` answer leaves. The replacement never goes
 * back over that connection; it is written to `<dataDir>/replaced-keys/<new id>` (0600) for the
 * operator, and when the exposed key was the sandbox test key, `<dataDir>/test-api-key` is
 * rewritten with it. Unknown or already revoked keys change nothing.
 */
export async function revokeExposedKey(keys: KeyRing, dataDir: string, presented: string): Promise<ExposureResult | null> {
  const principal = await keys.authenticate(presented)
  if (principal === null) return null
  let replacement
  try {
    replacement = await keys.rotate(principal.keyId, 'insecure_connection')
  } catch (error) {
    // Another request or instance rotated it first; it is revoked either way.
    if (error instanceof KeyRingError) return null
    throw error
  }
  const replacementKeyId = replacement.record.keyId
  await writeSecretFile(replacementKeyPath(dataDir, replacementKeyId), replacement.key)
  const testKey = await readSecretFile(testKeyPath(dataDir))
  if (testKey !== null && hashApiKey(testKey) === hashApiKey(presented)) {
    await writeSecretFile(testKeyPath(dataDir), replacement.key)
  }
  return { revokedKeyId: principal.keyId, replacementKeyId }
}
