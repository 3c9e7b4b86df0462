import t from 'tap'
import type { OrderEvent } from '@waybill/domain'
import { evolveOrderRow, type OrderRow, type ProjectedEvent } from '../../src/index.js'
import { TEST_POD } from '../helpers.js'

// Given the events so far, when one more is folded, then the row: the fold alone, no store.
let revision = 0
const stored = (event: OrderEvent): ProjectedEvent => ({
  id: `e-${revision}`, type: event.type, data: { ...event.data }, metadata: { received_at: '2025-01-09T00:00:00Z', schema_version: 1 }, revision, position: { commit: BigInt(100 + revision++) },
})
const fold = (events: readonly ProjectedEvent[]): OrderRow | undefined => {
  let row: OrderRow | undefined
  for (const event of events) {
    const next = evolveOrderRow(row, 'acme', 'o-1', event)
    if (next === 'unknown') throw new Error(`unknown ${event.type}`)
    row = next
  }
  return row
}
const added = (): ProjectedEvent => stored({
  type: 'OrderAdded',
  data: { order_id: 'o-1', customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-05T00:00:00Z', event_date: '2025-01-01T00:00:00.5Z' },
})
const updated = (): ProjectedEvent => stored({
  type: 'OrderUpdated',
  data: { order_id: 'o-1', status: 'in_progress', address: 'b', delivery_date: '2025-01-06T00:00:00Z', event_date: '2025-01-02T00:00:00Z' },
})
const completed = (): ProjectedEvent => stored({
  type: 'OrderCompleted',
  data: { order_id: 'o-1', address: 'c', delivery_date: '2025-01-03T00:00:00Z', recipient: 'R', pod: TEST_POD, event_date: '2025-01-03T00:00:00Z' },
})
const canceled = (): ProjectedEvent => stored({ type: 'OrderCanceled', data: { order_id: 'o-1', reason: 'asked', event_date: '2025-01-04T00:00:00Z' } })

t.beforeEach(() => { revision = 0 })

t.test('OrderAdded makes the row, stamped with the event', async (t) => {
  t.same(fold([added()]), {
    account: 'acme', order_id: 'o-1', customer: 'c', location: 'l', status: 'pending', address: 'a',
    delivery_date: '2025-01-05T00:00:00Z', recipient: null, reason: null, pod: null, signature: null,
    created_at: '2025-01-01T00:00:00.5Z', updated_at: '2025-01-01T00:00:00.5Z', updated_at_key: '2025-01-01T00:00:00.500000000Z',
    last_event_type: 'OrderAdded', received_at: '2025-01-09T00:00:00Z', revision: 0, event_count: 1, position: '100',
  })
})

t.test('OrderUpdated, then OrderCompleted: status, address and dates follow; created_at stays', async (t) => {
  const row = fold([added(), updated(), completed()])
  t.match(row, {
    status: 'completed', address: 'c', delivery_date: '2025-01-03T00:00:00Z', recipient: 'R', pod: TEST_POD, signature: null,
    created_at: '2025-01-01T00:00:00.5Z', updated_at: '2025-01-03T00:00:00Z', last_event_type: 'OrderCompleted', revision: 2, event_count: 3,
  })
})

t.test('OrderCanceled keeps the delivery fields and records the reason', async (t) => {
  t.match(fold([added(), canceled()]), { status: 'canceled', address: 'a', reason: 'asked', event_count: 2, position: '101' })
})

t.test('an event that cannot apply leaves the row as it was', async (t) => {
  t.equal(evolveOrderRow(undefined, 'acme', 'o-1', updated()), undefined, 'an update before the order exists')
  const row = fold([added()])
  t.equal(evolveOrderRow(row, 'acme', 'o-1', added()), row, 'a second OrderAdded')
  const locked = fold([added(), canceled()])
  for (const event of [updated(), completed(), canceled()]) t.equal(evolveOrderRow(locked, 'acme', 'o-1', event), locked, `${event.type} after the lock`)
})

t.test('an event without received_at leaves it null', async (t) => {
  t.equal(fold([{ ...added(), metadata: {} }])?.received_at, null)
})

t.test('a type the domain does not know is reported, whatever its data', async (t) => {
  const row = fold([added()])
  for (const event of [{ ...updated(), type: 'OrderRerouted' }, { ...updated(), type: 'OrderRerouted', data: {} }]) {
    t.equal(evolveOrderRow(row, 'acme', 'o-1', event), 'unknown')
    t.equal(evolveOrderRow(undefined, 'acme', 'o-1', event), 'unknown')
  }
})
