import { SANDBOX_ACCOUNT } from '@waybill/domain'
import { readSecretFile, testKeyPath, writeSecretFile } from './key-files.js'
import type { KeyRing } from './key-ring.js'
import { SCOPES } from './scopes.js'

export interface SandboxKey {
  /** The test key, only when this call created it (to be printed once). */
  readonly created: string | null
  readonly path: string
  /** False when the server runs without the sandbox (production): no test key is made or accepted. */
  readonly enabled: boolean
}

/**
 * On the first start of an empty data directory (no test key file and no key in the store),
 * issues a test key for the sandbox account with every scope and writes it to
 * `<dataDir>/test-api-key` with mode 0600. With `enabled: false` (a production server) none is made.
 */
export async function ensureSandboxKey(keys: KeyRing, dataDir: string, options: { readonly enabled?: boolean } = {}): Promise<SandboxKey> {
  const path = testKeyPath(dataDir)
  const enabled = options.enabled ?? true
  if (!enabled || (await readSecretFile(path)) !== null || (await keys.list()).length > 0) return { created: null, path, enabled }
  const issued = await keys.issue({ account: SANDBOX_ACCOUNT, scopes: SCOPES, test: true })
  await writeSecretFile(path, issued.key)
  return { created: issued.key, path, enabled }
}
