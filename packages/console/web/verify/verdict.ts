import { bytesToHex, hashFromHex, leafBytes, leafHash, subtleSha256, verifyInclusion } from '@waybill/merkle/verify'
import type { HistoryEvent, LogKey, OrderProof, ProofEntry, SignedHead } from '../api.js'
import { verifyHead } from './head.js'

export type Verdict =
  /** Every event of the order is in the log, as the history shows it, under the signed head. */
  | { readonly kind: 'verified'; readonly head: SignedHead; readonly covered: number }
  /** The `covered` oldest events verified; the `pending` newer ones are not under a signed head yet. */
  | { readonly kind: 'partial'; readonly head: SignedHead; readonly covered: number; readonly pending: number }
  /** No event is covered by the signed head yet. */
  | { readonly kind: 'pending'; readonly head: SignedHead; readonly pending: number }
  /** No head has been signed yet: nothing to verify against (the history's shape was checked). */
  | { readonly kind: 'unsigned'; readonly head: null; readonly events: number }
  /** The first thing that fails: the head or the order as a whole (revision null), or the event at `revision`. */
  | { readonly kind: 'failed'; readonly head: SignedHead | null; readonly revision: number | null; readonly reason: string }

/** The order the page asked for: the verdict is about it, not about whatever stream the server answered with. */
export interface ExpectedOrder {
  /** `order-<account>-<order_id>`, the account as the page knows it (the key's, or the auditor's ?account=). */
  readonly stream: string
  readonly orderId: string
}

/** An order's stream name, as the server makes it (docs/audit.md#leaves; `streamNameFor` in the domain). */
export function orderStream(account: string, orderId: string): string {
  return `order-${account}-${orderId}`
}

/**
 * How long before a head an event may have been received and still be missing from it. Heads trail
 * the log by a batch and a second (docs/audit.md#signed-tree-heads); an event much older than the
 * head that the head leaves out is one the server is keeping out of the check.
 */
const PENDING_GRACE_MS = 5 * 60 * 1000
/** The grace in the words of a verdict. */
const GRACE = `${PENDING_GRACE_MS / 60_000} minutes`

type Problem = { readonly revision: number | null; readonly reason: string }

/**
 * The browser's own verdict on an order's history (docs/audit.md#the-console): that the history is the
 * order the page asked for (its stream and order id on every event, revisions 0..n-1) and that the
 * proof speaks of exactly those events; the head's signature against the key it names, from the log's key set; then
 * each event in revision order, its leaf recomputed from the history and its inclusion proof
 * checked against the signed root. The server's word counts for nothing here; its answers are
 * only the inputs, and it chooses each leaf index, so the indexes must grow with revision and only
 * the newest events may be left out of the head, and not for long. `pinnedKeyId`: the log key's
 * id as the auditor knows it from elsewhere, if they gave one.
 */
export async function verifyOrder(
  history: readonly HistoryEvent[], proof: OrderProof, keys: readonly LogKey[], expected: ExpectedOrder, pinnedKeyId?: string, now = Date.now(),
): Promise<Verdict> {
  const { head } = proof
  const fail = (problem: Problem): Verdict => ({ kind: 'failed', head, ...problem })
  const events = [...history].sort((a, b) => a.revision - b.revision)
  const shape = historyProblem(events, expected)
  if (shape !== null) return fail(shape)
  const paired = pairEntries(events, proof.entries)
  if (!Array.isArray(paired)) return fail(paired)
  const order = leafOrderProblem(paired)
  if (order !== null) return fail(order)
  if (head === null) {
    const proven = paired.find(([, entry]) => entry.audit_path !== null)
    if (proven !== undefined) return fail({ revision: proven[0].revision, reason: 'the proof gives an inclusion path but there is no signed head' })
    // An auditor who pinned the log's key expects heads. A head follows the log within seconds, so
    // "no head yet" for an order received long ago is the server keeping the order out of the check.
    const first = events[0]?.received_at ?? null
    const received = first === null ? Number.NaN : Date.parse(first)
    if (pinnedKeyId !== undefined && !Number.isNaN(received) && now - received > PENDING_GRACE_MS) {
      return fail({ revision: 0, reason: `the server gives no signed head, yet this order's first event was received at ${first ?? ''}, more than ${GRACE} ago` })
    }
    return { kind: 'unsigned', head, events: events.length }
  }

  const headCheck = await verifyHead(head, keys, pinnedKeyId)
  if (!headCheck.ok) return fail({ revision: null, reason: headCheck.reason })
  const root = hashFromHex(head.root_hash)
  const signedAt = Date.parse(head.timestamp)
  if (root === null || Number.isNaN(signedAt)) return fail({ revision: null, reason: 'the head is malformed' })
  let covered = 0
  let firstPending: HistoryEvent | null = null
  for (const [event, entry] of paired) {
    const at = (reason: string): Verdict => fail({ revision: event.revision, reason })
    const index = entry.leaf_index
    if (entry.audit_path === null) {
      if (index !== null && index < head.tree_size) return at(`leaf ${index} is within the head but has no proof`)
      const received = event.received_at === null ? Number.NaN : Date.parse(event.received_at)
      if (Number.isNaN(received)) return at('it is not covered by the head, and the history gives no received time for it')
      if (signedAt - received > PENDING_GRACE_MS) {
        return at(`it was received at ${event.received_at ?? ''}, more than ${GRACE} before the head was signed (${head.timestamp}), yet the head does not cover it`)
      }
      firstPending ??= event
      continue
    }
    if (firstPending !== null) {
      return fail({ revision: firstPending.revision, reason: `it is said not to be covered by the head, though a later revision (${event.revision}) is` })
    }
    if (index === null) return at('the proof gives an inclusion path but no leaf index')
    // The leaf rebuilt from the history's own fields (`leafBytes`, the format the server hashes).
    const leaf = await leafHash(leafBytes(event), subtleSha256)
    if (bytesToHex(leaf) !== entry.leaf_hash) return at(`the event differs from leaf ${index} of the log`)
    const path = entry.audit_path.map(hashFromHex)
    if (path.some((node) => node === null)) return at('the inclusion proof is malformed')
    if (!await verifyInclusion(leaf, index, head.tree_size, path as Uint8Array[], root, subtleSha256)) {
      return at(`the inclusion proof of leaf ${index} does not lead to the signed root`)
    }
    covered++
  }
  const pending = events.length - covered
  if (pending === 0) return { kind: 'verified', head, covered }
  // Events newer than the head wait for the next one, which comes within seconds while the log
  // grows. A head that old while events wait is a server holding its heads back (it would keep
  // inserted or changed events "pending" forever): red, not amber (docs/audit.md#the-console).
  if (now - signedAt > PENDING_GRACE_MS && firstPending !== null) {
    return fail({ revision: firstPending.revision, reason: `the log has signed no head since ${head.timestamp}, more than ${GRACE} ago, though this event waits for one: the server may be withholding it` })
  }
  return covered === 0 ? { kind: 'pending', head, pending } : { kind: 'partial', head, covered, pending }
}

/** Whether the history, sorted by revision, is the whole of the order asked for and nothing else. */
function historyProblem(events: readonly HistoryEvent[], expected: ExpectedOrder): Problem | null {
  if (events.length === 0) return { revision: null, reason: 'the history shows no event' }
  const ids = new Set<string>()
  for (const [i, event] of events.entries()) {
    if (event.revision < i) return { revision: event.revision, reason: `the history shows revision ${event.revision} twice` }
    if (event.revision !== i) return { revision: i, reason: `revision ${i} is missing from the history` }
    // The answer's type promises both; a server that leaves them out fails here, not in the leaf.
    if (typeof event.event_id !== 'string' || typeof event.stream !== 'string') return { revision: i, reason: 'the history does not give the event\'s id and stream' }
    if (ids.has(event.event_id)) return { revision: i, reason: `the history shows event ${event.event_id} twice` }
    ids.add(event.event_id)
    if (event.stream !== expected.stream) return { revision: i, reason: `the event is in stream ${event.stream}, not ${expected.stream}` }
    const orderId = event.data['order_id']
    if (orderId !== expected.orderId) {
      return { revision: i, reason: `the event has order_id ${orderId === undefined ? 'missing' : JSON.stringify(orderId)}, not ${JSON.stringify(expected.orderId)}` }
    }
  }
  return null
}

/** Each event with the proof's entry for it; the proof must name exactly the history's events, each once. */
function pairEntries(events: readonly HistoryEvent[], entries: readonly ProofEntry[]): Array<[HistoryEvent, ProofEntry]> | Problem {
  const byId = new Map<string, ProofEntry>()
  for (const entry of entries) {
    if (byId.has(entry.event_id)) return { revision: entry.revision, reason: `the proof lists event ${entry.event_id} twice` }
    byId.set(entry.event_id, entry)
  }
  const paired: Array<[HistoryEvent, ProofEntry]> = []
  for (const event of events) {
    const entry = byId.get(event.event_id)
    if (entry === undefined) return { revision: event.revision, reason: 'the log has no leaf for this event' }
    byId.delete(event.event_id)
    if (entry.revision !== event.revision) return { revision: event.revision, reason: `the log has this event at revision ${entry.revision}` }
    // The history may be read before the projector made a leaf and the proof after: only two indexes can disagree.
    if (event.leaf_index != null && entry.leaf_index !== null && event.leaf_index !== entry.leaf_index) {
      return { revision: event.revision, reason: 'the history and the proof give different leaf indexes' }
    }
    paired.push([event, entry])
  }
  // Leaves the log holds for this order that the history no longer shows: events cut or removed.
  const missing = [...byId.values()].sort((a, b) => a.revision - b.revision)[0]
  if (missing !== undefined) return { revision: missing.revision, reason: `the log holds this event (leaf ${missing.leaf_index ?? 'not made yet'}) but the history does not show it` }
  return paired
}

/**
 * The log is in commit order and a stream's revisions are committed in order, so leaf indexes grow
 * with revision, and once one event has no leaf yet no later one has. The server chooses the
 * indexes it reports: without this, it could say any event lies past the head.
 */
function leafOrderProblem(paired: ReadonlyArray<readonly [HistoryEvent, ProofEntry]>): Problem | null {
  let previous: { revision: number; index: number | null } | null = null
  for (const [event, { leaf_index: index }] of paired) {
    if (index !== null && (!Number.isSafeInteger(index) || index < 0)) return { revision: event.revision, reason: 'the leaf index is malformed' }
    if (previous !== null && index !== null && (previous.index === null || index <= previous.index)) {
      return {
        revision: event.revision,
        reason: `leaf indexes must grow with revision: revision ${previous.revision} is at ${previous.index === null ? 'no leaf yet' : `leaf ${previous.index}`}, this one at leaf ${index}`,
      }
    }
    previous = { revision: event.revision, index }
  }
  return null
}
