import t from 'tap'
import { verifyOrder } from '../web/verify/verdict.js'
import { sampleEvents, signedLog } from './signed-log.js'

t.test('an order whose events are all under the head is verified against it', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const verdict = await verifyOrder(history, proof, log.key)
  t.match(verdict, { kind: 'verified', covered: 3, pending: 0, head: { tree_size: 5 } })
})

t.test('events newer than the head are pending, not failed', async (t) => {
  const log = signedLog(sampleEvents())
  const partly = log.order('order-acme-A1', 3)
  t.match(await verifyOrder(partly.history, partly.proof, log.key), { kind: 'verified', covered: 2, pending: 1 })
  const none = log.order('order-acme-B2', 2)
  t.match(await verifyOrder(none.history, none.proof, log.key), { kind: 'verified', covered: 1, pending: 1 })
  const unproven = log.order('order-acme-B2', 1)
  t.match(await verifyOrder(unproven.history, unproven.proof, log.key), { kind: 'pending', pending: 2 })
})

t.test('an event rewritten in the history fails at its revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const forged = history.map((event) => event.revision === 0 ? { ...event, data: { ...event.data, customer: 'John Roe' } } : event)
  t.match(await verifyOrder(forged, proof, log.key), { kind: 'failed', revision: 0, reason: /differs from leaf 0/ })
  const redated = history.map((event) => event.revision === 2 ? { ...event, received_at: '2026-11-23T08:09:00.000Z' } : event)
  t.match(await verifyOrder(redated, proof, log.key), { kind: 'failed', revision: 2 })
})

t.test('a proof that does not lead to the signed root fails at its revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const bent = {
    ...proof,
    entries: proof.entries.map((entry) => entry.revision === 1 ? { ...entry, audit_path: entry.audit_path!.map((node, i) => i === 0 ? node.replace(/^./, (c) => c === 'a' ? 'b' : 'a') : node) } : entry),
  }
  t.match(await verifyOrder(history, bent, log.key), { kind: 'failed', revision: 1, reason: /does not lead to the signed root/ })
  const moved = { ...proof, entries: proof.entries.map((entry) => entry.revision === 1 ? { ...entry, leaf_index: 1 } : entry) }
  t.match(await verifyOrder(history.map((event) => ({ ...event, leaf_index: null })), moved, log.key), { kind: 'failed', revision: 1 })
  const malformed = { ...proof, entries: proof.entries.map((entry) => entry.revision === 1 ? { ...entry, audit_path: ['00'] } : entry) }
  t.match(await verifyOrder(history, malformed, log.key), { kind: 'failed', revision: 1, reason: /malformed/ })
  const withheld = { ...proof, entries: proof.entries.map((entry) => entry.revision === 1 ? { ...entry, audit_path: null } : entry) }
  t.match(await verifyOrder(history, withheld, log.key), { kind: 'failed', revision: 1, reason: /no proof/ })
})

t.test('a history cut short, or with an event the log lacks, fails at the first such revision', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  t.match(await verifyOrder(history.slice(0, 2), proof, log.key), { kind: 'failed', revision: 2, reason: /history does not show it/ })
  t.match(await verifyOrder(history, { ...proof, entries: proof.entries.slice(0, 2) }, log.key), { kind: 'failed', revision: 2, reason: /no leaf/ })
  const renumbered = { ...proof, entries: proof.entries.map((entry) => entry.revision === 1 ? { ...entry, revision: 7 } : entry) }
  t.match(await verifyOrder(history, renumbered, log.key), { kind: 'failed', revision: 1, reason: /revision 7/ })
  const anonymous = history.map((event) => event.revision === 0 ? { ...event, event_id: undefined } : event)
  t.match(await verifyOrder(anonymous, proof, log.key), { kind: 'failed', revision: 0, reason: /id and stream/ })
})

t.test('a head that does not verify fails before any event is looked at', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  t.match(await verifyOrder(history, { ...proof, head: { ...proof.head, tree_size: 4 } }, log.key), { kind: 'failed', revision: null, reason: /does not verify/ })
})
