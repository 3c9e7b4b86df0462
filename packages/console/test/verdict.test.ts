import t from 'tap'
import { verifyOrder } from '../web/verify/verdict.js'
import type { HistoryEvent, OrderProof } from '../web/api.js'
import { orderEvent, sampleEvents, signedLog, type SignedLog } from './signed-log.js'

const A1 = { stream: 'order-acme-A1', orderId: 'A1' }
const B2 = { stream: 'order-acme-B2', orderId: 'B2' }
/** A head signed an hour after the sample's events were received: whatever it leaves out is overdue. */
const LATE = '2026-11-23T09:00:00.000Z'

/** A minute after the sample log's head was signed: a head that fresh is one the log just made. */
const SOON = Date.parse('2026-11-23T08:06:00.000Z')

/** The verdict on one order's answers, for the order the page asked for (A1 unless told), seen at `now`. */
function verify(log: SignedLog, order: { history: readonly HistoryEvent[]; proof: OrderProof }, expected = A1, pinned?: string, now = SOON) {
  return verifyOrder(order.history, order.proof, [log.key], expected, pinned, now)
}

/** The order's proof with the entry at `revision` changed. */
function withEntry(proof: OrderProof, revision: number, change: Partial<OrderProof['entries'][number]>): OrderProof {
  return { ...proof, entries: proof.entries.map((entry) => entry.revision === revision ? { ...entry, ...change } : entry) }
}

t.test('an order whose events are all under the head is verified against it', async (t) => {
  const log = signedLog(sampleEvents())
  t.match(await verify(log, log.order('order-acme-A1')), { kind: 'verified', covered: 3, head: { tree_size: 5 } })
  t.match(await verify(log, log.order('order-acme-A1'), A1, log.key.key_id), { kind: 'verified', covered: 3 }, 'with the key id pinned')
})

t.test('events newer than the head make a partial verdict, never a green one', async (t) => {
  const log = signedLog(sampleEvents())
  t.match(await verify(log, log.order('order-acme-A1', 3)), { kind: 'partial', covered: 2, pending: 1 })
  t.match(await verify(log, log.order('order-acme-B2', 2), B2), { kind: 'partial', covered: 1, pending: 1 })
  t.match(await verify(log, log.order('order-acme-B2', 1), B2), { kind: 'pending', pending: 2 })
})

t.test('a head older than the grace while events wait for one is red: the server may be withholding heads', async (t) => {
  const log = signedLog(sampleEvents())
  const hourLater = Date.parse('2026-11-23T09:05:00.000Z')
  t.match(await verify(log, log.order('order-acme-A1', 3), A1, undefined, hourLater),
    { kind: 'failed', revision: 2, reason: /signed no head since 2026-11-23T08:05:00.000Z, more than 5 minutes ago/ })
  t.match(await verify(log, log.order('order-acme-A1'), A1, undefined, hourLater), { kind: 'verified' }, 'an old head that covers every event is still fine')
  t.match(await verify(log, log.order('order-acme-A1', 3), A1, undefined, SOON + 3 * 60_000), { kind: 'partial' }, 'within the grace: amber')
})

t.test('an event not projected yet (no leaf index) is pending, not failed', async (t) => {
  const log = signedLog(sampleEvents())
  const unprojected = log.order('order-acme-A1', 3, { projected: 3 })
  t.equal(unprojected.proof.entries[2]!.leaf_index, null)
  t.match(await verify(log, unprojected), { kind: 'partial', covered: 2, pending: 1 })
  t.match(await verify(log, log.order('order-acme-A1', 2, { projected: 2 })), { kind: 'partial', covered: 1, pending: 2 })
  // The history was read before the projector reached the event, the proof after.
  const { history, proof } = log.order('order-acme-A1', 3)
  t.match(await verify(log, { history: history.map((event) => event.revision === 2 ? { ...event, leaf_index: null } : event), proof }), { kind: 'partial' })
})

t.test('no head signed yet is its own state, neither green nor red', async (t) => {
  const log = signedLog(sampleEvents())
  const unsigned = log.order('order-acme-A1', null, { projected: 0 })
  t.equal(unsigned.proof.head, null)
  t.match(await verify(log, unsigned), { kind: 'unsigned', head: null, events: 3 })
  t.match(await verify(log, log.order('order-acme-A1', null)), { kind: 'unsigned' }, 'projected but not signed')
  // What needs no head is still checked.
  t.match(await verify(log, log.order('order-acme-B2', null), A1), { kind: 'failed', head: null, revision: 0, reason: /stream order-acme-B2/ })
  t.match(await verify(log, { ...unsigned, proof: withEntry(unsigned.proof, 1, { audit_path: [] }) }), { kind: 'failed', revision: 1, reason: /no signed head/ })
  // With the log's key pinned, "no head yet" holds only while a head could still be on its way.
  const pinned = log.key.key_id
  const received = Date.parse('2026-11-23T08:00:00.000Z')
  t.match(await verifyOrder(unsigned.history, unsigned.proof, [log.key], A1, pinned, received + 60_000), { kind: 'unsigned' }, 'pinned, a minute after')
  t.match(await verifyOrder(unsigned.history, unsigned.proof, [log.key], A1, pinned, received + 6 * 60_000),
    { kind: 'failed', revision: 0, reason: /no signed head, yet this order's first event was received at 2026-11-23T08:00:00.000Z/ }, 'pinned, six minutes after')
  t.match(await verifyOrder(unsigned.history, unsigned.proof, [log.key], A1, undefined, received + 6 * 60_000), { kind: 'unsigned' }, 'not pinned: no expectation of heads')
})

t.test('the server cannot pass a covered event off as not yet covered', async (t) => {
  const log = signedLog(sampleEvents())
  // The last event said to be past the head: leaf 3 of 5 claimed at 9, no proof.
  const late = log.order('order-acme-A1', 5, { timestamp: LATE })
  const hidden = { history: late.history.map((event) => event.revision === 2 ? { ...event, leaf_index: null } : event), proof: withEntry(late.proof, 2, { leaf_index: 9, audit_path: null }) }
  t.match(await verify(log, hidden), { kind: 'failed', revision: 2, reason: /received at 2026-11-23T08:03:00.000Z, more than 5 minutes before the head/ })
  const unprojected = log.order('order-acme-A1', 3, { projected: 3, timestamp: LATE })
  t.match(await verify(log, unprojected), { kind: 'failed', revision: 2, reason: /more than 5 minutes before the head/ }, 'not projected an hour after')
  // Within five minutes of the head it may be the projector's lag: amber, not green.
  const recent = log.order('order-acme-A1', 5)
  const fresh = { history: hidden.history, proof: withEntry(recent.proof, 2, { leaf_index: 9, audit_path: null }) }
  t.match(await verify(log, fresh), { kind: 'partial', covered: 2, pending: 1 })
  const undated = { history: fresh.history.map((event) => event.revision === 2 ? { ...event, received_at: null } : event), proof: fresh.proof }
  t.match(await verify(log, undated), { kind: 'failed', revision: 2, reason: /no received time/ })

  // An earlier event said to be past the head while a later one is covered.
  const { history, proof } = log.order('order-acme-A1')
  const skipped = { history: history.map((event) => ({ ...event, leaf_index: null })), proof: withEntry(proof, 1, { leaf_index: 9, audit_path: null }) }
  t.match(await verify(log, skipped), { kind: 'failed', revision: 2, reason: /leaf indexes must grow with revision/ })
  const unprojectedFirst = { history: skipped.history, proof: withEntry(proof, 1, { leaf_index: null, audit_path: null }) }
  t.match(await verify(log, unprojectedFirst), { kind: 'failed', revision: 2, reason: /leaf indexes must grow with revision/ })
  const pendingFirst = { history: skipped.history, proof: withEntry(withEntry(proof, 1, { leaf_index: 5, audit_path: null }), 2, { leaf_index: 6 }) }
  t.match(await verify(log, pendingFirst), { kind: 'failed', revision: 1, reason: /a later revision \(2\) is/ })
})

t.test('leaf indexes must grow with revision, even when every proof holds', async (t) => {
  // A log in which the order's revision 1 was logged before its revision 0.
  const log = signedLog([
    orderEvent('order-acme-A1', 1, 'OrderUpdated', { order_id: 'A1', status: 'in_progress', event_date: '2026-11-23T08:02:00Z' }, 0),
    orderEvent('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1', customer: 'Jane Doe', status: 'pending', event_date: '2026-11-23T08:00:00Z' }, 1),
  ])
  t.match(await verify(log, log.order('order-acme-A1')), { kind: 'failed', revision: 1, reason: /leaf indexes must grow with revision/ })
})

t.test('the verdict is about the order asked for: its stream, its order id, every revision', async (t) => {
  const log = signedLog(sampleEvents())
  t.match(await verify(log, log.order('order-acme-B2'), A1), { kind: 'failed', revision: 0, reason: /stream order-acme-B2, not order-acme-A1/ })
  t.match(await verify(log, log.order('order-acme-A1'), { stream: 'order-acme-A1', orderId: 'A10' }), { kind: 'failed', revision: 0, reason: /order_id "A1", not "A10"/ })

  const other = signedLog([
    orderEvent('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1', customer: 'Jane Doe', status: 'pending', event_date: '2026-11-23T08:00:00Z' }, 0),
    orderEvent('order-acme-A1', 1, 'OrderCanceled', { order_id: 'Z9', reason: 'moved', event_date: '2026-11-23T08:01:00Z' }, 1),
  ])
  t.match(await verify(other, other.order('order-acme-A1')), { kind: 'failed', revision: 1, reason: /order_id "Z9"/ })

  const gap = signedLog([
    orderEvent('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1', customer: 'Jane Doe', status: 'pending', event_date: '2026-11-23T08:00:00Z' }, 0),
    orderEvent('order-acme-A1', 2, 'OrderCanceled', { order_id: 'A1', reason: 'moved', event_date: '2026-11-23T08:01:00Z' }, 1),
  ])
  t.match(await verify(gap, gap.order('order-acme-A1')), { kind: 'failed', revision: 1, reason: /revision 1 is missing/ })

  const { history, proof } = log.order('order-acme-A1')
  t.match(await verify(log, { history: [...history, history[1]!], proof }), { kind: 'failed', revision: 1, reason: /twice/ })
  t.match(await verify(log, { history, proof: { ...proof, entries: [...proof.entries, proof.entries[1]!] } }), { kind: 'failed', revision: 1, reason: /twice/ })
})

t.test('an event rewritten in the history fails at its revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const forged = history.map((event) => event.revision === 0 ? { ...event, data: { ...event.data, customer: 'John Roe' } } : event)
  t.match(await verify(log, { history: forged, proof }), { kind: 'failed', revision: 0, reason: /differs from leaf 0/ })
  const redated = history.map((event) => event.revision === 2 ? { ...event, received_at: '2026-11-23T08:09:00.000Z' } : event)
  t.match(await verify(log, { history: redated, proof }), { kind: 'failed', revision: 2 })
})

t.test('a proof that does not lead to the signed root fails at its revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const bent = withEntry(proof, 1, { audit_path: proof.entries[1]!.audit_path!.map((node, i) => i === 0 ? node.replace(/^./, (c) => c === 'a' ? 'b' : 'a') : node) })
  t.match(await verify(log, { history, proof: bent }), { kind: 'failed', revision: 1, reason: /does not lead to the signed root/ })
  const moved = withEntry(proof, 1, { leaf_index: 1 })
  t.match(await verify(log, { history: history.map((event) => ({ ...event, leaf_index: null })), proof: moved }), { kind: 'failed', revision: 1 })
  const malformed = withEntry(proof, 1, { audit_path: ['00'] })
  t.match(await verify(log, { history, proof: malformed }), { kind: 'failed', revision: 1, reason: /malformed/ })
  const withheld = withEntry(proof, 1, { audit_path: null })
  t.match(await verify(log, { history, proof: withheld }), { kind: 'failed', revision: 1, reason: /no proof/ })
})

t.test('a history cut short, or with an event the log lacks, fails at the first such revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  t.match(await verify(log, { history: history.slice(0, 2), proof }), { kind: 'failed', revision: 2, reason: /history does not show it/ })
  t.match(await verify(log, { history, proof: { ...proof, entries: proof.entries.slice(0, 2) } }), { kind: 'failed', revision: 2, reason: /no leaf/ })
  t.match(await verify(log, { history, proof: withEntry(proof, 1, { revision: 7 }) }), { kind: 'failed', revision: 1, reason: /revision 7/ })
  // An answer outside its schema (the type promises an id): the verdict must not take it on trust.
  const anonymous = history.map((event) => event.revision === 0 ? { ...event, event_id: undefined } as unknown as HistoryEvent : event)
  t.match(await verify(log, { history: anonymous, proof }), { kind: 'failed', revision: 0, reason: /id and stream/ })
})

t.test('a head that does not verify fails before any event is looked at', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  t.match(await verify(log, { history, proof: { ...proof, head: { ...proof.head!, tree_size: 4 } } }), { kind: 'failed', revision: null, reason: /does not verify/ })
  t.match(await verify(log, { history, proof }, A1, '0123456789abcdef'), { kind: 'failed', revision: null, reason: /do not include the pinned 0123456789abcdef/ })
})
