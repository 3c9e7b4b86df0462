import { SANDBOX_ACCOUNT } from '@waybill/domain'
import { readSecretFile, testKeyPath, writeSecretFile } from './key-files.js'
import type { KeyRing } from './key-ring.js'
import { SCOPES } from './scopes.js'

export interface SandboxKey {
  /** The test key, only when this call created it (to be printed once). */
  readonly created: string | null
  readonly path: string
}

/**
 * On the first start of an empty data directory (no test key file and no key in the store),
 * issues a test key for the sandbox account with every scope and writes it to
 * `<dataDir>/test-api-key` with mode 0600.
 */
export async function ensureSandboxKey(keys: KeyRing, dataDir: string): Promise<SandboxKey> {
  const path = testKeyPath(dataDir)
  if ((await readSecretFile(path)) !== null) return { created: null, path }
  if ((await keys.list()).length > 0) return { created: null, path }
  const issued = await keys.issue({ account: SANDBOX_ACCOUNT, scopes: SCOPES, test: true })
  await writeSecretFile(path, issued.key)
  return { created: issued.key, path }
}
