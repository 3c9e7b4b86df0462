import t from 'tap'
import type { OrderCommand } from '../src/commands.js'
import { evolveView, type OrderView } from '../src/order-view.js'
import { openedEvent } from '../src/personal.js'
import { addOrder, cancelOrder, completeOrder, eraseOrder, factOf, openTest, POD, SIGNATURE, updateOrder } from './fixtures.js'

/** The view after these commands' facts, opened (or, from `erasedFrom` on, not openable). */
function view(commands: OrderCommand[], erasedFrom = Infinity): OrderView | null {
  return commands.reduce<OrderView | null>((state, command, i) => evolveView(state, openTest(factOf(command), i >= erasedFrom)), null)
}

const pod = { sha256: POD.sha256, media_type: POD.media_type, bytes: POD.bytes.length }
const signature = { sha256: SIGNATURE.sha256, media_type: SIGNATURE.media_type, bytes: SIGNATURE.bytes.length }

t.test('the view of an order: every field its events set, in stream order', async (t) => {
  const add = addOrder()
  t.same(view([add]), {
    order_id: 'A-1001', customer: 'C-7', location: 'L-3', status: 'pending', address: '1 Quay Street',
    delivery_date: '2025-03-01T10:00:00Z', created_date: add.data.event_date, last_event_date: add.data.event_date,
  })
  const update = updateOrder()
  t.match(view([add, update]), { status: 'in_progress', address: '2 Quay Street', delivery_date: update.data.delivery_date, customer: 'C-7', last_event_date: update.data.event_date })
  t.match(view([add, completeOrder()]), { status: 'completed', recipient: 'R. Doe', pod, signature })
  t.notOk('signature' in (view([add, completeOrder({ signature: undefined })]) ?? {}), 'no signature key when none was sent')
  t.match(view([add, cancelOrder()]), { status: 'canceled', reason: 'customer moved' })
})

t.test('the view keeps the rules: nothing before the add, after the lock or after the erasure changes it', async (t) => {
  t.equal(view([updateOrder()]), null)
  t.equal(view([eraseOrder()]), null)
  t.same(view([addOrder(), addOrder({ customer: 'other' })]), view([addOrder()]), 'a second add')
  t.same(view([addOrder(), cancelOrder(), updateOrder()]), view([addOrder(), cancelOrder()]), 'after the lock')
  t.same(view([addOrder(), eraseOrder(), updateOrder()]), view([addOrder(), eraseOrder()]), 'after the erasure')
  t.same(view([addOrder(), eraseOrder(), eraseOrder({ erased_at: '2030-01-01T00:00:00Z' })]), view([addOrder(), eraseOrder()]), 'erased once')
})

t.test('an erasure nulls every personal field the order has, and says when', async (t) => {
  t.same(view([addOrder(), updateOrder(), eraseOrder()]), {
    order_id: 'A-1001', customer: null, location: null, status: 'in_progress', address: null, delivery_date: '2025-03-02T11:00:00Z',
    created_date: '2025-02-27T08:00:00Z', last_event_date: '2025-02-28T09:00:00Z', erased_at: '2025-04-01T00:00:00Z',
  })
  t.match(view([addOrder(), completeOrder(), eraseOrder()]), { status: 'completed', recipient: null, pod: null, signature: null, address: null })
  t.match(view([addOrder(), cancelOrder(), eraseOrder()]), { status: 'canceled', reason: null })
  t.notOk('recipient' in (view([addOrder(), cancelOrder(), eraseOrder()]) ?? {}), 'no field the order never had')
})

t.test('events whose key was destroyed fold with their personal fields null and every other fact kept', async (t) => {
  const all = [addOrder(), updateOrder(), completeOrder(), eraseOrder()]
  const opened = view(all)
  t.same(view(all, 0), opened, 'rebuilt after the erasure: the same view as the live one')
  t.same(view([addOrder(), completeOrder()], 0), {
    order_id: 'A-1001', customer: null, location: null, status: 'completed', address: null, delivery_date: '2025-03-02T11:30:00Z',
    recipient: null, pod: null, signature: null, created_date: '2025-02-27T08:00:00Z', last_event_date: '2025-03-02T11:31:00Z',
  })
})

t.test('openedEvent: the plain fields back in their places; erased, null in each personal place', async (t) => {
  const complete = factOf(completeOrder())
  t.same(openTest(complete), {
    type: 'OrderCompleted', erased: false,
    data: { order_id: 'A-1001', delivery_date: '2025-03-02T11:30:00Z', event_date: '2025-03-02T11:31:00Z', address: '2 Quay Street', recipient: 'R. Doe', pod, signature },
  })
  t.same(openedEvent(complete, null), {
    type: 'OrderCompleted', erased: true,
    data: { order_id: 'A-1001', delivery_date: '2025-03-02T11:30:00Z', event_date: '2025-03-02T11:31:00Z', address: null, recipient: null, pod: null, signature: null },
  })
  t.same(openedEvent(factOf(addOrder()), { customer: 7, location: 'L' }).data, {
    order_id: 'A-1001', status: 'pending', delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z', customer: null, location: 'L', address: null,
  }, 'a value that is not text, or missing, is null')
  const erasure = factOf(eraseOrder())
  t.same(openedEvent(erasure, null), { ...erasure, erased: false }, 'an erasure holds nothing personal: as stored')
})
