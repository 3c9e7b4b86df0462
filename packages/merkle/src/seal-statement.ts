import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { isWellFormedHead } from './verify/tree-head.js'
import { keyIdOf } from './tree-head.js'

/**
 * The record that the log was sealed (docs/audit.md#sealing): the tree of `old_tree_size` leaves
 * with root `old_root_hash`, which held personal data in plain form, was replaced by the tree of
 * `new_tree_size` leaves with root `new_root_hash`, holding the same events sealed. Signed by the
 * key that signs the heads, so that the heads signed before it stay checkable after the old tree
 * is gone: through their consistency proofs to the old root, and this statement to the new one.
 */
export interface SealStatement {
  readonly old_tree_size: number
  readonly old_root_hash: string
  readonly new_tree_size: number
  readonly new_root_hash: string
  /** RFC 3339 UTC with milliseconds, as a head's. */
  readonly timestamp: string
  /** Why the log was sealed, as the operator said it (never a data subject's name). */
  readonly reason: string
  readonly requested_by: string
  readonly key_id: string
  /** Base64 of the Ed25519 signature over `sealStatementMessage`. */
  readonly signature: string
}

/** What a seal statement says, before it is signed. */
export type SealFacts = Omit<SealStatement, 'timestamp' | 'key_id' | 'signature'> & { readonly at: Date }

/**
 * The bytes a seal statement's signature covers: "waybill-seal-statement/v1\n" + old size + "\n"
 * + old root + "\n" + new size + "\n" + new root + "\n" + timestamp + "\n" + key id + "\n" +
 * reason + "\n" + requested by + "\n", the two free texts as JSON strings (so neither can hold a
 * line break), in UTF-8. Its own version tag: neither a head nor a key statement can be taken for it.
 */
export function sealStatementMessage(s: Omit<SealStatement, 'signature'>): Buffer {
  return Buffer.from(`waybill-seal-statement/v1\n${s.old_tree_size}\n${s.old_root_hash}\n${s.new_tree_size}\n${s.new_root_hash}\n` +
    `${s.timestamp}\n${s.key_id}\n${JSON.stringify(s.reason)}\n${JSON.stringify(s.requested_by)}\n`, 'utf8')
}

/** Signs what a seal did with the heads' key. */
export function signSealStatement(privateKey: KeyObject, facts: SealFacts): SealStatement {
  const unsigned = {
    old_tree_size: facts.old_tree_size, old_root_hash: facts.old_root_hash, new_tree_size: facts.new_tree_size, new_root_hash: facts.new_root_hash,
    timestamp: facts.at.toISOString(), reason: facts.reason, requested_by: facts.requested_by, key_id: keyIdOf(privateKey),
  }
  if (!wellFormed(unsigned)) throw new RangeError(`not a seal of the log: ${JSON.stringify(unsigned)}`)
  return { ...unsigned, signature: sign(null, sealStatementMessage(unsigned), privateKey).toString('base64') }
}

/**
 * Whether `statement` is well formed, names `publicKey` and is signed by it. Never throws: anything
 * that is not a good statement (read from a file, from anywhere) is false.
 */
export function verifySealStatement(statement: SealStatement, publicKey: KeyObject): boolean {
  if (!wellFormed(statement) || typeof statement.signature !== 'string') return false
  const key = publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey
  if (statement.key_id !== keyIdOf(key)) return false
  const signature = Buffer.from(statement.signature, 'base64')
  return signature.length === 64 && verify(null, sealStatementMessage(statement), key, signature)
}

function wellFormed(s: Omit<SealStatement, 'signature'>): boolean {
  return isWellFormedHead({ tree_size: s.old_tree_size, root_hash: s.old_root_hash, timestamp: s.timestamp }) &&
    isWellFormedHead({ tree_size: s.new_tree_size, root_hash: s.new_root_hash, timestamp: s.timestamp }) &&
    typeof s.reason === 'string' && typeof s.requested_by === 'string' && typeof s.key_id === 'string'
}
