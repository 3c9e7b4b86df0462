import { randomBytes } from 'node:crypto'
import t from 'tap'
import { streamNameFor, toCommand, type OrderEvent, type ValidDelivery } from '@waybill/domain'
import { MissingKeyError, openOrderEvent, orderSealer, type KeyLookup, type OrderKey } from '@waybill/personal-data'
import { rebuildOpener } from '../../src/orders/opener.js'

// A rebuild's opener against the per-event one: the same opened events, with each order's key
// looked up once (while it holds at most `ordersHeld` orders).
const keyOf = new Map<string, OrderKey>()
const lookups: string[] = []
const keys = {
  get: (account: string, orderId: string): KeyLookup => {
    lookups.push(orderId)
    return keyOf.get(`${account}/${orderId}`) ?? null
  },
}
const event = (orderId: string, valid: ValidDelivery, type: OrderEvent['type']): OrderEvent => {
  let key = keyOf.get(`acme/${orderId}`)
  if (key === undefined) keyOf.set(`acme/${orderId}`, key = { id: `k-${orderId}`, secret: randomBytes(32) })
  return { type, data: toCommand('acme', valid, orderSealer(key, streamNameFor('acme', orderId))).data } as OrderEvent
}
const add = (orderId: string): OrderEvent => event(orderId, {
  event: 'ORDER_ADD', event_date: '2025-01-01T00:00:00Z',
  payload: { order_id: orderId, customer: `c-${orderId}`, location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-05T00:00:00Z' },
}, 'OrderAdded')
const update = (orderId: string, address: string): OrderEvent => event(orderId, {
  event: 'ORDER_UPDATE', event_date: '2025-01-02T00:00:00Z', payload: { order_id: orderId, status: 'in_progress', address, delivery_date: '2025-01-06T00:00:00Z' },
}, 'OrderUpdated')

t.test('each order\'s key is looked up once, and each event opens as openOrderEvent opens it', async (t) => {
  lookups.length = 0
  const open = rebuildOpener(keys)
  const events: Array<[string, OrderEvent]> = [['o-1', add('o-1')], ['o-2', add('o-2')], ['o-1', update('o-1', 'b')], ['o-2', update('o-2', 'c')], ['o-1', update('o-1', 'd')]]
  for (const [orderId, stored] of events) {
    t.same(open('acme', orderId, stored), openOrderEvent(streamNameFor('acme', orderId), stored, keyOf.get(`acme/${orderId}`) ?? null))
  }
  t.same(lookups, ['o-1', 'o-2'], 'one look-up per order')
})

t.test('past the orders it holds, it forgets them and looks their keys up again', async (t) => {
  lookups.length = 0
  const open = rebuildOpener(keys, 2)
  for (const orderId of ['o-1', 'o-2', 'o-1', 'o-3', 'o-1', 'o-3']) open('acme', orderId, update(orderId, 'x'))
  t.same(lookups, ['o-1', 'o-2', 'o-3', 'o-1'], 'o-3 made it forget o-1 and o-2; o-3 is still held')
  t.throws(() => open('globex', 'o-1', update('o-1', 'y')), MissingKeyError, 'another account\'s order, looked up on its own')
  t.same(lookups.at(-1), 'o-1')
})
