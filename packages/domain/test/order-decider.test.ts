import t from 'tap'
import type { OrderCommand } from '../src/commands.js'
import { foldOrder, orderDecider } from '../src/order-decider.js'
import { LIMITS } from '../src/limits.js'
import { isLocked } from '../src/statuses.js'
import { addOrder, cancelOrder, completeOrder, eraseOrder, factOf, updateOrder } from './fixtures.js'

/** Given the facts of these commands in the stream, when this command arrives, then the decision. */
function given(...history: OrderCommand[]) {
  const state = foldOrder(history.map(factOf))
  return { when: (command: OrderCommand) => orderDecider.decide(command, state) }
}

const appended = (command: OrderCommand) => ({ outcome: 'append', events: [factOf(command)] })

// The rows of docs/contract.md#states-and-transitions, one test each.
t.test('(no order) + ORDER_ADD → the order is added with its status', async (t) => {
  for (const status of ['pending', 'in_progress'] as const) {
    const add = addOrder({ status })
    t.same(given().when(add), appended(add))
    t.same(foldOrder([factOf(add)]), { exists: true, eventIds: [add.eventId], status, erased: false })
  }
})

t.test('ORDER_ADD on an existing order → conflict, whatever its state', async (t) => {
  const other = addOrder({ customer: 'someone else' })
  t.same(given(addOrder()).when(other), { outcome: 'rejected', error: 'conflict' })
  t.same(given(addOrder(), updateOrder()).when(other), { outcome: 'rejected', error: 'conflict' })
  t.same(given(addOrder(), completeOrder()).when(other), { outcome: 'rejected', error: 'conflict' })
  t.same(given(addOrder(), cancelOrder()).when(other), { outcome: 'rejected', error: 'conflict' })
})

t.test('ORDER_UPDATE on pending or in_progress → status, address and delivery_date replaced', async (t) => {
  for (const before of ['pending', 'in_progress'] as const) {
    for (const status of ['pending', 'in_progress'] as const) {
      const update = updateOrder({ status })
      t.same(given(addOrder({ status: before })).when(update), appended(update))
      t.match(foldOrder([factOf(addOrder({ status: before })), factOf(update)]), { exists: true, status })
    }
  }
})

t.test('ORDER_COMPLETE on pending or in_progress → locked as completed', async (t) => {
  for (const before of [[addOrder()], [addOrder(), updateOrder()]]) {
    const complete = completeOrder()
    t.same(given(...before).when(complete), appended(complete))
  }
  const state = foldOrder([factOf(addOrder()), factOf(completeOrder())])
  t.ok(state.exists && isLocked(state.status))
  t.match(state, { status: 'completed' })
})

t.test('ORDER_CANCELED on pending or in_progress → locked as canceled', async (t) => {
  for (const before of [[addOrder()], [addOrder(), updateOrder()]]) {
    const cancel = cancelOrder()
    t.same(given(...before).when(cancel), appended(cancel))
  }
  t.match(foldOrder([factOf(addOrder()), factOf(cancelOrder())]), { status: 'canceled' })
})

t.test('UPDATE, COMPLETE or CANCEL on a locked order → locked', async (t) => {
  const changes = [updateOrder({ address: 'elsewhere' }), completeOrder({ recipient: 'X' }), cancelOrder({ reason: 'late' })]
  for (const lock of [completeOrder(), cancelOrder()]) {
    for (const change of changes) {
      t.same(given(addOrder(), lock).when(change), { outcome: 'rejected', error: 'locked' }, `${change.type} after ${lock.type}`)
    }
  }
})

t.test('UPDATE, COMPLETE or CANCEL with no order → not_found', async (t) => {
  for (const change of [updateOrder(), completeOrder(), cancelOrder()]) {
    t.same(given().when(change), { outcome: 'rejected', error: 'not_found' }, change.type)
  }
})

t.test('an exact retry answers already_applied, even after the order moved on or locked', async (t) => {
  const add = addOrder()
  const update = updateOrder()
  const complete = completeOrder()
  const cancel = cancelOrder()
  t.same(given(add).when(add), { outcome: 'already_applied' }, 'ADD retried')
  t.same(given(add, update, completeOrder()).when(add), { outcome: 'already_applied' }, 'ADD retried after the lock')
  t.same(given(add, update, complete).when(update), { outcome: 'already_applied' }, 'UPDATE retried after the lock')
  t.same(given(add, complete).when(complete), { outcome: 'already_applied' }, 'COMPLETE retried after the lock')
  t.same(given(add, cancel).when(cancel), { outcome: 'already_applied' }, 'CANCEL retried after the lock')
})

t.test('a retry that differs in any field is a new event and meets the rules', async (t) => {
  t.same(given(addOrder()).when(addOrder({ event_date: '2025-02-27T08:00:01Z' })), { outcome: 'rejected', error: 'conflict' })
  t.same(given(addOrder(), completeOrder()).when(completeOrder({ recipient: 'R. Doe ' })), {
    outcome: 'rejected',
    error: 'locked',
  })
  const again = updateOrder({ event_date: '2025-03-01T00:00:00Z' })
  t.same(given(addOrder(), updateOrder()).when(again), appended(again), 'the same update at another time applies')
})

t.test('initialState is an empty stream with no order', async (t) => {
  t.same(orderDecider.initialState(), { exists: false, eventIds: [] })
  t.not(orderDecider.initialState(), orderDecider.initialState(), 'a fresh value each time')
})

t.test('evolve records every id and ignores facts that cannot apply', async (t) => {
  const add = factOf(addOrder())
  const updateFirst = foldOrder([factOf(updateOrder())])
  t.same(updateFirst, { exists: false, eventIds: [factOf(updateOrder()).id] }, 'an update before any add changes nothing')
  const second = { ...factOf(addOrder({ status: 'in_progress' })), id: 'second-add' }
  t.same(foldOrder([add, second]), { exists: true, status: 'pending', erased: false, eventIds: [add.id, 'second-add'] }, 'a second add changes nothing')
  const afterLock = foldOrder([add, factOf(cancelOrder()), factOf(updateOrder())])
  t.match(afterLock, { status: 'canceled' }, 'a change after the lock changes nothing')
  t.equal(afterLock.eventIds.length, 3)
  const erasedFirst = foldOrder([factOf(eraseOrder())])
  t.same(erasedFirst, { exists: false, eventIds: [factOf(eraseOrder()).id] }, 'an erasure before any add changes nothing')
  const afterErasure = foldOrder([add, factOf(eraseOrder()), factOf(updateOrder())])
  t.same(afterErasure, { exists: true, status: 'pending', erased: true, eventIds: [add.id, factOf(eraseOrder()).id, factOf(updateOrder()).id] }, 'a change after the erasure changes nothing')
})

t.test('evolve does not mutate the state it is given', async (t) => {
  const state = orderDecider.initialState()
  const next = orderDecider.evolve(state, factOf(addOrder()))
  t.same(state, { exists: false, eventIds: [] })
  t.equal(next.exists, true)
})

t.test('an order holds at most LIMITS.orderEventsMax events: past one fewer, updates are refused; completing or canceling still works', async (t) => {
  const updates = Array.from({ length: LIMITS.orderEventsMax - 2 }, (_, i) => updateOrder({ address: `${i} Main St` }))
  const full = [addOrder(), ...updates]
  t.equal(full.length, LIMITS.orderEventsMax - 1)
  const nearlyFull = full.slice(0, -1)
  const last = updateOrder({ address: 'the last one' })
  t.same(given(...nearlyFull).when(last), appended(last), 'the update that fills the order but its last place')
  t.same(given(...full).when(updateOrder({ address: 'one too many' })), { outcome: 'rejected', error: 'too_many_events' })
  t.same(given(...full).when(completeOrder()), appended(completeOrder()), 'completing closes a full order')
  t.same(given(...full).when(cancelOrder()), appended(cancelOrder()), 'canceling too')
  t.same(given(...full).when(updates[0] as OrderCommand), { outcome: 'already_applied' }, 'an exact retry still answers its success')
})

t.test('an erasure is appended once, on an existing order, whatever its state; after it the order takes no event', async (t) => {
  const erase = eraseOrder()
  t.same(given().when(erase), { outcome: 'rejected', error: 'not_found' }, 'no order, nothing to erase')
  for (const before of [[addOrder()], [addOrder(), updateOrder()], [addOrder(), completeOrder()], [addOrder(), cancelOrder()]]) {
    t.same(given(...before).when(erase), appended(erase), `erased after ${before.map((c) => c.type).join(', ')}`)
    t.same(given(...before, erase).when(erase), { outcome: 'already_applied' }, 'a second erasure is the first one')
    t.same(given(...before, erase).when(eraseOrder({ reason: 'asked again' })), { outcome: 'already_applied' }, 'its id is the order\'s: asked again, the same erasure')
  }
  t.same(given(addOrder(), erase).when({ ...eraseOrder(), eventId: 'another-id' }), { outcome: 'already_applied' }, 'an erasure with another id finds it erased')
  for (const change of [updateOrder({ address: 'x' }), completeOrder(), cancelOrder()]) {
    t.same(given(addOrder(), erase).when(change), { outcome: 'rejected', error: 'locked' }, `${change.type} after the erasure`)
  }
  t.same(given(addOrder(), erase).when(addOrder({ customer: 'again' })), { outcome: 'rejected', error: 'conflict' }, 'an ORDER_ADD for its id')
  t.same(given(addOrder(), erase).when(addOrder()), { outcome: 'already_applied' }, 'the exact retry of its ORDER_ADD still answers its success')
})
