import { sign, type KeyObject } from 'node:crypto'
import { isWellFormedHead } from './verify/tree-head.js'
import { keyStatementMessage, type KeyStatement } from './verify/key-set.js'
import { keyIdOf, rawPublicKey } from './tree-head.js'

export type { KeyStatement } from './verify/key-set.js'

/** Where the key changes: the old key's id, and the latest head's size and root at that moment. */
export interface KeyChange {
  readonly oldKeyId: string
  readonly treeSize: number
  readonly rootHash: string
  readonly at: Date
}

/**
 * The statement that `newKey` takes over from the key `change.oldKeyId` (docs/audit.md#key-lifecycle):
 * signed by the new key and, when the old private key is at hand (`oldKey`), endorsed by it
 * (`rotated`); without it, `lost`: the new key alone says the old one was lost.
 */
export function signKeyStatement(change: KeyChange, newKey: KeyObject, oldKey: KeyObject | null): KeyStatement {
  if (oldKey !== null && keyIdOf(oldKey) !== change.oldKeyId) throw new RangeError(`the old key is ${keyIdOf(oldKey)}, not ${change.oldKeyId}`)
  const unsigned = {
    kind: oldKey === null ? 'lost' as const : 'rotated' as const,
    old_key_id: change.oldKeyId,
    new_key_id: keyIdOf(newKey),
    new_public_key: rawPublicKey(newKey).toString('base64'),
    tree_size: change.treeSize,
    root_hash: change.rootHash,
    timestamp: change.at.toISOString(),
  }
  if (!isWellFormedHead(unsigned)) throw new RangeError(`not a place in the log: ${JSON.stringify({ tree_size: change.treeSize, root_hash: change.rootHash })}`)
  const message = keyStatementMessage(unsigned)
  return {
    ...unsigned,
    signature: sign(null, message, newKey).toString('base64'),
    endorsement: oldKey === null ? null : sign(null, message, oldKey).toString('base64'),
  }
}
