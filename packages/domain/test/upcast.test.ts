import t from 'tap'
import { isSealed, SCHEMA_VERSION } from '../src/events.js'
import { foldOrder, orderDecider } from '../src/order-decider.js'
import { fromVersion1, NewerEventError, orderEventReader, schemaVersionOf, upcastOrderEvent, type Upcaster } from '../src/upcast.js'
import { addOrder, cancelOrder, completeOrder, eraseOrder, factOf, openTest, updateOrder } from './fixtures.js'

/** Each fact as the store keeps it: with the metadata of the version that wrote it. */
const stored = (version: number | undefined, fact: ReturnType<typeof factOf>) =>
  ({ ...fact, metadata: version === undefined ? {} : { schema_version: version, received_at: '2025-03-01T10:00:00Z' } })

/** The same facts as version 1 wrote them: every field in plain form, images by their sha256. */
const VERSION_1 = {
  OrderAdded: { order_id: 'A-1', customer: 'C-7', location: 'L-3', status: 'pending', address: '1 Quay Street', delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z' },
  OrderUpdated: { order_id: 'A-1', status: 'in_progress', address: '2 Quay Street', delivery_date: '2025-03-02T11:00:00Z', event_date: '2025-02-28T09:00:00Z' },
  OrderCompleted: {
    order_id: 'A-1', address: '2 Quay Street', delivery_date: '2025-03-02T11:30:00Z', recipient: 'R. Doe',
    pod: { sha256: 'a'.repeat(64), media_type: 'image/jpeg', bytes: 1234 }, signature: { sha256: 'b'.repeat(64), media_type: 'image/png', bytes: 99 },
    event_date: '2025-03-02T11:31:00Z',
  },
  OrderCanceled: { order_id: 'A-1', reason: 'customer moved', event_date: '2025-03-01T07:00:00Z' },
} as const

t.test('every version ever written reads as this version', async (t) => {
  t.equal(SCHEMA_VERSION, 2, 'the versions below are every one written so far')
  for (const fact of [addOrder(), updateOrder(), completeOrder(), cancelOrder(), eraseOrder()].map(factOf)) {
    const event = stored(2, fact)
    t.equal(upcastOrderEvent(event), event, `${fact.type}, version 2: the stored event itself`)
  }
  for (const [type, data] of Object.entries(VERSION_1)) {
    for (const version of [1, undefined]) {
      const event = upcastOrderEvent({ id: 'v1', type, data, metadata: version === undefined ? {} : { schema_version: version } })
      t.ok(event !== null && event.type !== 'PersonalDataErased' && !isSealed(event.data.personal), `${type}, version ${String(version)}: personal part in plain form`)
      t.same(openTest(event as never).data, type === 'OrderCompleted' ? { ...data } : data, `${type}, version ${String(version)}: opened, every field as written`)
    }
  }
  t.same(upcastOrderEvent({ id: 'v1', type: 'OrderCompleted', data: VERSION_1.OrderCompleted, metadata: {} }), {
    id: 'v1',
    type: 'OrderCompleted',
    data: {
      order_id: 'A-1', delivery_date: '2025-03-02T11:30:00Z', event_date: '2025-03-02T11:31:00Z',
      pod: { blob: 'a'.repeat(64), media_type: 'image/jpeg', bytes: 1234 }, signature: { blob: 'b'.repeat(64), media_type: 'image/png', bytes: 99 },
      personal: { plain: { address: '2 Quay Street', recipient: 'R. Doe', pod: 'a'.repeat(64), signature: 'b'.repeat(64) } },
    },
  }, 'a version-1 image: its blob is named by its own sha256, which the personal part keeps too')
  t.same(fromVersion1({ type: 'OrderTeleported', data: { x: 1 } }), { type: 'OrderTeleported', data: { x: 1 } }, 'a type with no personal fields is left as it is')
  t.same(fromVersion1({ type: 'OrderAdded', data: null }), { type: 'OrderAdded', data: null }, 'and so is data that is not an object')
  for (const odd of ['1', 0, -3, 1.5, null]) t.equal(schemaVersionOf({ metadata: { schema_version: odd } }), 1, `${String(odd)} counts as 1`)
  t.equal(schemaVersionOf({}), 1)
})

t.test('an event of a newer version is refused, naming it; an unknown type is passed over', async (t) => {
  const newer = { ...stored(SCHEMA_VERSION + 1, factOf(addOrder())), id: 'e-new' }
  t.throws(() => upcastOrderEvent(newer), new NewerEventError('e-new', SCHEMA_VERSION + 1, SCHEMA_VERSION))
  t.throws(() => upcastOrderEvent(newer), { message: `event e-new was written with schema version ${SCHEMA_VERSION + 1}, newer than this Waybill's ${SCHEMA_VERSION}: upgrade Waybill` })
  t.equal(upcastOrderEvent({ id: 'x', type: 'OrderTeleported', data: {}, metadata: { schema_version: 1 } }), null)
  t.equal(upcastOrderEvent({ id: 'y', type: 'OrderTeleported', data: {}, metadata: { schema_version: SCHEMA_VERSION } }), null, 'of this version too')
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
