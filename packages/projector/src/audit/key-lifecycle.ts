import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { EMPTY_ROOT, keyIdOf, signKeyStatement, signTreeHead, toHex, type KeyStatement, type SignedTreeHead } from '@waybill/merkle'
import type { HeadStore } from './head-store.js'
import { createSigningKey, discardNextKey, nextKey, readSigningKey, writeNextKey, type SigningKey } from './signing-key.js'

/**
 * The key directory does not hold the key the data directory's heads are signed with: signing
 * with another key would make every later head unverifiable, so the projector refuses to start.
 */
export class SigningKeyRefused extends Error {
  constructor(readonly expected: string, readonly held: string | null, heads: string, dir: string) {
    super(`the tree heads in ${heads} are signed by key ${expected}, but ${dir} ${held === null ? 'holds no signing key' : `holds key ${held}`}. ` +
      'Either restore the key directory (WAYBILL_AUDIT_KEY_DIR) from where you keep it, or, if that key is lost, run ' +
      `\`waybill audit rotate-key --old-key-lost\`: it makes a new key and records, signed by it, that key ${expected} was lost, ` +
      `so every head stays verifiable (an auditor who pinned ${expected} pins the new key after confirming it with you)`)
    this.name = 'SigningKeyRefused'
  }
}

/** The key the current one must be, read from `dir`, finishing a rotation a crash interrupted. */
function heldKey(dir: string, currentId: string | null): SigningKey | null {
  const held = readSigningKey(dir)
  if (currentId === null || held?.keyId === currentId) return held
  // `rotate-key` records the new key before renaming it into place: a crash between the two
  // leaves it beside the old one, and this finishes the rename.
  return nextKey(dir, currentId, { promote: true }) ?? held
}

/**
 * The private key a projector signs heads with (docs/audit.md#key-lifecycle): the key in `dir`,
 * which must be the heads file's current key. On a log with no key recorded yet it is recorded as
 * the first: made first when `create` and no head exists (a first start), refused when heads
 * already exist and name another key. Anything else is a `SigningKeyRefused`.
 */
export function openSigningKey(dir: string, heads: HeadStore, options: { readonly create: boolean; readonly now?: Date }): SigningKey {
  const current = heads.currentKey()
  const held = heldKey(dir, current?.key_id ?? null)
  if (current !== null) {
    if (held?.keyId !== current.key_id) throw new SigningKeyRefused(current.key_id, held?.keyId ?? null, heads.path, dir)
    return held
  }
  const latest = heads.latest()
  if (held === null && (latest !== null || !options.create)) {
    if (latest !== null) throw new SigningKeyRefused(latest.key_id, null, heads.path, dir)
    throw new Error(`no tree-head signing key in ${dir}: check WAYBILL_AUDIT_KEY_DIR (nothing was created there)`)
  }
  const key = held ?? createSigningKey(dir)
  if (latest !== null && latest.key_id !== key.keyId) throw new SigningKeyRefused(latest.key_id, key.keyId, heads.path, dir)
  const recorded = heads.recordFirstKey(key.publicKey, options.now ?? new Date())
  if (recorded.key_id !== key.keyId) throw new SigningKeyRefused(recorded.key_id, key.keyId, heads.path, dir)
  return key
}

/**
 * What the audit projection asks before each head (`AuditOptions.signingKey`): the key it holds
 * while that is the current one; after a `waybill audit rotate-key` (by another process), the new
 * key from `dir`; or why it has none.
 */
export function followSigningKey(dir: string, heads: HeadStore, key: SigningKey): () => KeyObject | string {
  let held = key
  return () => {
    const current = heads.currentKey()
    if (current === null || current.key_id === held.keyId) return held.privateKey
    try {
      const found = heldKey(dir, current.key_id)
      if (found?.keyId === current.key_id) {
        held = found
        return held.privateKey
      }
      return new SigningKeyRefused(current.key_id, found?.keyId ?? null, heads.path, dir).message
    } catch (error) {
      return `the key directory ${dir} cannot be read: ${(error as Error).message}`
    }
  }
}

export interface Rotation {
  readonly statement: KeyStatement
  /** The new key's first head, at the latest head's size; null before the first head. */
  readonly head: SignedTreeHead | null
  readonly key: SigningKey
}

/**
 * `waybill audit rotate-key` (docs/audit.md#key-lifecycle): a new key in `dir`, and in the heads
 * file, in one transaction, a statement that it takes over from the current key at the latest
 * head (signed by the new key and, unless `oldKeyLost`, endorsed by the old one), the old key
 * retired, and the latest head signed again by the new key. The new key is written beside the
 * old before the transaction and renamed over it after, so a crash loses neither.
 */
export function rotateSigningKey(dir: string, heads: HeadStore, options: { readonly oldKeyLost: boolean }): Rotation {
  const current = heads.currentKey()
  if (current === null) throw new Error(`no key is recorded in ${heads.path} yet: there is nothing to rotate (the first start makes the key)`)
  const held = heldKey(dir, current.key_id)
  if (options.oldKeyLost) {
    if (held?.keyId === current.key_id) throw new Error(`${dir} holds the current key ${current.key_id}: it is not lost; rotate without --old-key-lost`)
    if (held !== null) throw new Error(`${dir} holds key ${held.keyId}, which is not the current key ${current.key_id}: move it away first`)
  } else if (held?.keyId !== current.key_id) {
    throw new SigningKeyRefused(current.key_id, held?.keyId ?? null, heads.path, dir)
  }
  const { privateKey } = generateKeyPairSync('ed25519')
  writeNextKey(dir, privateKey)
  let record
  try {
    record = heads.changeKey(({ current: inLock, latest, now }) => {
      if (inLock.key_id !== current.key_id) throw new Error(`key ${current.key_id} was rotated meanwhile (the current key is now ${inLock.key_id})`)
      const statement = signKeyStatement({
        oldKeyId: inLock.key_id, treeSize: latest?.tree_size ?? 0, rootHash: latest?.root_hash ?? toHex(EMPTY_ROOT), at: now,
      }, privateKey, options.oldKeyLost ? null : (held as SigningKey).privateKey)
      return { statement, head: latest === null ? null : signTreeHead(privateKey, latest.tree_size, latest.root_hash, now) }
    })
  } catch (error) {
    discardNextKey(dir)
    throw error
  }
  const key = nextKey(dir, keyIdOf(privateKey), { promote: true })
  if (key === null) throw new Error(`the new key vanished from ${dir} before it was put in place`)
  return { ...record, key }
}
