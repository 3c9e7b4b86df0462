import t from 'tap'
import { SCHEMA_VERSION } from '../src/events.js'
import { foldOrder, orderDecider } from '../src/order-decider.js'
import { NewerEventError, orderEventReader, schemaVersionOf, upcastOrderEvent, type Upcaster } from '../src/upcast.js'
import { addOrder, cancelOrder, completeOrder, factOf, updateOrder } from './fixtures.js'

/** Each fact as the store keeps it: with the metadata of the version that wrote it. */
const stored = (version: number | undefined, fact: ReturnType<typeof factOf>) =>
  ({ ...fact, metadata: version === undefined ? {} : { schema_version: version, received_at: '2025-03-01T10:00:00Z' } })

t.test('every version ever written reads as this version: version 1, with or without its number', async (t) => {
  t.equal(SCHEMA_VERSION, 1, 'the versions below are every one written so far')
  for (const fact of [addOrder(), updateOrder(), completeOrder(), cancelOrder()].map(factOf)) {
    for (const version of [1, undefined]) {
      const event = stored(version, fact)
      t.equal(upcastOrderEvent(event), event, `${fact.type}, version ${String(version)}: the stored event itself`)
    }
  }
  for (const odd of ['1', 0, -3, 1.5, null]) t.equal(schemaVersionOf({ metadata: { schema_version: odd } }), 1, `${String(odd)} counts as 1`)
  t.equal(schemaVersionOf({}), 1)
})

t.test('an event of a newer version is refused, naming it; an unknown type is passed over', async (t) => {
  const newer = { ...stored(SCHEMA_VERSION + 1, factOf(addOrder())), id: 'e-new' }
  t.throws(() => upcastOrderEvent(newer), new NewerEventError('e-new', SCHEMA_VERSION + 1, SCHEMA_VERSION))
  t.throws(() => upcastOrderEvent(newer), { message: `event e-new was written with schema version ${SCHEMA_VERSION + 1}, newer than this Waybill's ${SCHEMA_VERSION}: upgrade Waybill` })
  t.equal(upcastOrderEvent({ id: 'x', type: 'OrderTeleported', data: {}, metadata: { schema_version: 1 } }), null)
})

t.test('the upcasting machinery: each older version is taken step by step to the current one', async (t) => {
  // Two made-up steps: version 1 named the field `addr`, version 2 put the data in `body`.
  const upcasters: Upcaster[] = [
    (event) => ({ type: event.type, data: { body: event.data } }),
    (event) => {
      const { body } = event.data as { body: Record<string, unknown> }
      const { addr, ...rest } = body
      return { type: event.type, data: { ...rest, address: addr } }
    },
  ]
  const read = orderEventReader(upcasters, 3)
  const v1 = { id: 'e1', type: 'OrderCanceled', data: { order_id: 'o', addr: '1 Main St' }, metadata: { schema_version: 1 } }
  t.same(read(v1), { id: 'e1', type: 'OrderCanceled', data: { order_id: 'o', address: '1 Main St' } })
  const v2 = { id: 'e2', type: 'OrderCanceled', data: { body: { order_id: 'o', addr: '2 Main St' } }, metadata: { schema_version: 2 } }
  t.same(read(v2), { id: 'e2', type: 'OrderCanceled', data: { order_id: 'o', address: '2 Main St' } })
  const v3 = { id: 'e3', type: 'OrderCanceled', data: { order_id: 'o' }, metadata: { schema_version: 3 } }
  t.equal(read(v3), v3)
  t.equal(read({ ...v1, type: 'Gone' }), null, 'an old event of a type no longer known')
  t.throws(() => read({ ...v3, metadata: { schema_version: 4 } }), { name: 'NewerEventError', version: 4 })
})

t.test('the decider folds events as stored: a type it does not know leaves the state as it was', async (t) => {
  const state = foldOrder([factOf(addOrder())])
  t.equal(orderDecider.evolve(state, { id: 'x', type: 'OrderTeleported', data: {} } as never), state)
  t.throws(() => orderDecider.evolve(state, { ...stored(SCHEMA_VERSION + 1, factOf(updateOrder())) }), NewerEventError)
})
