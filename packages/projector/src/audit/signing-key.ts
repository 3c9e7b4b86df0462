import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyIdOf, rawPublicKey } from '@waybill/merkle'

/** The private key's file in the key directory (PKCS#8 PEM). */
export const SIGNING_KEY_FILE = 'tree-head-ed25519.pem'

export interface SigningKey {
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  readonly keyId: string
  readonly path: string
  /** Whether this call made the key (first start). */
  readonly created: boolean
}

/** The public key as GET /v1/audit/public-key answers it. */
export interface PublicKeyDocument {
  readonly algorithm: 'Ed25519'
  readonly public_key: string
  readonly public_key_pem: string
  readonly key_id: string
}

/**
 * The tree-head signing key in `dir` (docs/audit.md#the-signing-key): read it, or on first start
 * make it. The directory is 0700 and the file 0600, and both are kept outside the data directory,
 * so that write access to the store alone cannot sign a head. Two processes starting at once make
 * one key: each writes its own temporary file and links it into place, and the loser reads the
 * winner's. `create: false` (the audit commands) refuses a missing key instead of making one.
 */
export function loadOrCreateSigningKey(dir: string, options: { readonly create?: boolean } = {}): SigningKey {
  if (options.create === false && statSync(join(dir, SIGNING_KEY_FILE), { throwIfNoEntry: false }) === undefined) {
    throw new Error(`no tree-head signing key in ${dir}: check WAYBILL_AUDIT_KEY_DIR (nothing was created there)`)
  }
  const path = join(dir, SIGNING_KEY_FILE)
  let created = false
  // An existing key is only read: it may sit on a read-only mount (a Kubernetes Secret).
  if (statSync(path, { throwIfNoEntry: false }) === undefined) {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    const { privateKey } = generateKeyPairSync('ed25519')
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'w' })
    try {
      linkSync(temporary, path)
      created = true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      rmSync(temporary, { force: true })
    }
  }
  // Made 0600; a group bit is tolerated for a Kubernetes Secret, which a non-root pod reads
  // through its fsGroup (0440). Anyone else able to read it is refused.
  const mode = statSync(path).mode & 0o777
  if ((mode & 0o007) !== 0) throw new Error(`${path} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
  const privateKey = createPrivateKey(readFileSync(path))
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${path} is not an Ed25519 private key`)
  const publicKey = createPublicKey(privateKey)
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), path, created }
}

export function publicKeyDocument(publicKey: KeyObject): PublicKeyDocument {
  return {
    algorithm: 'Ed25519',
    public_key: rawPublicKey(publicKey).toString('base64'),
    public_key_pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    key_id: keyIdOf(publicKey),
  }
}
