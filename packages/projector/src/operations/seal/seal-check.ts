import { createPublicKey } from 'node:crypto'
import { fromHex, verifyConsistency, verifySealStatement, type Hash, type SignedTreeHead } from '@waybill/merkle'
import { checkHeadKey, subtleSha256, type CheckedKeySet } from '@waybill/merkle/verify'
import type { SealRecord } from '../../audit/seal-records.js'

/** What checking the log's seals found: problems, and whether the auditor's kept head was one of the heads a seal set aside. */
export interface SealCheck {
  readonly problems: readonly string[]
  /** The kept head was signed before a seal and was checked through it (not against today's tree). */
  readonly keptHeadSealed: boolean
}

const same = (a: SignedTreeHead, b: SignedTreeHead): boolean =>
  a.tree_size === b.tree_size && a.root_hash === b.root_hash && a.timestamp === b.timestamp && a.key_id === b.key_id && a.signature === b.signature

/**
 * The seals of the log (docs/audit.md#sealing), each checked with the keys the auditor believes:
 * the statement's signature by the key it names; the closing head over the old tree and the new
 * tree's first head, each signed within its key's validity and saying what the statement says;
 * every head set aside, signed within its key's validity and consistent with the closing head by
 * its kept proof. A head the auditor kept from before a seal (`kept`: signed before it, no larger
 * than the tree it closed) is checked the same way, through the head of its size the seal set
 * aside (or its closing head): it must be that very head. Whether today's log has the new root at the seal's size is
 * the caller's check, as for every head.
 */
export async function checkSeals(seals: readonly SealRecord[], keys: CheckedKeySet, kept: SignedTreeHead | undefined): Promise<SealCheck> {
  const problems: string[] = []
  let keptHeadSealed = false
  for (const seal of seals) {
    const { statement, closing_head: closing, new_head: opened } = seal
    const label = `the seal of ${statement.timestamp}`
    const key = keys.trusted.get(statement.key_id)
    if (key === undefined) problems.push(`${label}: its statement is signed by key ${statement.key_id}, which is not believed`)
    else {
      const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.raw).toString('base64url') }, format: 'jwk' })
      if (!verifySealStatement(statement, publicKey)) problems.push(`${label}: its statement does not verify with key ${statement.key_id}`)
    }
    for (const [head, name] of [[closing, 'closing head'], [opened, 'new head']] as const) {
      const check = await checkHeadKey(head, keys, subtleSha256)
      if (!check.ok) problems.push(`${label}: its ${name}: ${check.reason}`)
    }
    if (closing.tree_size !== statement.old_tree_size || closing.root_hash !== statement.old_root_hash) problems.push(`${label}: its closing head is not the old tree its statement names`)
    if (opened.tree_size !== statement.new_tree_size || opened.root_hash !== statement.new_root_hash) problems.push(`${label}: its new head is not the new tree its statement names`)
    const closingRoot = fromHex(closing.root_hash) as Hash
    for (const { head, proof } of seal.sealed_heads) {
      const check = await checkHeadKey(head, keys, subtleSha256)
      if (!check.ok) problems.push(`${label}: head ${head.tree_size} (${head.timestamp}) it set aside: ${check.reason}`)
      const root = fromHex(head.root_hash)
      const nodes = proof.map(fromHex)
      if (root === null || nodes.some((node) => node === null) || head.tree_size > closing.tree_size ||
        !verifyConsistency(head.tree_size, closing.tree_size, root, closingRoot, nodes as Hash[])) {
        problems.push(`${label}: head ${head.tree_size} (${head.timestamp}) it set aside is not consistent with its closing head by its proof`)
      }
    }
    // The new head is the live tree's, checked as every head is; the closing head and the heads
    // before it (signed no later than the statement, over no more than the old tree) go through the seal.
    if (kept === undefined || same(kept, opened) || kept.timestamp > statement.timestamp || kept.tree_size > statement.old_tree_size) continue
    keptHeadSealed = true
    const check = await checkHeadKey(kept, keys, subtleSha256)
    if (!check.ok) problems.push(`your kept head ${kept.tree_size} (${kept.timestamp}): ${check.reason}`)
    else if (!seal.sealed_heads.some(({ head }) => same(head, kept)) && !same(closing, kept)) {
      problems.push(`your kept head ${kept.tree_size} (${kept.timestamp}) was signed before ${label}, which set aside no such head: ` +
        'the log this data dir sealed is not the one your head describes')
    }
  }
  return { problems, keptHeadSealed }
}
