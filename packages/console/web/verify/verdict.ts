import { bytesToHex, hexToBytes } from './bytes.js'
import { verifyHead } from './head.js'
import { leafBytes } from './leaf.js'
import { leafHash, verifyInclusion } from './merkle.js'
import type { HistoryEvent, OrderProof, PublicKey, SignedHead } from '../wire.js'

export type Verdict =
  /** Every event covered by the head is in the log as the history shows it; `pending` are newer than the head. */
  | { readonly kind: 'verified'; readonly head: SignedHead; readonly covered: number; readonly pending: number }
  /** No event is covered by a signed head yet. */
  | { readonly kind: 'pending'; readonly head: SignedHead; readonly pending: number }
  /** The first thing that fails: the head itself (revision null) or the event at `revision`. */
  | { readonly kind: 'failed'; readonly head: SignedHead | null; readonly revision: number | null; readonly reason: string }

/**
 * The browser's own verdict on an order's history (docs/contract.md#audit): the head's signature
 * against the log's public key, then each event in revision order, its leaf recomputed from the
 * history and its inclusion proof checked against the signed root. The server's word counts for
 * nothing here; its answers are only the inputs. `pinnedKeyId`: the log key's id as the auditor
 * knows it from elsewhere, if they gave one.
 */
export async function verifyOrder(history: readonly HistoryEvent[], proof: OrderProof, key: PublicKey, pinnedKeyId?: string): Promise<Verdict> {
  const { head } = proof
  const headCheck = await verifyHead(head, key, pinnedKeyId)
  if (!headCheck.ok) return { kind: 'failed', head, revision: null, reason: headCheck.reason }
  const root = hexToBytes(head.root_hash)
  if (root === null) return { kind: 'failed', head, revision: null, reason: 'the head is malformed' }
  const entries = new Map(proof.entries.map((entry) => [entry.event_id, entry]))
  let covered = 0
  let pending = 0
  const fail = (revision: number, reason: string): Verdict => ({ kind: 'failed', head, revision, reason })
  for (const event of [...history].sort((a, b) => a.revision - b.revision)) {
    if (event.event_id === undefined || event.stream === undefined) return fail(event.revision, 'the history does not give the event\'s id and stream')
    const entry = entries.get(event.event_id)
    if (entry === undefined) return fail(event.revision, 'the log has no leaf for this event')
    entries.delete(event.event_id)
    if (entry.revision !== event.revision) return fail(event.revision, `the log has this event at revision ${entry.revision}`)
    if (event.leaf_index != null && event.leaf_index !== entry.leaf_index) return fail(event.revision, 'the history and the proof give different leaf indexes')
    if (entry.audit_path === null) {
      if (entry.leaf_index < head.tree_size) return fail(event.revision, `leaf ${entry.leaf_index} is within the head but has no proof`)
      pending++
      continue
    }
    const leaf = await leafHash(leafBytes({ ...event, event_id: event.event_id, stream: event.stream }))
    if (bytesToHex(leaf) !== entry.leaf_hash) return fail(event.revision, `the event differs from leaf ${entry.leaf_index} of the log`)
    const path = entry.audit_path.map(hexToBytes)
    if (path.some((node) => node?.length !== 32)) return fail(event.revision, 'the inclusion proof is malformed')
    if (!await verifyInclusion(entry.leaf_index, head.tree_size, leaf, path as Uint8Array[], root)) {
      return fail(event.revision, `the inclusion proof of leaf ${entry.leaf_index} does not lead to the signed root`)
    }
    covered++
  }
  // Leaves the log holds for this order that the history no longer shows: events cut or removed.
  const missing = [...entries.values()].sort((a, b) => a.revision - b.revision)[0]
  if (missing !== undefined) return fail(missing.revision, `the log holds this event (leaf ${missing.leaf_index}) but the history does not show it`)
  return covered === 0 && pending > 0 ? { kind: 'pending', head, pending } : { kind: 'verified', head, covered, pending }
}
