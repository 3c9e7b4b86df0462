import { randomBytes } from 'node:crypto'
import t from 'tap'
import { eraseEventIdFor, toCommand, type OrderEvent, type ValidDelivery } from '@waybill/domain'
import { openOrderEvent, orderSealer, type OrderKey } from '@waybill/personal-data'
import { evolveOrderRow, type EventOpener, type OrderRow, type ProjectedEvent } from '../../src/index.js'
import { refOf, TEST_POD } from '../helpers.js'

// Given the events so far, when one more is folded, then the row: the fold alone, no store. The
// events are sealed as the ingress seals them; `open` opens them with the order's key, or, once
// `erased`, as the key store answers after an erasure.
const STREAM = 'order-acme-o-1'
const key: OrderKey = { id: 'k-1', secret: randomBytes(32) }
let erased = false
const open: EventOpener = (_account, _orderId, event) => openOrderEvent(STREAM, event, erased ? 'erased' : key)
let revision = 0
const stored = (event: OrderEvent): ProjectedEvent => ({
  id: `e-${revision}`, type: event.type, data: { ...event.data }, metadata: { received_at: '2025-01-09T00:00:00Z', schema_version: 2 }, revision, position: { commit: BigInt(100 + revision++) },
})
const TYPES = { ORDER_ADD: 'OrderAdded', ORDER_UPDATE: 'OrderUpdated', ORDER_COMPLETE: 'OrderCompleted', ORDER_CANCELED: 'OrderCanceled' } as const
const sealed = (valid: ValidDelivery): ProjectedEvent =>
  stored({ type: TYPES[valid.event], data: toCommand('acme', valid, orderSealer(key, STREAM)).data } as OrderEvent)
const fold = (events: readonly ProjectedEvent[]): OrderRow | undefined => {
  let row: OrderRow | undefined
  for (const event of events) {
    const next = evolveOrderRow(row, 'acme', 'o-1', event, open)
    if (next === 'unknown') throw new Error(`unknown ${event.type}`)
    row = next
  }
  return row
}
const added = (): ProjectedEvent => sealed({
  event: 'ORDER_ADD', event_date: '2025-01-01T00:00:00.5Z',
  payload: { order_id: 'o-1', customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-05T00:00:00Z' },
})
const updated = (): ProjectedEvent => sealed({
  event: 'ORDER_UPDATE', event_date: '2025-01-02T00:00:00Z', payload: { order_id: 'o-1', status: 'in_progress', address: 'b', delivery_date: '2025-01-06T00:00:00Z' },
})
const completed = (): ProjectedEvent => sealed({
  event: 'ORDER_COMPLETE', event_date: '2025-01-03T00:00:00Z', payload: { order_id: 'o-1', address: 'c', delivery_date: '2025-01-03T00:00:00Z', recipient: 'R', pod: TEST_POD },
})
const canceled = (): ProjectedEvent => sealed({ event: 'ORDER_CANCELED', event_date: '2025-01-04T00:00:00Z', payload: { order_id: 'o-1', reason: 'asked' } })
const erasure = (): ProjectedEvent => ({
  ...stored({ type: 'PersonalDataErased', data: { order_id: 'o-1', erased_at: '2026-01-01T00:00:00Z', scope: 'order', requested_by: 'dpo', reason: 'asked' } }),
  id: eraseEventIdFor('acme', 'o-1'),
})

t.beforeEach(() => {
  revision = 0
  erased = false
})

t.test('OrderAdded makes the row, stamped with the event', async (t) => {
  t.same(fold([added()]), {
    account: 'acme', order_id: 'o-1', customer: 'c', location: 'l', status: 'pending', address: 'a',
    delivery_date: '2025-01-05T00:00:00Z', recipient: null, reason: null, pod: null, signature: null,
    created_at: '2025-01-01T00:00:00.5Z', updated_at: '2025-01-01T00:00:00.5Z', updated_at_key: '2025-01-01T00:00:00.500000000Z',
    last_event_type: 'OrderAdded', received_at: '2025-01-09T00:00:00Z', revision: 0, event_count: 1, position: '100', erased_at: null,
  })
})

t.test('OrderUpdated, then OrderCompleted: status, address and dates follow; created_at stays', async (t) => {
  const row = fold([added(), updated(), completed()])
  t.match(row, {
    status: 'completed', address: 'c', delivery_date: '2025-01-03T00:00:00Z', recipient: 'R', pod: refOf(TEST_POD), signature: null,
    created_at: '2025-01-01T00:00:00.5Z', updated_at: '2025-01-03T00:00:00Z', last_event_type: 'OrderCompleted', revision: 2, event_count: 3,
  })
})

t.test('OrderCanceled keeps the delivery fields and records the reason', async (t) => {
  t.match(fold([added(), canceled()]), { status: 'canceled', address: 'a', reason: 'asked', event_count: 2, position: '101' })
})

t.test('an event that cannot apply leaves the row as it was', async (t) => {
  t.equal(evolveOrderRow(undefined, 'acme', 'o-1', updated(), open), undefined, 'an update before the order exists')
  const row = fold([added()])
  t.equal(evolveOrderRow(row, 'acme', 'o-1', added(), open), row, 'a second OrderAdded')
  const locked = fold([added(), canceled()])
  for (const event of [updated(), completed(), canceled()]) t.equal(evolveOrderRow(locked, 'acme', 'o-1', event, open), locked, `${event.type} after the lock`)
})

t.test('an event without received_at leaves it null', async (t) => {
  t.equal(fold([{ ...added(), metadata: {} }])?.received_at, null)
})

t.test('a type the domain does not know is reported, whatever its data', async (t) => {
  const row = fold([added()])
  for (const event of [{ ...updated(), type: 'OrderRerouted' }, { ...updated(), type: 'OrderRerouted', data: {} }]) {
    t.equal(evolveOrderRow(row, 'acme', 'o-1', event, open), 'unknown')
    t.equal(evolveOrderRow(undefined, 'acme', 'o-1', event, open), 'unknown')
  }
})

t.test('an erasure nulls every personal value and keeps every fact of the delivery; nothing applies after it', async (t) => {
  const before = fold([added(), updated(), completed()]) as OrderRow
  revision = 0
  const after = fold([added(), updated(), completed(), erasure()])
  t.same(after, {
    ...before, customer: null, location: null, address: null, recipient: null, reason: null, pod: null, signature: null,
    revision: 3, event_count: 4, position: '103', erased_at: '2026-01-01T00:00:00Z',
  })
  const again = evolveOrderRow(after, 'acme', 'o-1', erasure(), open)
  t.equal(again, after, 'a second erasure changes nothing')
  t.equal(evolveOrderRow(undefined, 'acme', 'o-1', erasure(), open), undefined, 'an erasure before the order exists')
  const erasedRow = fold([added(), erasure()])
  t.equal(evolveOrderRow(erasedRow, 'acme', 'o-1', updated(), open), erasedRow, 'an update after the erasure')
})

t.test('events whose key was destroyed fold with their personal values null: a rebuild after an erasure', async (t) => {
  const events = [added(), updated(), completed(), erasure()]
  const live = fold(events)
  erased = true
  t.same(fold(events), live, 'the same row as the live projection made')
  t.match(fold(events.slice(0, 3)), { customer: null, address: null, recipient: null, pod: null, status: 'completed', erased_at: null })
})
