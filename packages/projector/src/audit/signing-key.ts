import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyIdOf, rawPublicKey } from '@waybill/merkle'

/** The private key's file in the key directory (PKCS#8 PEM). */
export const SIGNING_KEY_FILE = 'tree-head-ed25519.pem'
/** A rotation's new key, written before the rotation is recorded and renamed over the old one after. */
const NEXT_KEY_FILE = 'tree-head-ed25519.next.pem'

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
 * The tree-head signing key in `dir` (docs/audit.md#the-signing-key), or null when there is
 * none. A key file that others can read is refused. An existing key is only read: it may sit on
 * a read-only mount (a Kubernetes Secret).
 */
export function readSigningKey(dir: string): SigningKey | null {
  const path = join(dir, SIGNING_KEY_FILE)
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat === undefined ? null : keyFrom(path, false)
}

/**
 * Makes the signing key in `dir` (0700) as `tree-head-ed25519.pem` (0600), on a first start.
 * Two processes starting at once make one key: each writes its own temporary file and links it
 * into place, and the loser reads the winner's.
 */
export function createSigningKey(dir: string): SigningKey {
  const path = join(dir, SIGNING_KEY_FILE)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, pemOf(generateKeyPairSync('ed25519').privateKey), { mode: 0o600, flag: 'w' })
  let created = false
  try {
    linkSync(temporary, path)
    created = true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(temporary, { force: true })
  }
  return keyFrom(path, created)
}

/**
 * A rotation's new key, written (0600, fsynced) beside the current one before the rotation is
 * recorded, so that a crash between the two never leaves the heads naming a key that exists nowhere.
 */
export function writeNextKey(dir: string, privateKey: KeyObject): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, NEXT_KEY_FILE)
  writeFileSync(path, pemOf(privateKey), { mode: 0o600, flag: 'w' })
  syncPath(path)
  syncPath(dir)
}

/**
 * The next key (`writeNextKey`) when it is the one named, or null. `promote` renames it over the
 * current key file (the old private key is gone then) and makes the rename durable.
 */
export function nextKey(dir: string, keyId: string, options: { readonly promote: boolean }): SigningKey | null {
  const path = join(dir, NEXT_KEY_FILE)
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return null
  const next = keyFrom(path, false)
  if (next.keyId !== keyId) return null
  if (!options.promote) return next
  renameSync(path, join(dir, SIGNING_KEY_FILE))
  syncPath(dir)
  return keyFrom(join(dir, SIGNING_KEY_FILE), false)
}

/** Removes a next key a rotation wrote but did not record (it failed). */
export function discardNextKey(dir: string): void {
  rmSync(join(dir, NEXT_KEY_FILE), { force: true })
}

export function publicKeyDocument(publicKey: KeyObject): PublicKeyDocument {
  return {
    algorithm: 'Ed25519',
    public_key: rawPublicKey(publicKey).toString('base64'),
    public_key_pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    key_id: keyIdOf(publicKey),
  }
}

function keyFrom(path: string, created: boolean): SigningKey {
  // Made 0600; a group bit is tolerated for a Kubernetes Secret, which a non-root pod reads
  // through its fsGroup (0440). Anyone else able to read it is refused.
  const mode = statSync(path).mode & 0o777
  if ((mode & 0o007) !== 0) throw new Error(`${path} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
  const privateKey = createPrivateKey(readFileSync(path))
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${path} is not an Ed25519 private key`)
  const publicKey = createPublicKey(privateKey)
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), path, created }
}

function pemOf(privateKey: KeyObject): string {
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
